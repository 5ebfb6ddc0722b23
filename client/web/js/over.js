// The rules, a leaderboard or a profile over the race I play, in a dialog that is not
// modal: the top bar stays live above it (its links open over the race too, or leave it)
// and the race under it takes no tap (inert). A screen's own section is lent to it (its
// links, another game's tab, stay in it) and given back on *Back to the race*, Escape, or
// any other screen. Loaded when first needed.

export class OverRace {
  constructor(app) {
    this.app = app;
    this.dialog = document.getElementById("over-race");
    this.lent = null; // {name, section, home}: the screen shown over the race
    this.dialog.addEventListener("close", () => this.giveBack());
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.dialog.open) this.dialog.close();
    });
  }

  async open(name, id) {
    const dialog = this.dialog;
    if (this.lent?.name !== name) {
      this.giveBack(true); // (closed, its close event would give the next one back too)
      const section = document.getElementById(`screen-${name}`);
      const home = document.createComment(`screen-${name} lent`);
      section.before(home);
      dialog.append(section);
      section.hidden = false;
      this.lent = { name, section, home };
    }
    if (!dialog.open) {
      const header = document.querySelector("header.topbar").getBoundingClientRect();
      dialog.style.setProperty("--over-top", `${Math.max(header.bottom, 0)}px`);
      dialog.show();
      document.getElementById("app").inert = true;
    }
    const screen = await this.app.screenLater(name);
    if (this.lent?.name === name) screen.show(id);
  }

  /** The lent screen goes back to its place; the dialog closes unless `keepOpen`. */
  giveBack(keepOpen = false) {
    const lent = this.lent;
    if (!lent) return;
    this.lent = null;
    this.app.screens[lent.name]?.hide();
    lent.section.hidden = true;
    lent.home.replaceWith(lent.section);
    if (keepOpen) return;
    document.getElementById("app").inert = false;
    if (this.dialog.open) this.dialog.close();
  }
}
