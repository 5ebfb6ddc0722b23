// The replay of a finished race (#replay=ID): the server's log (race_log) played again in
// the page, every racer side by side on one timeline of the server's times, with a move
// list, steps, seeking and speeds. The positions come from the deal number and the
// accepted actions (replayer.js), so a replay needs the deal: a race shows it once it is
// over, a daily challenge once its day is over (until then the page says so).

import { Board } from "./board.js";
import { legend, lineChart } from "./chart.js";
import { fill, h } from "./dom.js";
import { clockText, sealText, shownName } from "./format.js";
import { gameTitle, optionsText } from "./games.js";
import { rankingTable, shareBox } from "./results.js";
import { SUIT_SYMBOLS } from "./cards.js";
import { positionsOf, readable, viewOf } from "./replayer.js";

const SPEEDS = [1, 2, 4, 8, 16];
const LONGEST_PAUSE_MS = 2000; // a long think is shortened to this, at speed 1

export class ReplayScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-replay");
    this.el = Object.fromEntries(
      [...this.root.querySelectorAll("[id]")].map((element) => [element.id, element]),
    );
    this.raceId = null;
    this.log = null;
    this.steps = []; // {racer, index, t_ms, action}, in the server's time order
    this.racers = []; // {player, name, positions, board, element, shown}
    this.step = 0; // how many steps are played
    this.timer = null;
    this.el["replay-speed"].replaceChildren(
      ...SPEEDS.map((speed) => h("option", { value: String(speed) }, `${speed}×`)),
    );
    const on = (id, handler) => this.el[id].addEventListener("click", handler);
    on("replay-first", () => this.seek(0));
    on("replay-back", () => this.seek(this.step - 1));
    on("replay-next", () => this.seek(this.step + 1));
    on("replay-last", () => this.seek(this.steps.length));
    on("replay-play", () => (this.timer ? this.pause() : this.play()));
    this.el["replay-seek"].addEventListener("input", (event) =>
      this.seek(Number(event.target.value)),
    );
    this.root.addEventListener("keydown", (event) => this.onKey(event));
  }

  async open(raceId) {
    this.hide();
    this.raceId = raceId;
    this.root.dataset.race = raceId;
    this.root.dataset.ready = "false";
    fill(this.el["replay-title"], "Replay");
    fill(this.el["replay-message"], "Loading the race's log…");
    for (const id of ["replay-sub", "replay-seal", "replay-result", "replay-moves", "replay-boards", "replay-chart"]) {
      fill(this.el[id]);
    }
    this.el["replay-controls"].hidden = true;
    try {
      const { log } = await this.app.conn.request("race_log", { race: raceId });
      if (this.raceId === raceId) this.adopt(log);
    } catch (error) {
      if (this.raceId === raceId) fill(this.el["replay-message"], error.message);
    }
  }

  hide() {
    this.pause();
    for (const racer of this.racers) racer.board.destroy();
    this.racers = [];
    this.raceId = null;
  }

  onReconnected() {}

  adopt(log) {
    this.log = log;
    const kind = log.mode === "daily" ? `Daily ${gameTitle(log.game)}, ${log.day}` : gameTitle(log.game);
    fill(this.el["replay-title"], `Replay: ${kind}`);
    const deal = log.deal ? `deal ${log.deal}` : "deal not shown yet";
    fill(this.el["replay-sub"], `${deal} · ${optionsText(log.game, log.options)}`);
    fill(this.el["replay-seal"], sealText(log.commitment));
    const say = (text) => this.app.notice(text);
    const ranking = log.result?.ranking ?? [];
    fill(this.el["replay-result"], h("h2", {}, "Result"), rankingTable(ranking, this.app.conn.player), shareBox(log.race, say, { watch: false }));
    this.steps = log.racers
      .flatMap((racer, r) => racer.actions.map(([, action, t], index) => ({ racer: r, index, t_ms: t, action })))
      .sort((a, b) => a.t_ms - b.t_ms || a.racer - b.racer);
    this.racers = log.deal ? log.racers.map((racer) => this.racerPanel(racer)) : [];
    this.drawMoves();
    if (!log.deal) {
      fill(
        this.el["replay-message"],
        "The deal of a daily challenge stays secret until its day is over (midnight UTC): " +
          "the cards can be replayed from then on. The moves are listed below.",
      );
      return;
    }
    fill(this.el["replay-message"]);
    this.drawChart();
    this.el["replay-controls"].hidden = false;
    this.el["replay-seek"].max = String(this.steps.length);
    this.root.dataset.ready = "true";
    this.seek(0);
  }

  racerPanel(racer) {
    const host = h("div", { class: "watch-board" });
    const element = h(
      "article",
      { class: "watch-racer panel", dataset: { player: racer.player } },
      h(
        "header",
        { class: "watch-head" },
        h("h2", { class: "watch-name" }, shownName(racer)),
        h("span", { class: "watch-figures" }),
      ),
      host,
    );
    this.el["replay-boards"].append(element);
    const log = this.log;
    const actions = racer.actions.map(([, action]) => action);
    const positions = positionsOf(log.game, log.options, log.deal, actions);
    const board = new Board(host, { game: log.game, label: `${racer.name}'s cards` });
    return { player: racer.player, name: racer.name, positions, board, element, shown: -1, total: actions.length };
  }

  /** Each racer's cards home over the race's time; a click there seeks to that time. */
  drawChart() {
    const total = this.racers[0]?.positions[0] ? cardsIn(this.racers[0].positions[0]) : 52;
    const end = this.steps.at(-1)?.t_ms ?? 0;
    const lines = this.log.racers.map((racer, r) => ({
      label: shownName(racer),
      points: [[0, 0], ...racer.actions.map(([, , t], i) => [t, homeIn(this.racers[r].positions[i + 1])])],
    }));
    this.chart = lineChart({
      lines,
      xMax: Math.max(end, 1),
      yMax: total,
      xText: clockText,
      label: `Cards home over time: ${lines.map((line) => line.label).join(", ")}`,
      onPick: (t) => this.seek(this.steps.filter((step) => step.t_ms <= t).length),
    });
    fill(this.el["replay-chart"], this.chart, legend(lines));
  }

  drawMoves() {
    const names = this.log.racers.map(shownName);
    const text = (step) => {
      const before = this.racers[step.racer]?.positions[step.index]; // once the deal is known
      return before ? readable(before, step.action, SUIT_SYMBOLS) : step.action;
    };
    fill(
      this.el["replay-moves"],
      this.steps.map((step, i) =>
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: "move", dataset: { step: String(i + 1) }, onclick: () => this.seek(i + 1) },
            h("span", { class: "move-time" }, clockText(step.t_ms)),
            names.length > 1 ? h("span", { class: "move-who" }, names[step.racer]) : null,
            h("span", { class: "move-text", title: step.action }, text(step)),
          ),
        ),
      ),
    );
  }

  /** Show the race after its first `step` steps. */
  seek(step) {
    if (!this.log?.deal) return;
    this.step = Math.max(0, Math.min(step, this.steps.length));
    const played = this.racers.map(() => 0);
    for (const { racer } of this.steps.slice(0, this.step)) played[racer] += 1;
    this.racers.forEach((racer, r) => {
      if (racer.shown !== played[r]) {
        racer.shown = played[r];
        racer.board.render(viewOf(racer.positions[played[r]]));
      }
      const home = homeIn(racer.positions[played[r]]);
      fill(racer.element.querySelector(".watch-figures"), `${played[r]}/${racer.total} actions · ${home} cards home`);
      racer.element.dataset.played = String(played[r]);
    });
    const now = this.step ? this.steps[this.step - 1] : null;
    this.racers.forEach((racer, r) => {
      const moved = now?.racer === r ? movedCards(racer.positions[now.index], racer.positions[now.index + 1]) : [];
      racer.board.highlight(moved);
    });
    this.chart?.cursor(now?.t_ms ?? 0);
    fill(this.el["replay-time"], clockText(now?.t_ms ?? 0));
    fill(this.el["replay-step"], `move ${this.step} of ${this.steps.length}`);
    this.el["replay-seek"].value = String(this.step);
    this.root.dataset.step = String(this.step);
    for (const button of this.el["replay-moves"].querySelectorAll("[aria-current]")) {
      button.removeAttribute("aria-current");
    }
    const current = this.el["replay-moves"].querySelector(`[data-step="${this.step}"]`);
    if (current) {
      current.setAttribute("aria-current", "step");
      const list = this.el["replay-moves"]; // scroll the list only, never the page
      const top = current.offsetTop; // the list is positioned: offsets are within it
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    }
    if (this.step >= this.steps.length) this.pause();
  }

  play() {
    if (this.step >= this.steps.length) this.seek(0);
    fill(this.el["replay-play"], "❚❚ Pause");
    const next = () => {
      const speed = Number(this.el["replay-speed"].value) || 1;
      const before = this.step ? this.steps[this.step - 1].t_ms : 0;
      const gap = Math.min(this.steps[this.step].t_ms - before, LONGEST_PAUSE_MS);
      this.timer = setTimeout(() => {
        this.seek(this.step + 1);
        if (this.timer && this.step < this.steps.length) next();
      }, Math.max(gap, 60) / speed);
    };
    next();
  }

  pause() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.el) fill(this.el["replay-play"], "▶ Play");
  }

  onKey(event) {
    if (event.target.closest("input, select")) return;
    const keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in keys) {
      event.preventDefault();
      this.seek(this.step + keys[event.key]);
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      this.seek(event.key === "Home" ? 0 : this.steps.length);
    }
  }
}

function homeIn(position) {
  return position.foundations.reduce((n, pile) => n + pile.length, 0);
}

function cardsIn(position) {
  const piles = [...position.tableau, ...position.foundations, ...position.reserves, position.waste];
  return piles.reduce((n, pile) => n + pile.length, position.stock.length);
}

/** [pile, count] for each pile that `after` has new cards on top of (what a move moved). */
function movedCards(before, after) {
  const named = (position) => [
    ...position.tableau.map((pile, i) => [`t${i}`, pile]),
    ...position.foundations.map((pile, i) => [`f${i}`, pile]),
    ...position.reserves.map((pile, i) => [`r${i}`, pile]),
    ["w", position.waste],
  ];
  const earlier = new Map(named(before));
  return named(after).flatMap(([pile, cards]) => {
    const old = earlier.get(pile) ?? [];
    let same = 0;
    while (same < old.length && same < cards.length && old[same] === cards[same]) same += 1;
    return cards.length > same ? [[pile, cards.length - same]] : [];
  });
}
