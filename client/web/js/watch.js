// Spectating: every racer's cards, updated live from the race's spectator feed. The
// snapshot is as of feed item `feed_seq`; only later items are applied, in order.

import { Board } from "./board.js";
import { h, fill } from "./dom.js";
import { clockText, outcomeText, ratingText, shownName } from "./format.js";
import { cardCount, gameTitle, optionsText } from "./games.js";
import { rankingTable, shareBox } from "./results.js";
import { applyEvents, copyView } from "./view.js";

export class WatchScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-watch");
    this.raceId = null;
    this.info = null;
    this.feedSeq = 0;
    this.panels = new Map(); // player -> {board, element}
    this.result = null;
    document
      .getElementById("stop-watching")
      .addEventListener("click", () => this.app.navigate("#lobby"));
    setInterval(() => this.tick(), 200);
  }

  async open(raceId) {
    if (this.raceId && this.raceId !== raceId) this.stop();
    this.raceId = raceId;
    this.result = null;
    fill(document.getElementById("watch-message"), "");
    try {
      const { race } = await this.app.conn.request("spectate", { race: raceId });
      if (this.raceId === raceId) this.adopt(race);
    } catch (error) {
      if (this.raceId !== raceId) return;
      this.raceId = null;
      this.app.notice(error.message);
      this.app.navigate("#lobby");
    }
  }

  /** Leave the race's feed (when the screen is left). */
  stop() {
    const raceId = this.raceId;
    this.raceId = null;
    this.info = null;
    this.panels.clear();
    fill(document.getElementById("watch-boards"));
    if (raceId && this.app.conn?.ready) {
      this.app.conn.request("unspectate", { race: raceId }).catch(() => {});
    }
  }

  /** Spectating does not survive a disconnect: watch again after the resume. */
  onReconnected() {
    if (this.raceId) this.open(this.raceId);
  }

  adopt(snapshot) {
    this.info = snapshot;
    if (snapshot.phase === "done" && !this.result) this.fetchResult(snapshot.race);
    this.feedSeq = snapshot.feed_seq;
    this.panels.clear();
    fill(document.getElementById("watch-boards"));
    for (const player of snapshot.players) this.panelFor(player);
    this.draw();
  }

  /** A race watched after its end: its result comes with its log. */
  async fetchResult(raceId) {
    try {
      const { log } = await this.app.conn.request("race_log", { race: raceId });
      if (this.raceId !== raceId) return;
      this.result = { ...log.result, deal: log.deal };
      this.draw();
    } catch (error) {
      fill(document.getElementById("watch-message"), error.message);
    }
  }

  panelFor(standing) {
    const boardHost = h("div", { class: "watch-board" });
    const element = h(
      "article",
      { class: "watch-racer panel", dataset: { player: standing.player } },
      h(
        "header",
        { class: "watch-head" },
        h(
          "h2",
          { class: "watch-name" },
          shownName(standing),
          standing.account && standing.rating != null
            ? h("span", { class: "rating" }, ` ${ratingText(standing.rating, standing.provisional)}`)
            : null,
        ),
        h("span", { class: "watch-clock clock", "aria-label": `${standing.name}'s time` }),
        h("span", { class: "bar" }, h("span", { class: "bar-fill" })),
        h("span", { class: "watch-figures" }),
      ),
      boardHost,
    );
    document.getElementById("watch-boards").append(element);
    const board = new Board(boardHost, { game: this.info.game, label: `${standing.name}'s cards` });
    const panel = { element, board };
    this.panels.set(standing.player, panel);
    return panel;
  }

  onWatch(item) {
    if (item.race !== this.raceId || !this.info || item.seq <= this.feedSeq) return;
    this.feedSeq = item.seq;
    const players = this.info.players;
    const racer = (id) => players.find((p) => p.player === id);
    switch (item.kind) {
      case "countdown":
        this.info.phase = "countdown";
        this.info.start_at_ms = item.start_at_ms;
        break;
      case "started":
        this.info.phase = "running";
        for (const p of players) p.view = copyView(item.view);
        break;
      case "act": {
        const p = racer(item.player);
        if (!p) break;
        if (p.view) p.view = applyEvents(p.view, item.events, item.view ?? null);
        Object.assign(p, {
          progress: item.progress,
          actions: item.actions,
          outcome: item.outcome,
          time_ms: item.time_ms,
          last_action: item.action,
        });
        break;
      }
      case "retired": {
        const p = racer(item.player);
        if (p) p.outcome = item.outcome;
        break;
      }
      case "spectators":
        this.info.spectators = item.count;
        break;
      case "result":
        this.info.phase = "done";
        this.result = item;
        for (const [player, view] of Object.entries(item.revealed ?? {})) {
          const p = racer(player);
          if (p) p.view = view; // the deal is shown: every card, face-down ones too
        }
        break;
      default:
        return;
    }
    this.draw();
  }

  onEvent(event) {
    if (event.kind === "watch_ended" && event.race === this.raceId) {
      fill(
        document.getElementById("watch-message"),
        "You fell too far behind this race's feed; watching again.",
      );
      this.open(this.raceId);
      return true;
    }
    return false;
  }

  draw() {
    const info = this.info;
    if (!info) return;
    this.root.dataset.phase = info.phase;
    fill(document.getElementById("watch-title"), `${gameTitle(info.game)}`);
    const kind = info.mode === "daily" ? "daily challenge" : "race";
    fill(
      document.getElementById("watch-sub"),
      `${kind} · ${optionsText(info.game, info.options)} · ${info.phase}`,
    );
    fill(document.getElementById("watch-spectators"), `${info.spectators} watching`);
    const total = cardCount(info.game);
    for (const p of info.players) {
      const panel = this.panels.get(p.player) ?? this.panelFor(p);
      panel.element.dataset.progress = String(p.progress);
      panel.element.querySelector(".bar-fill").style.width =
        `${Math.round((100 * p.progress) / total)}%`;
      const figures = [`${p.progress}/${total} cards`, `${p.actions} actions`];
      if (p.outcome) figures.push(outcomeText(p.outcome));
      if (p.last_action) figures.push(`last: ${p.last_action}`);
      fill(panel.element.querySelector(".watch-figures"), figures.join(" · "));
      if (p.view) panel.board.render(p.view);
    }
    const results = document.getElementById("watch-results");
    results.hidden = !this.result;
    if (this.result) {
      const deal = this.result.deal ?? this.info.deal;
      fill(
        results,
        h("h2", {}, "Result"),
        deal ? h("p", { class: "sub" }, `Deal ${deal}`) : null,
        rankingTable(this.result.ranking),
        shareBox(this.raceId, (text) => this.app.notice(text)),
      );
    }
    this.tick();
  }

  tick() {
    if (!this.info || this.root.hidden) return;
    const now = this.app.conn.serverNow();
    for (const p of this.info.players) {
      const panel = this.panels.get(p.player);
      if (!panel) continue;
      let text = "0:00.0";
      if (p.outcome === "finished") text = clockText(p.time_ms);
      else if (p.outcome) text = outcomeText(p.outcome);
      else if (
        this.info.start_at_ms &&
        now > this.info.start_at_ms &&
        this.info.phase !== "countdown"
      ) {
        text = clockText(now - this.info.start_at_ms);
      }
      const clock = panel.element.querySelector(".watch-clock");
      if (clock.textContent !== text) clock.textContent = text;
    }
  }
}
