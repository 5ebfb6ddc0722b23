// The race screen: the waiting room, the countdown, my board and clock, the other racers'
// progress, and the result. A daily-challenge attempt is a race for one on this screen.
// Here: the race's state; its parts draw in waiting.js, controls.js, standings.js, ending.js
// (ending.js is loaded once a race is under way, not with the page).
//
// The board changes only from the server's answers: an action goes out with the next
// sequence number, and its result's events are applied to my view; a refused action
// leaves everything as it was and shows the server's sentence.

import { Board } from "./board.js";
import { Controls } from "./controls.js";
import { fill } from "./dom.js";
import { clockText, outcomeText, sealText } from "./format.js";
import { gameTitle, optionsText } from "./games.js";
import { leaveRaces } from "./leaving.js";
import { NO_MOVES, noMovesLeft } from "./moves.js";
import { copyInput } from "./results.js";
import { drawDoneNote, drawGhost, drawStandings } from "./standings.js";
import { remembered } from "./storage.js";
import { applyEvents, copyView, movedView } from "./view.js";
import { drawCountdown, drawWaiting } from "./waiting.js";

export class RaceScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-race");
    this.el = Object.fromEntries(
      [...this.root.querySelectorAll("[id]")].map((element) => [element.id, element]),
    );
    this.info = null; // race info, and `you` when I race in it
    this.view = null;
    this.legal = null; // my legal actions in `view`, as the server last said
    this.seq = 0; // the last action number I used in this race
    this.queue = Promise.resolve();
    this.unanswered = new Set(); // actions sent or queued, not answered yet
    this.board = null;
    this.daily = null; // {day, ranked, certified, next_day_ms} for a daily attempt
    this.result = null;
    this.rated = null; // the `rated` event: every rated racer's new rating and change
    this.held = null; // the `held` event: this race waits for a moderator before it counts
    this.unrated = null; // the `unrated` event: this race moved no rating, and why
    this.rematchOffer = null;
    this.el["seal-toggle"].addEventListener("click", () => this.toggleSeal());
    this.el["ghost-button"].addEventListener("click", () =>
      this.app.startDaily(this.info.game, true),
    );
    this.controls = new Controls(this);
    this.celebrated = null; // the race whose win was celebrated
    this.el["start-button"].addEventListener("click", () => this.startRace());
    this.el["leave-button"].addEventListener("click", () => this.app.navigate("#lobby"));
    this.el["copy-link"].addEventListener("click", () => this.copyLink());
    this.el["rematch-button"].addEventListener("click", () => this.rematch());
    this.el["again-button"].addEventListener("click", () => this.playAgain());
    this.el["join-rematch"].addEventListener("click", () => this.joinRematch());
    // a refusal goes with the next move
    for (const kind of ["pointerdown", "keydown"]) {
      this.el["race-board"].addEventListener(kind, () => this.dropRefusal());
    }
    setInterval(() => this.tick(), 100);
  }

  get raceId() {
    return this.info?.race ?? null;
  }

  get me() {
    return this.app.conn.player;
  }

  // ---------------------------------------------------------------- opening a race

  /**
   * Show race `raceId`: mine (resume), or join it if it is open (leaving the races I am
   * in), or else watch it.
   */
  async open(raceId, known = null, daily = null) {
    if (this.raceId !== raceId) this.reset();
    if (daily) remembered.daily = { race: raceId, ...daily };
    const kept = remembered.daily; // after a reload, the attempt's daily_start answer
    this.daily = daily ?? (kept?.race === raceId ? kept : null);
    this.say("");
    try {
      let info = known ?? (await this.app.conn.request("snapshot", { race: raceId })).race;
      if (!this.isRacer(info)) {
        if (info.phase !== "open") {
          this.app.notice(
            `That race is ${info.phase === "done" ? "over" : "under way"}: you can watch it.`,
          );
          this.app.navigate(`#watch=${raceId}`);
          return;
        }
        if (!(await this.app.leaveMyRaces(raceId))) {
          this.app.navigate("#lobby");
          return;
        }
        info = (await this.app.conn.request("join_race", { race: raceId })).race;
      }
      this.adopt(info);
    } catch (error) {
      this.app.notice(error.message);
      this.app.navigate("#lobby");
    }
  }

  reset() {
    this.info = null;
    this.view = null;
    this.legal = null;
    this.seq = 0;
    this.queue = Promise.resolve();
    this.unanswered = new Set(); // actions sent or queued, not answered yet
    this.dropBoard();
    this.daily = null;
    this.result = null;
    this.rated = null;
    this.held = null;
    this.unrated = null;
    this.rematchOffer = null;
    delete this.root.dataset.race;
    delete this.root.dataset.phase;
    fill(this.el["results-body"]);
    this.el.results.hidden = true;
    this.el["rematch-offer"].hidden = true;
  }

  isRacer(info) {
    return Boolean(info.you) || info.players.some((p) => p.player === this.me);
  }

  /** Take `info` (race info, possibly with `you`) as the truth about this race. */
  adopt(info) {
    const first = this.info === null;
    this.info = { ...(this.info ?? {}), ...info };
    if (this.info.game) this.app.lastGame = this.info.game; // the boards open on it
    if (info.you) {
      this.seq = Math.max(this.seq, info.you.seq ?? 0);
      if (info.you.view) this.view = copyView(info.you.view);
      if (info.you.legal) this.legal = info.you.legal;
    }
    if (first) this.app.setHash(`#race=${info.race}`);
    this.draw();
  }

  // ---------------------------------------------------------------- events

  /** A numbered event for me; true if it concerned this screen. */
  onEvent(event) {
    const raceId = typeof event.race === "string" ? event.race : event.race?.race;
    if (event.kind === "snapshot") {
      const mine = event.races.find((race) => race.race === this.raceId);
      if (mine) this.adopt(mine);
      return Boolean(mine);
    }
    if (!raceId || raceId !== this.raceId) return false;
    switch (event.kind) {
      case "joined":
      case "left":
        this.adopt(event.race);
        break;
      case "countdown":
        this.adopt({ race: raceId, phase: "countdown", start_at_ms: event.start_at_ms });
        break;
      case "started": {
        const { n, kind, type, ...info } = event;
        this.adopt(info);
        this.say("");
        break;
      }
      case "standings":
        this.adopt({ race: raceId, players: event.players });
        break;
      case "result":
        this.result = event;
        this.adopt({ race: raceId, phase: "done", deal: event.deal ?? this.info.deal });
        break;
      case "rated":
        this.rated = event;
        this.drawResult();
        break;
      case "held":
        this.held = event;
        this.drawResult();
        break;
      case "history_lost": // the server's store lost moves it had accepted: its game is ours
        this.adopt(event.race);
        this.ending().then(({ lostSentence }) => this.say(lostSentence(event.lost), true));
        break;
      case "unrated":
        this.unrated = event;
        this.drawResult();
        break;
      case "rematch":
        this.rematchOffer = event;
        // Drawn from the state once ending.js is loaded (after a reset: no offer, hidden).
        this.ending().then(({ drawRematchOffer }) =>
          drawRematchOffer(this.el, this.info?.players, this.rematchOffer),
        );
        break;
      default:
        return false;
    }
    return true;
  }

  /** After a reconnect: whatever was missed, the server's snapshot puts right. */
  async onReconnected() {
    const raceId = this.raceId;
    if (!raceId) return;
    try {
      const { race } = await this.app.conn.request("snapshot", { race: raceId });
      if (this.raceId === raceId) this.adopt(race);
    } catch (error) {
      this.say(error.message, true);
    }
  }

  // ---------------------------------------------------------------- playing

  playAll(actions) {
    let chain = Promise.resolve(true);
    for (const action of actions) {
      chain = chain.then((ok) => (ok ? this.play(action) : false));
    }
    return chain;
  }

  /**
   * Send `action`; resolves true when the server accepted it. Actions go one at a time. A
   * legal move is drawn at once, online, when no other action waits for its answer
   * (`movedView`); the answer then draws what the server says, a refusal puts it back.
   */
  play(action) {
    this.dropRefusal();
    const online = this.app.conn.status === "online"; // offline, a move waits, undrawn
    if (online && this.board && this.view && !this.unanswered.size && this.legal?.includes(action)) {
      const { board, view } = this;
      // drawn once the handler that played it is done (it may move the keyboard's focus)
      queueMicrotask(() => {
        const moved = movedView(view, action);
        if (moved) board.render(moved, true);
      });
    }
    const unanswered = this.unanswered; // a new race starts with a set of its own
    const next = this.queue.then(() => this.send(action));
    unanswered.add(next);
    this.queue = next.catch(() => false).finally(() => unanswered.delete(next));
    return next;
  }

  async send(action) {
    const raceId = this.raceId;
    if (!raceId) return false;
    this.seq += 1;
    try {
      const result = await this.app.conn.request(
        "act",
        { race: raceId, seq: this.seq, action, legal: true },
        { resend: true },
      );
      if (this.raceId !== raceId) return true;
      this.legal = result.legal ?? null;
      this.applyResult(result);
      const sound = result.outcome === "finished" ? "win" : "move";
      if (this.app.sound) celebration().then((m) => m.chime(sound));
      this.say(!result.outcome && noMovesLeft(this.legal) ? NO_MOVES : "");
      // Cards home by themselves, if the player asked so (never straight after an undo).
      const autoHome = this.app.autoHome && !this.controls.finishing && action !== "undo";
      if (autoHome && !result.outcome && this.legal?.includes("auto")) {
        this.play("auto");
      }
      return true;
    } catch (error) {
      if (this.raceId === raceId) {
        this.drawBoard(); // a move drawn ahead goes back
        this.say(error.message, true);
      }
      return false;
    }
  }

  applyResult(result) {
    if (this.view) {
      this.view = applyEvents(this.view, result.events, result.view ?? null);
      if (!result.view && result.events.length) this.view.can_undo = this.undoAllowed();
    }
    const mine = {
      progress: result.progress,
      actions: result.actions,
      outcome: result.outcome,
      time_ms: result.time_ms,
    };
    const players = this.withMine(mine, result.standings ?? this.info.players);
    this.info = { ...this.info, players };
    this.drawPlay();
    this.tick(); // a finishing time shows on the clock together with the standing
  }

  undoAllowed() {
    return this.info.options?.undo !== false && !this.info.risk?.includes(this.me); // risk: none
  }

  withMine(fields, players = this.info.players) {
    return players.map((p) => (p.player === this.me ? { ...p, ...fields } : p));
  }

  async startRace() {
    try {
      this.adopt((await this.app.conn.request("start_race", { race: this.raceId })).race);
    } catch (error) {
      this.say(error.message, true);
    }
  }

  /** Leave the race on screen (see leaving.js); false when the player chose to stay. */
  leave() {
    const onError = (error) => this.app.notice(error.message);
    if (this.info && !leaveRaces(this.app.conn, [this.info], onError)) return false;
    this.reset();
    return true;
  }

  rematch() {
    return this.moveOn("rematch", this.raceId);
  }

  joinRematch() {
    return this.rematchOffer && this.moveOn("join_race", this.rematchOffer.rematch);
  }

  /** From this finished race into the next one (`type` is `rematch` or `join_race`). */
  async moveOn(type, race) {
    try {
      if (!(await this.app.leaveMyRaces(this.raceId))) return;
      const answer = await this.app.conn.request(type, { race });
      this.reset();
      this.adopt(answer.race);
    } catch (error) {
      this.say(error.message, true);
    }
  }

  /** "Play again" after a race the server paired: the lobby, waiting for the next one. */
  async playAgain() {
    const game = this.info.game;
    this.app.navigate("#lobby");
    await this.app.loadPlayers();
    this.app.quick.join(game);
  }

  /** The deal's seal (its commitment) is shown on asking: "Fair deal". */
  toggleSeal() {
    const seal = this.el["race-seal"];
    seal.hidden = !seal.hidden;
    this.el["seal-toggle"].setAttribute("aria-expanded", String(!seal.hidden));
  }

  copyLink() {
    copyInput(this.el["share-link"], (text) => this.app.notice(text));
  }

  /** A refusal's red sentence goes; any other message stays. */
  dropRefusal() {
    if (this.el["race-message"].classList.contains("error")) this.say("");
  }

  say(text, isError = false) {
    const message = this.el["race-message"];
    message.textContent = text;
    message.classList.toggle("error", isError && Boolean(text));
  }

  // ---------------------------------------------------------------- drawing

  draw() {
    if (!this.info) return;
    const info = this.info;
    this.root.dataset.phase = info.phase;
    this.root.dataset.race = info.race;
    fill(
      this.el["race-title"],
      info.mode === "daily" ? `Daily ${gameTitle(info.game)}` : gameTitle(info.game),
    );
    const deal = info.deal
      ? `deal ${info.deal}`
      : info.mode === "daily"
        ? `day ${info.day}`
        : "secret deal";
    const guest = !this.app.conn?.account;
    const practice =
      info.mode === "daily" && info.ranked === false ? ` · ${practiceText(guest, this.daily?.standing)}` : "";
    fill(this.el["race-sub"], `${deal} · ${optionsText(info.game, info.options)}${practice}`);
    fill(this.el["race-seal"], sealText(info.commitment));
    this.el["seal-toggle"].hidden = !info.commitment;
    this.controls.drawExample(info);
    this.el["daily-note"].hidden = info.mode !== "daily" || this.daily?.certified !== false;
    this.el["race-arena"].hidden = !info.arena; // a heat: its arena's standings beside it
    if (info.arena) this.app.screenLater("arenas").then((arenas) => arenas.beside(info.arena));
    drawWaiting(this.el, info, this.me);
    this.drawPlay();
    if (info.phase !== "open") this.ending(); // loaded before the result can come
    this.drawResult();
    this.tick();
  }

  /** js/ending.js (results, rematch offer): loaded once a race counts down, runs or is done. */
  ending() {
    this.loadingEnding ??= import("./ending.js");
    return this.loadingEnding;
  }

  /**
   * No result: the panel is hidden at once (all ending.js does then). A result is drawn once
   * ending.js is loaded, in order, from the state then: never an older result after a newer.
   */
  drawResult() {
    if (!this.result) {
      this.el.results.hidden = true;
      return;
    }
    this.ending().then(({ drawResult }) =>
      drawResult(this.el, this.info, this.result, this.app, this),
    );
  }

  /** What changes as the racers play: my cards, everyone's standing, my controls. */
  drawPlay() {
    drawStandings(this.el.standings, this.info, this.me);
    this.controls.draw();
    const mine = this.myStanding();
    drawDoneNote(this.el["done-note"], this.info.players, mine, Boolean(this.result));
    // The board last: its cards' slide measures the page once, with all the rest drawn.
    this.drawBoard();
    if (mine?.outcome === "finished" && this.celebrated !== this.raceId) {
      this.celebrated = this.raceId;
      celebration().then((m) => m.celebrate(this.root));
    }
  }

  drawBoard() {
    const host = this.el["race-board"];
    if (!this.view || this.info.phase === "open") {
      this.dropBoard();
      return;
    }
    if (!this.board || this.board.game !== this.info.game) {
      this.dropBoard();
      this.board = new Board(host, {
        game: this.info.game,
        label: "your cards",
        onAction: (action) => this.play(action),
      });
    }
    this.board.legal = this.legal;
    this.board.oneTap = !this.app.pickUp;
    this.board.render(this.view);
  }

  /** Empty the table; the old board stops listening, so one click is one action. */
  dropBoard() {
    this.board?.destroy();
    this.board = null;
    fill(this.el["race-board"]);
  }

  myStanding() {
    return this.info?.players.find((p) => p.player === this.me) ?? null;
  }

  /** The countdown and the clock, from the server's start time (so a reconnect keeps it). */
  tick() {
    if (!this.info || this.root.hidden) return;
    const info = this.info;
    const now = this.app.conn.serverNow();
    drawCountdown(this.el.countdown, info, now);
    const clock = this.el.clock;
    const mine = this.myStanding();
    let text = "0:00.0";
    if (mine?.outcome === "finished") text = clockText(mine.time_ms);
    else if (mine?.outcome) text = outcomeText(mine.outcome);
    else if (info.start_at_ms && now >= info.start_at_ms && info.phase !== "open") {
      text = clockText(now - info.start_at_ms);
    }
    if (clock.textContent !== text) clock.textContent = text;
    clock.dataset.startAt = info.start_at_ms ?? "";
    drawGhost(this.el, info, this.daily, mine, now);
  }
}

/** Why a daily attempt is practice: a guest plays yesterday's deal; an account not in
 * good standing is told what it lacks (`standing`); others have had their ranked attempt. */
function practiceText(guest, standing) {
  if (guest) return "practice on yesterday's deal: sign in to play today's, ranked";
  if (standing?.code) return `practice: ${standing.reason}`;
  return "practice: only your first attempt of the day is ranked";
}

/** The celebration and the sounds, loaded at the first of them (not with the page). */
function celebration() {
  return import("./celebrate.js");
}
