// My controls on the race screen: Deal, Auto, Undo, Finish and Resign, the action box and
// the keyboard shortcuts.

import { GAMES } from "./games.js";
import { hint, NO_MOVES } from "./moves.js";

const ACTION_SEPARATORS = /[;,\n]+/;
const SHORTCUTS = { d: "deal", s: "deal", a: "auto", u: "undo" };

/** Whether a race counts for nothing (a daily's practice, a race of one): hints are on. */
function practice(info) {
  return info.mode === "daily" ? info.ranked === false : info.max_players === 1;
}

export class Controls {
  constructor(race) {
    this.race = race;
    this.el = race.el;
    this.pendingKey = ""; // "r" waits for the reserve's digit
    this.unasking = 0; // the timer that takes Resign's "Sure?" back
    for (const action of ["deal", "auto", "undo"]) {
      this.el[`${action}-button`].addEventListener("click", () => race.play(action));
    }
    this.el["finish-button"].addEventListener("click", () => this.finish());
    this.el["hint-button"].addEventListener("click", () => this.hint());
    this.el["resign-button"].addEventListener("click", () => this.resign());
    document.addEventListener("keydown", (event) => this.onShortcut(event));
    this.el["action-form"].addEventListener("submit", (event) => {
      event.preventDefault();
      const input = this.el["action-input"];
      const actions = input.value
        .toLowerCase() // the notation has no capitals: T3 2 T5 and DEAL are meant as t3 2 t5, deal
        .split(ACTION_SEPARATORS)
        .map((text) => text.trim())
        .filter(Boolean);
      input.value = "";
      race.playAll(actions);
    });
  }

  /** The action box's example: a legal move, then the catalog's moves that exist in the game. */
  drawExample(info) {
    const legal = (info.you?.legal ?? []).find((action) => /^[tr]\d/.test(action));
    this.el["action-input"].placeholder = `type a move: ${legal ? `${legal}, ` : ""}${GAMES[info.game]?.exampleMove ?? "deal"}`;
  }

  draw() {
    const { info, view } = this.race;
    const running = info.phase === "running" && Boolean(view);
    const done = Boolean(this.race.myStanding()?.outcome) || info.phase === "done";
    const live = running && !done;
    // Shown while they can be used (or soon: the countdown); gone once my race is over,
    // so the result comes first.
    this.el.controls.hidden = !live && info.phase !== "countdown";
    this.el["keys-hint"].hidden = done;
    for (const id of [
      "deal-button",
      "auto-button",
      "action-input",
      "action-play",
      "resign-button",
    ]) {
      this.el[id].disabled = !live;
    }
    this.el["deal-button"].disabled = !live || view.stock === 0;
    this.el["undo-button"].disabled = !live || !view.can_undo;
    this.el["undo-button"].hidden = !this.race.undoAllowed();
    this.el["hint-button"].hidden = !live || !practice(info);
    const planner = this.planner;
    this.el["finish-button"].hidden = !live || !planner?.finishPlan(info.game, view);
    if (live && !planner) this.finishPlanner().then(() => this.race.info && this.race.view && this.draw());
  }

  /** A legal move worth trying, shown on the table and said (practice only). */
  hint() {
    const race = this.race;
    const action = hint(race.legal, race.view);
    race.say(action ? race.board.showHint(action) : NO_MOVES);
  }

  /** Resign takes two presses: the first asks "Sure?", for a few seconds. */
  async resign() {
    const race = this.race;
    const button = this.el["resign-button"];
    if (!race.raceId) return;
    const asking = button.classList.contains("confirm");
    const ask = (sure) => {
      button.classList.toggle("confirm", sure);
      button.textContent = sure ? "Sure? Resign" : "Resign";
    };
    clearTimeout(this.unasking); // a timer left by an earlier race must not cut this one short
    ask(!asking);
    if (!asking) {
      this.unasking = setTimeout(() => ask(false), 4000);
      return;
    }
    try {
      await race.app.conn.request("resign", { race: race.raceId });
      race.adopt({ race: race.raceId, players: race.withMine({ outcome: "resigned" }) });
    } catch (error) {
      race.say(error.message, true);
    }
  }

  /** js/finish.js, loaded once a race is played (it is not needed before). */
  finishPlanner() {
    this.loadingPlanner ??= import("./finish.js").then((module) => {
      this.planner = module;
      return module;
    });
    return this.loadingPlanner;
  }

  /**
   * Finish: offered when foundation moves alone win, or deals and foundation moves whatever
   * the order of the stock (`finishPlan`); it plays them, `auto` and `deal` as needed.
   */
  async finish() {
    const race = this.race;
    const { canAuto, finishPlan } = await this.finishPlanner();
    const plan = finishPlan(race.info?.game, race.view);
    if (!plan) {
      race.say("Finish needs every card face up, and deals and foundation moves alone to win whatever the stock holds.", true);
      return false;
    }
    if (this.finishing) return false; // a second press while it plays changes nothing
    this.finishing = true;
    const raceId = race.raceId;
    try {
      for (let step = 0; step < 200 && race.raceId === raceId && race.view; step += 1) {
        const view = race.view;
        let action = null;
        if (plan === "deal-first" && view.stock > 0) action = "deal";
        else if (canAuto(race.info.game, view)) action = "auto";
        else if (view.stock > 0) action = "deal";
        if (!action || !(await race.play(action))) break;
      }
    } finally {
      this.finishing = false;
    }
    return true;
  }

  /** Keys on the race screen (not while typing): pile keys pick and place, d a u f act. */
  onShortcut(event) {
    const board = this.race.board;
    if (this.race.root.hidden || !board || this.el.controls.hidden || this.el["deal-button"].disabled && this.el["auto-button"].disabled) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (document.getElementById("over-race").open) return; // reading over the race
    if (event.target.closest?.("input, textarea, select")) return;
    const key = event.key.toLowerCase();
    let pile = null;
    if (/^[0-9]$/.test(key)) pile = `${this.pendingKey === "r" ? "r" : "t"}${key}`;
    else if (key === "w" || key === "f") pile = key;
    this.pendingKey = key === "r" || key === "t" ? key : "";
    if (pile) {
      event.preventDefault();
      if (!board.pressPile(pile) && pile === "f") this.finish();
    } else if (SHORTCUTS[key]) {
      event.preventDefault();
      board.clearSelection();
      this.race.play(SHORTCUTS[key]);
    } else if (key === "escape") {
      board.clearSelection();
    }
  }
}
