// The lobby: my races that are not over (the way back into them), create a race, join
// one (from the list, by link or by id), watch a live one, and start today's daily
// challenge. Creating or joining a race first leaves the ones I am in (see leaving.js).

import { h, fill } from "./dom.js";
import { shownName, waitText } from "./format.js";
import { GAMES, gameTitle, optionsText } from "./games.js";

const REFRESH_MS = 4000;
const DAY_MS = 86_400_000;

export class LobbyScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-lobby");
    this.form = document.getElementById("create-form");
    this.timer = null;
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.create();
    });
    this.form.elements.game.addEventListener("change", () => this.showOptions());
    document.getElementById("join-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = event.target.elements.race.value.trim();
      const id = text.match(/race=([0-9a-zA-Z_-]+)/)?.[1] ?? text;
      if (id) this.app.navigate(`#race=${id}`);
    });
    document.getElementById("refresh-races").addEventListener("click", () => this.refresh());
  }

  /** The lists of games (daily, quick races, a new race's choice), from the server's. */
  showGames() {
    const games = Object.entries(GAMES);
    fill(
      document.getElementById("quick-games"),
      games.map(([game, { title }]) =>
        h(
          "button",
          {
            type: "button",
            class: "primary small",
            dataset: { game },
            "aria-label": `Race someone now at ${title}`,
          },
          title,
        ),
      ),
    );
    fill(
      this.form.elements.game,
      games.map(([game, { title }]) => h("option", { value: game }, title)),
    );
    fill(
      document.getElementById("daily-games"),
      games.map(([game, { title }]) =>
        h(
          "li",
          { class: "daily-game", dataset: { game } },
          h("span", { class: "daily-title" }, title, h("small", { class: "daily-done" })),
          h(
            "span",
            { class: "daily-actions" },
            h(
              "button",
              {
                type: "button",
                class: "primary small",
                onclick: () => this.app.startDaily(game),
                "aria-label": `Play today's ${title}`,
              },
              "Play",
            ),
            h(
              "a",
              {
                class: "button small",
                href: `#boards=${game}`,
                "aria-label": `${title} board (leaderboard)`,
              },
              "Board",
            ),
          ),
        ),
      ),
    );
    this.showOptions();
  }

  show() {
    this.refresh();
    this.markDailies();
    clearInterval(this.timer);
    let turns = 0;
    this.timer = setInterval(() => {
      turns += 1;
      if (turns % (REFRESH_MS / 1000) === 0) this.refresh();
      else this.tick();
    }, 1000);
  }

  hide() {
    clearInterval(this.timer);
    this.timer = null;
  }

  /** After a reconnect: the lists may have changed meanwhile. */
  onReconnected() {
    this.refresh();
    this.markDailies();
  }

  /** Mark the dailies I have played today (my profile's `daily_today`). */
  async markDailies() {
    let today = {};
    try {
      today = (await this.app.conn.request("profile", { player: this.app.conn.player })).daily_today;
    } catch {
      // a new player the server knows nothing of yet has played nothing
    }
    for (const item of document.querySelectorAll("#daily-games li")) {
      const played = Boolean(today?.[item.dataset.game]);
      item.classList.toggle("played", played);
      fill(item.querySelector(".daily-done"), played ? " ✓ played today" : "");
    }
  }

  /** The chosen game's layout options (the catalog's `option_fields`), at their defaults. */
  showOptions() {
    const game = this.form.elements.game.value;
    const { options = {}, layout } = GAMES[game] ?? {};
    const fields = layout?.option_fields ?? [];
    const box = document.getElementById("game-options");
    box.hidden = fields.length === 0;
    fill(
      box,
      h("legend", {}, `${gameTitle(game)} layout`),
      fields.map(({ name, label, min, max }) =>
        h("label", {}, `${label} `, h("input", { name, type: "number", min, max, value: options[name] })),
      ),
    );
  }

  tick() {
    const now = this.app.conn?.serverNow() ?? Date.now();
    const next = Math.floor(now / DAY_MS + 1) * DAY_MS;
    fill(document.getElementById("lobby-next-day"), waitText(next - now));
  }

  async refresh() {
    if (!this.app.conn) return;
    this.tick();
    try {
      const [mine, open, live] = await Promise.all([
        this.app.conn.request("my_races"),
        this.app.conn.request("list_races"),
        this.app.conn.request("list_live"),
      ]);
      this.drawMine(mine.races);
      this.drawOpen(open.races);
      this.drawLive(live.races);
    } catch {
      // offline for a moment: the lists refresh on the next turn
    }
  }

  /** The races I am in and still play (or finished, waiting for the others). */
  drawMine(races) {
    const me = this.app.conn.player;
    const shown = races.filter((race) => {
      const outcome = race.players.find((p) => p.player === me)?.outcome;
      return !outcome || outcome === "finished";
    });
    document.getElementById("my-races-panel").hidden = !shown.length;
    fill(
      document.getElementById("my-races"),
      shown.map((race) => raceItem(race, myRaceText(race, me), this.backButton(race))),
    );
  }

  drawOpen(races) {
    const list = document.getElementById("open-races");
    if (!races.length) {
      fill(list, h("li", { class: "none" }, "No open races. Create one!"));
      return;
    }
    fill(
      list,
      races.map((race) => {
        const host = shownName(race.players.find((p) => p.player === race.host) ?? { name: "someone" });
        const seats = `${race.players.length}/${race.max_players}`;
        const what = `${optionsText(race.game, race.options)} · ${host}'s race · ${seats}`;
        return raceItem(race, what, this.goButton("Join", `#race=${race.race}`));
      }),
    );
  }

  drawLive(races) {
    const list = document.getElementById("live-races");
    if (!races.length) {
      fill(list, h("li", { class: "none" }, "Nobody is racing right now."));
      return;
    }
    const me = this.app.conn.player;
    fill(
      list,
      races.map((race) => {
        const names = race.players.map(shownName).join(" vs ");
        const kind =
          race.mode === "daily" ? "Daily" : race.phase === "countdown" ? "Starting" : "Racing";
        const what = `${kind} · ${names} · ${race.spectators} watching`;
        // A racer cannot watch their own race: they go back into it.
        const button = race.players.some((p) => p.player === me)
          ? this.backButton(race)
          : this.goButton("Watch", `#watch=${race.race}`);
        return raceItem(race, what, button);
      }),
    );
  }

  backButton(race) {
    return this.goButton("Back to race", `#race=${race.race}`, "primary small");
  }

  goButton(text, hash, className = "small") {
    const onclick = () => this.app.navigate(hash);
    return h("button", { type: "button", class: className, onclick }, text);
  }

  async create() {
    const fields = this.form.elements;
    const game = fields.game.value;
    const options = { undo: fields.undo.checked };
    for (const { name } of GAMES[game]?.layout.option_fields ?? []) options[name] = Number(fields[name].value);
    const deal = fields.deal.value.trim();
    const request = {
      game,
      options,
      max_players: Number(fields.max_players.value),
      public: fields.public.checked,
      deal: deal || null,
    };
    const message = document.getElementById("create-message");
    message.textContent = "";
    try {
      if (!(await this.app.leaveMyRaces())) return;
      const { race } = await this.app.conn.request("create_race", request);
      this.app.openRace(race);
    } catch (error) {
      message.textContent = error.message;
    }
  }
}

/** One race in a lobby list: the game, a line about it, and its button. */
function raceItem(race, what, button) {
  return h(
    "li",
    { class: "race-item", dataset: { race: race.race } },
    h(
      "span",
      { class: "race-what" },
      h("strong", {}, gameTitle(race.game)),
      h("small", {}, ` ${what}`),
    ),
    button,
  );
}

/** Where I am in a race of mine: "racing Bob", "you finished — waiting for the others". */
function myRaceText(race, me) {
  if (race.players.find((p) => p.player === me)?.outcome === "finished") {
    return "you finished — waiting for the others";
  }
  if (race.phase === "open") {
    return `waiting for players · ${race.players.length}/${race.max_players}`;
  }
  if (race.phase === "countdown") return "starting";
  if (race.mode === "daily") return "daily attempt under way";
  const others = race.players.filter((p) => p.player !== me).map(shownName);
  return others.length ? `racing ${others.join(", ")}` : "racing";
}
