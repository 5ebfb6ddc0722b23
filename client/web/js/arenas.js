// Arenas (#arenas: the list; #arenas=ID: one arena). The list (`arena_list`) shows each
// arena running or to come with a countdown ticking on the server's clock, the players
// entered, the heat size and who may enter; Join (`arena_join`: every refusal shown as the
// server's sentence) or Watch its standings (`arena_watch`). One arena: the wait for my
// next heat with Pause / Resume / Withdraw (`arena_change`), its standings as they are
// pushed (`arena_standings` events), and at its end the podium and my place. A heat itself
// is the race screen (the `paired` event opens it); arena_heat.js draws the standings beside
// it and takes me back here after it. Loaded when first needed (not with the page).

import { h, fill } from "./dom.js";
import { gameTitle } from "./games.js";
import {
  conditionsText,
  countdown,
  mineText,
  podium,
  shownLines,
  standingsTable,
  tickCountdowns,
} from "./arena_lines.js";
import { ArenaHeat } from "./arena_heat.js";

// this tab's arenas, by player: player -> arena id -> "active" | "paused" | "withdrawn"
const ENTERED = "solrace.arenas";
const RISK = "solrace.arenas.risk"; // likewise: player -> arena id -> true (risk mode on)
const LIST_EVERY_MS = 5000; // the list (players entered) asked again while it shows
const TOP = 10;

export class ArenasScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-arenas");
    this.el = Object.fromEntries(
      [...this.root.querySelectorAll("[id]")].map((element) => [element.id, element]),
    );
    this.arenas = new Map(); // id -> ARENA, as the list or a join said
    this.pages = new Map(); // id -> the latest standings told or asked ({version, top, me, ...})
    this.watching = new Set(); // arenas whose standings I watch without entering
    this.enteredBy = readKept(ENTERED);
    this.riskBy = readKept(RISK);
    this.shown = undefined; // the arena shown (null: the list; undefined: not showing)
    this.timer = null;
    this.heat = new ArenaHeat(app, this);
    document.head.append(h("link", { rel: "stylesheet", href: "/arenas.css" }));
    this.el["arena-pause"].addEventListener("click", () => this.change("pause"));
    this.el["arena-resume"].addEventListener("click", () => this.change("resume"));
    this.el["arena-withdraw"].addEventListener("click", () => this.withdraw());
    this.el["arena-risk"].addEventListener("change", (event) => this.setRisk(event.target));
    this.el["arena-join"].addEventListener("click", () => this.join(this.shown));
    this.el["arena-watch"].addEventListener("click", () => this.watch(this.shown));
    this.el["arena-unwatch"].addEventListener("click", () => this.unwatch(this.shown));
  }

  get me() {
    return this.app.conn.player;
  }

  /** The arenas I entered in this tab, and how I stand in each. */
  get entered() {
    this.enteredBy[this.me] ??= {};
    return this.enteredBy[this.me];
  }

  /** After a reconnect, wherever the page is: watch again the arenas I watch (a node that
   * restarted, or another one, does not know it; entrants are told wherever they are). */
  again() {
    const conn = this.app.conn;
    for (const arena of this.watching) conn.request("arena_watch", { arena }).catch(() => null);
  }

  /** `#arenas` (id null): the list; `#arenas=ID`: that arena. */
  show(id) {
    this.shown = id;
    this.say("");
    this.el["arena-list-view"].hidden = Boolean(id);
    this.el["arena-view"].hidden = !id;
    this.root.dataset.arena = id ?? "";
    clearInterval(this.timer);
    let turns = 0;
    this.timer = setInterval(() => {
      turns += 1;
      this.tick();
      if (!this.shown && turns % (LIST_EVERY_MS / 1000) === 0) this.refresh();
    }, 1000);
    this.refresh();
  }

  hide() {
    clearInterval(this.timer);
    this.timer = null;
    const id = this.shown;
    this.shown = undefined;
    if (id && this.watching.has(id)) this.unwatch(id); // watching goes with the screen
  }

  onReconnected() {
    this.refresh();
  }

  tick() {
    tickCountdowns(this.root, this.app.conn.serverNow());
  }

  /** Ask the server again for what the screen shows: the list, or the arena and its standings. */
  async refresh() {
    const id = this.shown;
    try {
      const { arenas } = await this.app.conn.request("arena_list");
      for (const arena of arenas) this.arenas.set(arena.id, arena);
      if (this.shown === null && id === null) this.drawList(arenas);
      if (id) {
        const page = await this.app.conn.request("arena_standings", { arena: id, top: TOP });
        this.learn({ ...page, final: page.status === "ended" });
        if (this.shown === id) this.drawArena();
      }
    } catch (error) {
      if (this.shown === id) this.say(error.message);
    }
  }

  /** Standings told (an `arena_standings` event) or asked: kept unless older than known. */
  learn(page) {
    const known = this.pages.get(page.arena);
    if (known && (known.version > page.version || (known.final && !page.final))) return false;
    this.pages.set(page.arena, page);
    return true;
  }

  /** The race screen shows a heat of arena `id`: its standings beside it. */
  beside(id) {
    this.heat.beside(id);
  }

  /** An `arena_standings` event: the arena's screen, and a heat's side, show it. */
  told(event) {
    if (!this.learn(event)) return;
    if (event.final) {
      this.watching.delete(event.arena); // the server stops telling
      this.arenaOver(event);
    }
    if (this.shown === event.arena) this.drawArena();
    this.heat.drawBeside();
  }

  /**
   * The final standings: an entrant on the arenas' screens, or looking at a heat's result,
   * is taken to the podium; anywhere else (another race, a replay) a notice says it.
   */
  arenaOver(event) {
    if (!this.entered[event.arena] || this.shown === event.arena) return;
    const race = this.app.screens.race;
    const name = this.app.currentName;
    const heatOver = name === "race" && race.info?.arena === event.arena && race.info.phase === "done";
    if (name === "arenas" || heatOver) {
      this.app.navigate(`#arenas=${encodeURIComponent(event.arena)}`);
    } else if (!(name === "race" && race.info?.arena === event.arena)) {
      // (a heat still running: its result takes them there)
      const title = this.arenas.get(event.arena)?.title ?? "An arena you entered";
      this.app.notice(`${title} is over. ${mineText(event, true)}`);
    }
  }

  // ---------------------------------------------------------------- asking

  async join(id) {
    this.say("");
    try {
      const answer = await this.app.conn.request("arena_join", { arena: id });
      this.arenas.set(id, answer.arena);
      this.watching.delete(id); // an entrant is told the standings as an entrant
      this.setEntered(id, this.entered[id] === "paused" ? "paused" : "active");
      if (this.shown === id) this.drawArena();
      else this.app.navigate(`#arenas=${encodeURIComponent(id)}`);
    } catch (error) {
      this.say(error.message);
    }
  }

  async change(change) {
    const id = this.shown;
    this.say("");
    try {
      await this.app.conn.request("arena_change", { arena: id, change });
      this.setEntered(id, { pause: "paused", resume: "active", withdraw: "withdrawn" }[change]);
      this.drawArena();
    } catch (error) {
      this.say(error.message);
    }
  }

  /** Withdraw takes two presses, as Resign does: it is for good. */
  withdraw() {
    const button = this.el["arena-withdraw"];
    if (button.dataset.sure !== "true") {
      button.dataset.sure = "true";
      fill(button, "Sure? Withdraw for good");
      return;
    }
    this.resetWithdraw();
    this.change("withdraw");
  }

  resetWithdraw() {
    const button = this.el["arena-withdraw"];
    button.dataset.sure = "false";
    fill(button, "Withdraw");
  }

  async watch(id) {
    this.say("");
    try {
      await this.app.conn.request("arena_watch", { arena: id });
      this.watching.add(id);
      if (this.shown === id) this.drawArena();
      else this.app.navigate(`#arenas=${encodeURIComponent(id)}`);
    } catch (error) {
      this.say(error.message);
    }
  }

  async unwatch(id) {
    this.watching.delete(id);
    if (this.shown === id) this.drawArena();
    try {
      await this.app.conn.request("arena_unwatch", { arena: id });
    } catch {
      // offline: the server forgets a watcher with its session
    }
  }

  setEntered(id, state) {
    this.entered[id] = state;
    keep(ENTERED, this.enteredBy);
  }

  /** Risk mode on or off for my heats paired from now on (`arena_change` `risk_on`,
   * `risk_off`): no undo in them, and a win pays 2 points more. */
  async setRisk(box) {
    const id = this.shown;
    const on = box.checked;
    this.say("");
    try {
      await this.app.conn.request("arena_change", { arena: id, change: on ? "risk_on" : "risk_off" });
      this.riskBy[this.me] = { ...(this.riskBy[this.me] ?? {}), [id]: on };
      keep(RISK, this.riskBy);
    } catch (error) {
      box.checked = !on;
      this.say(error.message);
    }
  }

  say(text) {
    const shown = this.shown ? this.el["arena-message"] : this.el["arenas-message"];
    for (const line of [this.el["arena-message"], this.el["arenas-message"]]) {
      fill(line, line === shown ? text : "");
    }
  }

  // ---------------------------------------------------------------- drawing

  drawList(arenas) {
    const now = this.app.conn.serverNow();
    const list = this.el["arena-list"];
    if (!arenas.length) {
      fill(list, h("li", { class: "none" }, "No arena runs or starts within 3 hours."));
      return;
    }
    fill(
      list,
      arenas.map((arena) => {
        const status = this.entered[arena.id]; // a withdrawal is final: no Join again
        const entered = status && status !== "withdrawn";
        const open = arena.status !== "ended" && !status;
        return h(
          "li",
          { class: "race-item arena-item", dataset: { arena: arena.id, status: arena.status } },
          h(
            "span",
            { class: "arena-what" },
            h("strong", {}, arena.title),
            h(
              "small",
              {},
              ` ${gameTitle(arena.game)} · heats of ${arena.heat_size} · `,
              `${arena.players} ${arena.players === 1 ? "player" : "players"} · `,
              countdown(arena, now),
            ),
            h("small", { class: "arena-who" }, `Open to ${conditionsText(arena.conditions)}.`),
          ),
          h(
            "span",
            { class: "arena-actions" },
            entered
              ? this.goButton("Back to it", arena, "primary small")
              : open
                ? h(
                    "button",
                    {
                      type: "button",
                      class: "primary small",
                      "aria-label": `Join ${arena.title}`,
                      onclick: () => this.join(arena.id),
                    },
                    "Join",
                  )
                : null,
            entered ? null : this.goButton("Standings", arena, "small", () => this.watch(arena.id)),
          ),
        );
      }),
    );
  }

  goButton(text, arena, className, onclick = null) {
    const go = onclick ?? (() => this.app.navigate(`#arenas=${encodeURIComponent(arena.id)}`));
    return h(
      "button",
      { type: "button", class: className, "aria-label": `${text}: ${arena.title}`, onclick: go },
      text,
    );
  }

  /** One arena: its heading, my part in it (or watching it), its standings, its end. */
  drawArena() {
    const id = this.shown;
    const arena = this.arenas.get(id);
    const page = this.pages.get(id);
    const now = this.app.conn.serverNow();
    const final = Boolean(page?.final);
    fill(this.el["arena-title"], arena?.title ?? id);
    fill(
      this.el["arena-sub"],
      arena
        ? [
            `${gameTitle(arena.game)} · heats of ${arena.heat_size} · `,
            final ? "over" : countdown(arena, now),
          ]
        : "",
    );
    this.root.dataset.final = String(final);
    const status = this.entered[id] ?? null;
    this.drawMine(arena, status, final);
    this.el["arena-final"].hidden = !final;
    if (final) this.drawFinal(page);
    const lines = shownLines(page, TOP);
    fill(
      this.el["arena-count"],
      page ? `${page.players} ${page.players === 1 ? "player" : "players"} placed` : "",
    );
    fill(
      this.el["arena-standings"],
      lines.length
        ? standingsTable(lines, this.me, "Arena standings")
        : h("p", { class: "none" }, "No heat scored yet: the standings fill as heats end."),
    );
  }

  /** My part: the wait for a heat (entered), watching, or the way in. */
  drawMine(arena, status, final) {
    const el = this.el;
    const watching = this.watching.has(this.shown);
    el["arena-wait"].hidden = !status || final;
    el["arena-outside"].hidden = Boolean(status) || final;
    el["arena-pause"].hidden = status !== "active";
    el["arena-resume"].hidden = status !== "paused";
    el["arena-withdraw"].hidden = !status || status === "withdrawn";
    el["arena-risk-line"].hidden = !status || status === "withdrawn";
    el["arena-risk"].checked = Boolean(this.riskBy[this.me]?.[this.shown]);
    if (status !== "active" && status !== "paused") this.resetWithdraw();
    el["arena-join"].hidden = !arena || Boolean(status);
    el["arena-watch"].hidden = watching;
    el["arena-unwatch"].hidden = !watching;
    fill(
      el["arena-outside-text"],
      watching
        ? "You are watching the standings: they change here as heats end."
        : "Enter to race its heats, or watch its standings as they change.",
    );
    if (!status) return;
    const started = arena && this.app.conn.serverNow() >= arena.start_ms;
    const [title, text] = WAIT_TEXT[status === "active" && !started ? "before" : status];
    fill(el["arena-wait-title"], title);
    fill(el["arena-wait-text"], text);
    fill(el["arena-last-heat"], this.heat.lastText(this.shown));
    fill(el["arena-mine"], mineText(this.pages.get(this.shown), false));
  }

  drawFinal(page) {
    fill(this.el["arena-podium"], podium(page?.top ?? []));
    fill(this.el["arena-final-mine"], mineText(page, true));
    this.el["arena-profile"].hidden = !page?.me;
  }
}

const WAIT_TEXT = {
  before: [
    "Waiting for the start",
    "You are in. When the arena starts you are put in a heat: it opens here by itself.",
  ],
  active: [
    "Waiting for your next heat",
    "Next heat soon: you are put in one as soon as another player is free. It opens by itself.",
  ],
  paused: ["Paused", "No new heat until you resume; your points stay."],
  withdrawn: ["You withdrew", "No more heats for you in this arena; your points stay."],
};

function readKept(key) {
  try {
    return JSON.parse(sessionStorage.getItem(key)) ?? {};
  } catch {
    return {};
  }
}

function keep(key, value) {
  try {
    sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage refused: this page still knows, only a reload forgets
  }
}
