// The lobby: create a race, join one (from the list, by link or by id), watch a live one,
// and start today's daily challenge.

import { h, fill } from "./dom.js";
import { waitText } from "./format.js";
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
    fill(
      document.getElementById("daily-games"),
      Object.entries(GAMES).map(([game, { title }]) =>
        h(
          "li",
          { class: "daily-game" },
          h("span", { class: "daily-title" }, title),
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
                "aria-label": `${title} leaderboard`,
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
    this.showCurrentRace();
    this.refresh();
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

  /** A way back to a race I left the screen of while it goes on. */
  showCurrentRace() {
    const race = this.app.screens.race;
    const mine = race.myStanding();
    const going = race.info && race.info.phase !== "done" && !mine?.outcome;
    document.getElementById("current-race").hidden = !going;
    if (going) document.getElementById("current-race-link").href = `#race=${race.raceId}`;
  }

  showOptions() {
    const sanibel = this.form.elements.game.value === "sanibel";
    document.getElementById("sanibel-options").hidden = !sanibel;
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
      const [open, live] = await Promise.all([
        this.app.conn.request("list_races"),
        this.app.conn.request("list_live"),
      ]);
      this.drawOpen(open.races);
      this.drawLive(live.races);
    } catch {
      // offline for a moment: the lists refresh on the next turn
    }
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
        const host = race.players.find((p) => p.player === race.host)?.name ?? "someone";
        return h(
          "li",
          { class: "race-item", dataset: { race: race.race } },
          h(
            "span",
            { class: "race-what" },
            h("strong", {}, gameTitle(race.game)),
            h(
              "small",
              {},
              ` ${optionsText(race.game, race.options)} · ${host}'s race · ${race.players.length}/${race.max_players}`,
            ),
          ),
          h(
            "button",
            {
              type: "button",
              class: "small",
              onclick: () => this.app.navigate(`#race=${race.race}`),
            },
            "Join",
          ),
        );
      }),
    );
  }

  drawLive(races) {
    const list = document.getElementById("live-races");
    if (!races.length) {
      fill(list, h("li", { class: "none" }, "Nobody is racing right now."));
      return;
    }
    fill(
      list,
      races.map((race) => {
        const names = race.players.map((p) => p.name).join(" vs ");
        const kind =
          race.mode === "daily" ? "Daily" : race.phase === "countdown" ? "Starting" : "Racing";
        return h(
          "li",
          { class: "race-item", dataset: { race: race.race } },
          h(
            "span",
            { class: "race-what" },
            h("strong", {}, `${gameTitle(race.game)}`),
            h("small", {}, ` ${kind} · ${names} · ${race.spectators} watching`),
          ),
          h(
            "button",
            {
              type: "button",
              class: "small",
              onclick: () => this.app.navigate(`#watch=${race.race}`),
            },
            "Watch",
          ),
        );
      }),
    );
  }

  async create() {
    const fields = this.form.elements;
    const game = fields.game.value;
    const options = { undo: fields.undo.checked };
    if (game === "sanibel") {
      options.down = Number(fields.down.value);
      options.up = Number(fields.up.value);
    }
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
      const { race } = await this.app.conn.request("create_race", request);
      this.app.openRace(race);
    } catch (error) {
      message.textContent = error.message;
    }
  }
}
