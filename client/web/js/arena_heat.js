// An arena's heat on the race screen: the arena's standings beside the race (the top lines
// and mine, from the `arena_standings` events), and at the heat's end, instead of "Play
// again", "Next heat soon" and the way back to the wait for the next heat, taken by itself.

import { h, fill } from "./dom.js";
import { ordinal, outcomeText } from "./format.js";
import { besideLine, mineText, shownLines } from "./arena_lines.js";

const BACK_AFTER_MS = 3000; // the result stays this long, then the wait for the next heat
const BESIDE = 5; // lines of the top beside a heat

export class ArenaHeat {
  constructor(app, screen) {
    this.app = app;
    this.screen = screen;
    this.arena = null; // the arena of the heat on the race screen
    this.asked = new Set(); // arenas whose standings were asked for once, for a heat's side
    this.last = new Map(); // arena -> my last heat's place there ({rank, of, outcome})
    this.returning = null; // the heat whose result takes me back to its arena
  }

  /** The race screen shows a heat of arena `id`: its standings beside it. */
  beside(id) {
    this.arena = id;
    const known = this.screen.pages.has(id);
    if (!known && !this.asked.has(id)) {
      this.asked.add(id);
      this.app.conn
        .request("arena_standings", { arena: id, top: BESIDE })
        .then((page) => this.screen.learn({ ...page, final: page.status === "ended" }))
        .then(() => this.drawBeside())
        .catch(() => this.asked.delete(id));
    }
    this.drawBeside();
  }

  drawBeside() {
    const race = this.app.screens.race;
    const id = race.info?.arena;
    if (!id || id !== this.arena) return;
    const page = this.screen.pages.get(id);
    const me = this.app.conn.player;
    const lines = shownLines(page, BESIDE);
    fill(
      document.getElementById("race-arena-lines"),
      lines.length
        ? lines.map((line) => besideLine(line, me))
        : h("li", { class: "none" }, "No heat scored yet."),
    );
    fill(document.getElementById("race-arena-me"), mineText(page, Boolean(page?.final)));
  }

  /** The heat's result is shown: no rematch, "next heat soon", and back to the arena. */
  over(el, info, result) {
    const me = this.app.conn.player;
    const mine = result.ranking.find((entry) => entry.player === me);
    if (mine) this.last.set(info.arena, { rank: mine.rank, of: result.ranking.length, outcome: mine.outcome });
    const page = this.screen.pages.get(info.arena);
    const href = `#arenas=${encodeURIComponent(info.arena)}`;
    fill(
      el["results-arena"],
      page?.final ? "The arena is over: " : "Next heat soon: ",
      h("a", { href }, page?.final ? "see its podium" : "back to the arena"),
      ".",
    );
    el["results-arena"].hidden = false;
    if (this.returning === result.race) return;
    this.returning = result.race;
    setTimeout(() => {
      const race = this.app.screens.race;
      if (this.app.currentName === "race" && race.raceId === result.race) this.app.navigate(href);
    }, BACK_AFTER_MS);
  }

  /** "Your last heat: 1st of 2, finished." */
  lastText(id) {
    const last = this.last.get(id);
    if (!last) return "";
    return `Your last heat: ${ordinal(last.rank)} of ${last.of}, ${outcomeText(last.outcome)}.`;
  }
}
