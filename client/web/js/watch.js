// Spectating: every racer's cards, updated live from the race's spectator feed, and its
// moves as they come. The snapshot is as of feed item `feed_seq`; only later items are
// applied, in order. A race that may count (`boards_live` false: rated, or a ranked daily
// attempt) shows each racer's progress only ("progress" items) and its boards at the end.
// Without a race named, the screen picks one itself: the top live race (#watch), or the
// live race of a player followed (#follow=ID), and the next when it ends.

import { Board } from "./board.js";
import { cardText } from "./cards.js";
import { h, fill } from "./dom.js";
import { clockText, outcomeText, ratingText, shownName } from "./format.js";
import { cardCount, gameTitle, optionsText } from "./games.js";
import { rankingTable, shareBox } from "./results.js";
import { applyEvents, copyView } from "./view.js";

const PICK_EVERY_MS = 4000; // how often the top race or a followed player's race is looked for
const TOP_SHOWN = 5;
const FEED_SHOWN = 40;

/** The top live race: the most watched, then the most racers, then the most cards home. */
function score(race) {
  const home = race.players.reduce((sum, p) => sum + p.progress, 0);
  return race.spectators * 1e6 + race.players.length * 1e4 + home;
}

export class WatchScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-watch");
    this.raceId = null;
    this.info = null;
    this.feedSeq = 0;
    this.panels = new Map(); // player -> {board, element}
    this.result = null;
    this.pick = null; // null (the race named), {top: true} or {player} (followed)
    document
      .getElementById("stop-watching")
      .addEventListener("click", () => this.app.navigate("#lobby"));
    setInterval(() => this.tick(), 200);
    setInterval(() => this.pick && !this.root.hidden && this.choose(), PICK_EVERY_MS);
  }

  /** Watch the top live race, and the next top one whenever it ends. */
  openTop() {
    this.startPicking({ top: true });
  }

  /** Watch `player`'s live race, and their next one whenever it ends. */
  follow(player) {
    this.startPicking({ player });
  }

  startPicking(pick) {
    if (JSON.stringify(pick) === JSON.stringify(this.pick)) return;
    this.stop();
    this.pick = pick;
    this.followedName = null; // learnt from the followed player's first race
    this.root.dataset.pick = pick.top ? "top" : "follow";
    fill(document.getElementById("watch-title"), pick.top ? "Top live race" : "Following");
    fill(document.getElementById("watch-sub"));
    this.choose();
  }

  /**
   * The live races anyone may watch (no daily attempt, none of mine), the top ones listed;
   * a new race is opened when none is watched or the watched one is over.
   */
  async choose() {
    const pick = this.pick;
    let races;
    try {
      races = (await this.app.conn.request("list_live")).races;
    } catch {
      return; // offline for a moment: the next turn asks again
    }
    if (this.pick !== pick) return;
    const me = this.app.conn.player;
    const watchable = races
      .filter((race) => race.mode === "race" && !race.players.some((p) => p.player === me))
      .sort((a, b) => score(b) - score(a));
    this.drawTop(watchable);
    const wanted = pick.top ? watchable : watchable.filter((race) => race.players.some((p) => p.player === pick.player));
    const watching = this.raceId && this.info?.phase !== "done";
    if (watching) return;
    if (wanted.length) {
      this.open(wanted[0].race, { picked: true });
    } else if (!this.raceId) {
      const who = pick.top ? "Nobody is racing right now" : `${this.followedName ?? "They"} are not racing right now`;
      fill(document.getElementById("watch-message"), `${who}: the next race shows here as it starts.`);
    }
  }

  drawTop(races) {
    fill(
      document.getElementById("watch-top"),
      races.length
        ? races.slice(0, TOP_SHOWN).map((race) =>
            h(
              "li",
              { dataset: { race: race.race } },
              h("a", { href: `#watch=${race.race}` }, race.players.map(shownName).join(" vs ")),
              ` · ${gameTitle(race.game)} · ${race.spectators} watching`,
            ),
          )
        : h("li", { class: "none" }, "No live races."),
    );
  }

  async open(raceId, { picked = false } = {}) {
    if (!picked) this.stopPicking();
    if (this.raceId && this.raceId !== raceId) this.leaveFeed();
    this.raceId = raceId;
    this.result = null;
    fill(document.getElementById("watch-feed"));
    fill(document.getElementById("watch-message"), "");
    try {
      const { race } = await this.app.conn.request("spectate", { race: raceId });
      if (this.raceId === raceId) this.adopt(race);
    } catch (error) {
      if (this.raceId !== raceId) return;
      this.raceId = null;
      this.app.notice(error.message);
      if (!picked) this.app.navigate("#lobby");
    }
  }

  stopPicking() {
    this.pick = null;
    delete this.root.dataset.pick;
    fill(document.getElementById("watch-top"));
  }

  /** Leave the race's feed and stop picking (when the screen is left). */
  stop() {
    this.stopPicking();
    this.leaveFeed();
  }

  leaveFeed() {
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
        h(
          "a",
          { class: "follow", href: `#follow=${encodeURIComponent(standing.player)}` },
          `Follow ${shownName(standing)}`,
        ),
      ),
      h("p", { class: "watch-held sub", hidden: true }, "Boards shown when the race ends"),
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
        if (item.view) for (const p of players) p.view = copyView(item.view);
        break;
      case "act": {
        const p = racer(item.player);
        if (!p) break;
        this.feedLine(p, item);
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
      case "progress": {
        const p = racer(item.player);
        if (!p) break;
        const { progress, actions, outcome, time_ms } = item;
        Object.assign(p, { progress, actions, outcome, time_ms });
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
        // the deal shown: every card, face-down ones too; else the boards held till now
        for (const [player, view] of Object.entries(item.revealed ?? item.boards ?? {})) {
          const p = racer(player);
          if (p) p.view = view;
        }
        break;
      default:
        return;
    }
    this.draw();
  }

  /** The move, as a line on top of the live feed: "Ann · 12 · 8♥ t0→t4". */
  feedLine(racer, item) {
    const moved = item.events.find((event) => event.type === "moved");
    let text = item.action;
    if (moved && /^[twr]/.test(item.action)) {
      const more = moved.cards.length > 1 ? ` (${moved.cards.length} cards)` : "";
      text = `${cardText(moved.cards[0])} ${moved.src}→${moved.dst}${more}`;
    } else if (item.action === "auto") {
      const home = item.events.filter((event) => event.type === "moved").length;
      text = `auto: ${home} ${home === 1 ? "card" : "cards"} home`;
    }
    const feed = document.getElementById("watch-feed");
    feed.prepend(h("li", {}, h("span", { class: "move-who" }, shownName(racer)), ` · ${item.actions} · `, text));
    while (feed.children.length > FEED_SHOWN) feed.lastElementChild.remove();
  }

  onEvent(event) {
    if (event.kind === "watch_ended" && event.race === this.raceId) {
      this.open(this.raceId); // first: opening clears the message
      fill(
        document.getElementById("watch-message"),
        event.reason === "history_lost"
          ? "The server lost some moves of this race; watching again from what it holds."
          : "You fell too far behind this race's feed; watching again.",
      );
      return true;
    }
    return false;
  }

  draw() {
    const info = this.info;
    if (!info) return;
    this.root.dataset.phase = info.phase;
    this.root.dataset.race = info.race;
    const followed = this.pick?.player && info.players.find((p) => p.player === this.pick.player);
    if (followed) this.followedName = shownName(followed);
    const title = this.pick?.top ? "Top live race: " : followed ? `Following ${shownName(followed)}: ` : "";
    fill(document.getElementById("watch-title"), `${title}${gameTitle(info.game)}`);
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
      const held = !p.view && info.boards_live === false;
      panel.element.querySelector(".watch-held").hidden = !held;
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
