// The race screen: the waiting room, the countdown, my board and clock, the other racers'
// progress, and the result. A daily-challenge attempt is a race for one on this screen.
//
// The board changes only from the server's answers: an action goes out with the next
// sequence number, and its result's events are applied to my view; a refused action
// leaves everything as it was and shows the server's sentence.

import { Board } from "./board.js";
import { celebrate, chime } from "./celebrate.js";
import { h, fill } from "./dom.js";
import { clockText, outcomeText, sealText } from "./format.js";
import { GAMES, gameTitle, optionsText } from "./games.js";
import { leaveRaces } from "./leaving.js";
import { copyInput, rankingRows, shareBox } from "./results.js";
import { remembered } from "./storage.js";
import { applyEvents, copyView } from "./view.js";

const ACTION_SEPARATORS = /[;,\n]+/;
// The action box's example: moves that exist in the game (Mount Sunflower has no waste).
const EXAMPLES = {
  sanibel: "t3 2 t5, w 1 f, deal",
  shady_lanes: "r0 1 t2, w 1 f, deal",
  mount_sunflower: "t3 1 t5, t0 1 f, deal",
  mount_sunflower_easy: "t3 1 t5, t0 1 f, deal",
};
const SHORTCUTS = { d: "deal", s: "deal", a: "auto", u: "undo" };

export class RaceScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-race");
    this.el = Object.fromEntries(
      [...this.root.querySelectorAll("[id]")].map((element) => [element.id, element]),
    );
    this.info = null; // race info, and `you` when I race in it
    this.view = null;
    this.seq = 0; // the last action number I used in this race
    this.queue = Promise.resolve();
    this.board = null;
    this.daily = null; // {day, ranked, certified, next_day_ms} for a daily attempt
    this.result = null;
    this.rated = null; // the `rated` event: every rated racer's new rating and change
    this.rematchOffer = null;
    this.el["ghost-button"].addEventListener("click", () =>
      this.app.startDaily(this.info.game, true),
    );
    this.el["deal-button"].addEventListener("click", () => this.play("deal"));
    this.el["auto-button"].addEventListener("click", () => this.play("auto"));
    this.el["undo-button"].addEventListener("click", () => this.play("undo"));
    this.el["finish-button"].addEventListener("click", () => this.finish());
    document.addEventListener("keydown", (event) => this.onShortcut(event));
    this.pendingKey = ""; // "r" waits for the reserve's digit
    this.celebrated = null; // the race whose win was celebrated
    this.el["resign-button"].addEventListener("click", () => this.resign());
    this.el["start-button"].addEventListener("click", () => this.startRace());
    this.el["leave-button"].addEventListener("click", () => this.app.navigate("#lobby"));
    this.el["copy-link"].addEventListener("click", () => this.copyLink());
    this.el["rematch-button"].addEventListener("click", () => this.rematch());
    this.el["join-rematch"].addEventListener("click", () => this.joinRematch());
    this.el["action-form"].addEventListener("submit", (event) => {
      event.preventDefault();
      const input = this.el["action-input"];
      const actions = input.value
        .toLowerCase() // the notation has no capitals: T3 2 T5 and DEAL are meant as t3 2 t5, deal
        .split(ACTION_SEPARATORS)
        .map((text) => text.trim())
        .filter(Boolean);
      input.value = "";
      this.playAll(actions);
    });
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
    this.seq = 0;
    this.queue = Promise.resolve();
    this.dropBoard();
    this.daily = null;
    this.result = null;
    this.rated = null;
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
    if (info.you) {
      this.seq = Math.max(this.seq, info.you.seq ?? 0);
      if (info.you.view) this.view = copyView(info.you.view);
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
      case "rematch":
        this.rematchOffer = event;
        this.drawRematchOffer();
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

  /** Send `action`; resolves true when the server accepted it. Actions go one at a time. */
  play(action) {
    const next = this.queue.then(() => this.send(action));
    this.queue = next.catch(() => false);
    return next;
  }

  async send(action) {
    const raceId = this.raceId;
    if (!raceId) return false;
    this.seq += 1;
    try {
      const result = await this.app.conn.request(
        "act",
        { race: raceId, seq: this.seq, action },
        { resend: true },
      );
      if (this.raceId !== raceId) return true;
      this.applyResult(result);
      if (this.app.sound) chime(result.outcome === "finished" ? "win" : "move");
      this.say("");
      return true;
    } catch (error) {
      if (this.raceId === raceId) this.say(error.message, true);
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
    const players = (result.standings ?? this.info.players).map((p) =>
      p.player === this.me ? { ...p, ...mine } : p,
    );
    this.info = { ...this.info, players };
    this.drawPlay();
    this.tick(); // a finishing time shows on the clock together with the standing
  }

  undoAllowed() {
    return this.info.options?.undo !== false;
  }

  /** Resign takes two presses: the first asks "Sure?", for a few seconds. */
  async resign() {
    const button = this.el["resign-button"];
    if (!this.raceId) return;
    if (!button.classList.contains("confirm")) {
      button.classList.add("confirm");
      button.textContent = "Sure? Resign";
      setTimeout(() => {
        button.classList.remove("confirm");
        button.textContent = "Resign";
      }, 4000);
      return;
    }
    button.classList.remove("confirm");
    button.textContent = "Resign";
    try {
      await this.app.conn.request("resign", { race: this.raceId });
      this.adopt({ race: this.raceId, players: this.withMine({ outcome: "resigned" }) });
    } catch (error) {
      this.say(error.message, true);
    }
  }

  withMine(fields) {
    return this.info.players.map((p) => (p.player === this.me ? { ...p, ...fields } : p));
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

  copyLink() {
    copyInput(this.el["share-link"], (text) => this.app.notice(text));
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
    const { canAuto, finishPlan } = await this.finishPlanner();
    const plan = finishPlan(this.info?.game, this.view);
    if (!plan) {
      this.say("Finish needs every card face up, and deals and foundation moves alone to win whatever the stock holds.", true);
      return false;
    }
    if (this.finishing) return false; // a second press while it plays changes nothing
    this.finishing = true;
    const raceId = this.raceId;
    try {
      for (let step = 0; step < 200 && this.raceId === raceId && this.view; step += 1) {
        const view = this.view;
        let action = null;
        if (plan === "deal-first" && view.stock > 0) action = "deal";
        else if (canAuto(this.info.game, view)) action = "auto";
        else if (view.stock > 0) action = "deal";
        if (!action || !(await this.play(action))) break;
      }
    } finally {
      this.finishing = false;
    }
    return true;
  }

  /** Keys on the race screen (not while typing): pile keys pick and place, d a u f act. */
  onShortcut(event) {
    const board = this.board;
    if (this.root.hidden || !board || this.el.controls.hidden || this.el["deal-button"].disabled && this.el["auto-button"].disabled) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
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
      this.play(SHORTCUTS[key]);
    } else if (key === "escape") {
      board.clearSelection();
    }
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
    const practice = info.mode === "daily" && info.ranked === false ? " · practice" : "";
    fill(this.el["race-sub"], `${deal} · ${optionsText(info.game, info.options)}${practice}`);
    fill(this.el["race-seal"], sealText(info.commitment));
    const legal = (info.you?.legal ?? []).find((action) => /^[tr]\d/.test(action));
    this.el["action-input"].placeholder = `type a move: ${legal ? `${legal}, ` : ""}${EXAMPLES[info.game] ?? "deal"}`;
    this.el["daily-note"].hidden = info.mode !== "daily" || this.daily?.certified !== false;
    this.drawWaiting();
    this.drawPlay();
    this.drawResult();
    this.tick();
  }

  /** What changes as the racers play: my cards, everyone's standing, my controls. */
  drawPlay() {
    this.drawBoard();
    this.drawStandings();
    this.drawControls();
    this.drawDoneNote();
  }

  drawWaiting() {
    const info = this.info;
    const waiting = info.phase === "open";
    this.el.waiting.hidden = !waiting;
    if (!waiting) return;
    const link = `${location.origin}/#race=${info.race}`;
    this.el["share-link"].value = link;
    fill(
      this.el["waiting-players"],
      info.players.map((p) =>
        h(
          "li",
          {},
          p.name,
          p.player === info.host ? " (host)" : "",
          p.player === this.me ? " — you" : "",
        ),
      ),
    );
    fill(this.el["waiting-count"], `${info.players.length} of ${info.max_players} players`);
    this.el["start-button"].hidden = info.host !== this.me;
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
    this.board.render(this.view);
  }

  /** Empty the table; the old board stops listening, so one click is one action. */
  dropBoard() {
    this.board?.destroy();
    this.board = null;
    fill(this.el["race-board"]);
  }

  drawStandings() {
    const info = this.info;
    const total = GAMES[info.game]?.cards ?? 52;
    const players = [...info.players].sort((a, b) =>
      a.player === this.me ? -1 : b.player === this.me ? 1 : 0,
    );
    fill(
      this.el.standings,
      players.map((p) => {
        const share = Math.round((100 * p.progress) / total);
        const state =
          p.outcome === "finished" ? clockText(p.time_ms) : p.outcome ? outcomeText(p.outcome) : "";
        return h(
          "li",
          {
            class: `standing${p.player === this.me ? " me" : ""}${p.outcome ? ` ${p.outcome}` : ""}`,
            dataset: { player: p.player, progress: String(p.progress) },
          },
          h(
            "span",
            { class: "standing-name" },
            nameLink(p, p.player === this.me ? `${p.name} (you)` : p.name),
            p.account && p.rating != null ? ratingBadge(p.rating, p.provisional) : null,
          ),
          h(
            "span",
            {
              class: "bar",
              role: "progressbar",
              "aria-label": `${p.name}: ${p.progress} of ${total} cards home`,
              "aria-valuemin": "0",
              "aria-valuemax": String(total),
              "aria-valuenow": String(p.progress),
            },
            h("span", { class: "bar-fill", style: { width: `${share}%` } }),
          ),
          h(
            "span",
            { class: "standing-figures" },
            `${p.progress}/${total}`,
            state ? ` · ${state}` : "",
          ),
        );
      }),
    );
  }

  myStanding() {
    return this.info?.players.find((p) => p.player === this.me) ?? null;
  }

  drawControls() {
    const running = this.info.phase === "running" && Boolean(this.view);
    const done = Boolean(this.myStanding()?.outcome) || this.info.phase === "done";
    const live = running && !done;
    this.el.controls.hidden = !running && this.info.phase !== "countdown" && !done;
    for (const id of [
      "deal-button",
      "auto-button",
      "action-input",
      "action-play",
      "resign-button",
    ]) {
      this.el[id].disabled = !live;
    }
    this.el["deal-button"].disabled = !live || this.view.stock === 0;
    this.el["undo-button"].disabled = !live || !this.view.can_undo;
    this.el["undo-button"].hidden = !this.undoAllowed();
    const planner = this.planner;
    this.el["finish-button"].hidden = !live || !planner?.finishPlan(this.info.game, this.view);
    if (live && !planner) this.finishPlanner().then(() => this.info && this.view && this.drawControls());
    const mine = this.myStanding();
    if (mine?.outcome === "finished" && this.celebrated !== this.raceId) {
      this.celebrated = this.raceId;
      celebrate(this.root);
    }
  }

  /** Once I am done and others still play: my place so far, my time, whom we wait for. */
  drawDoneNote() {
    const note = this.el["done-note"];
    const mine = this.myStanding();
    const playing = this.info.players.filter((p) => !p.outcome).map((p) => p.name);
    note.hidden = !mine?.outcome || Boolean(this.result) || playing.length === 0;
    if (note.hidden) return;
    const waiting = `waiting for ${namesText(playing)}`;
    if (mine.outcome !== "finished") {
      fill(note, `You are out (${outcomeText(mine.outcome)}) — ${waiting}`);
      return;
    }
    const place = 1 + this.info.players.filter((p) => finishedBefore(p, mine)).length;
    fill(note, `You finished — ${ordinal(place)} so far, ${clockText(mine.time_ms)} — ${waiting}`);
  }

  drawResult() {
    const result = this.result;
    this.el.results.hidden = !result;
    if (!result) return;
    fill(this.el["results-body"], rankingRows(result.ranking, this.me));
    fill(this.el["results-share"], shareBox(result.race, (text) => this.app.notice(text)));
    const mine = result.ranking.find((entry) => entry.player === this.me);
    const headline =
      mine?.rank === 1 && mine.outcome === "finished"
        ? "You won!"
        : mine?.outcome === "finished"
          ? `You finished ${ordinal(mine.rank)}`
          : "Race over";
    fill(this.el["results-title"], this.info.mode === "daily" ? "Attempt over" : headline);
    fill(this.el["results-deal"], result.deal ? `Deal ${result.deal}` : "");
    this.el["results-proof"].hidden = !result.nonce;
    fill(
      this.el["results-proof"],
      result.nonce
        ? `Nonce ${result.nonce}: the seal is the SHA-256 of the deal and this nonce. ` +
            `Check the whole race with: solrace verify race ${result.race}`
        : "",
    );
    this.drawRated();
    this.el["rematch-button"].hidden = this.info.mode !== "race";
    // Once the ranked attempt is over, an account may race the day's best run's ghost.
    this.el["ghost-button"].hidden = this.info.mode !== "daily" || !this.app.conn.account;
    this.el["board-link"].hidden = this.info.mode !== "daily";
    this.el["board-link"].href = `#boards=${this.info.game}`;
  }

  /** "Rating: Ann 1662? (+162), Bob 1338? (−162)": the `rated` event, mine first. */
  drawRated() {
    const line = this.el["results-rating"];
    const ratings = Object.entries(this.rated?.ratings ?? {});
    line.hidden = !ratings.length;
    ratings.sort(([a], [b]) => (a === this.me ? -1 : b === this.me ? 1 : 0));
    const name = (player) =>
      player === this.me ? "You" : (this.info.players.find((p) => p.player === player)?.name ?? player);
    fill(
      line,
      ratings.length ? "Rating: " : "",
      ratings.flatMap(([player, r], i) => [
        i ? ", " : "",
        `${name(player)} ${ratingText(r.rating, r.provisional)} (${signed(r.change)})`,
      ]),
    );
  }

  /** The ghost of the day's best run: its progress at this moment of my attempt's clock. */
  drawGhost(now) {
    const ghost = this.info.mode === "daily" ? this.daily?.ghost : null;
    this.el.ghost.hidden = !ghost;
    if (!ghost) return;
    const total = GAMES[this.info.game]?.cards ?? 52;
    const mine = this.myStanding();
    let t = this.info.start_at_ms ? Math.max(0, now - this.info.start_at_ms) : 0;
    if (mine?.outcome === "finished") t = Math.min(t, mine.time_ms); // where it was as I finished
    let [, progress] = ghost.progress[0] ?? [0, 0];
    for (const [at, cards] of ghost.progress) if (at <= t) progress = cards;
    const done = ghost.finished && t >= ghost.time_ms;
    const bar = this.el["ghost-bar"];
    const shown = `${ghost.player} ${progress} ${done}`;
    if (this.el.ghost.dataset.shown === shown) return; // redrawn only when it changes
    this.el.ghost.dataset.shown = shown;
    fill(this.el["ghost-name"], `Ghost: ${ghost.name}`);
    bar.setAttribute("aria-valuemax", String(total));
    bar.setAttribute("aria-valuenow", String(progress));
    bar.setAttribute("aria-label", `Ghost of ${ghost.name}'s best run: ${progress} of ${total} cards home`);
    bar.firstElementChild.style.width = `${Math.round((100 * progress) / total)}%`;
    this.el.ghost.dataset.progress = String(progress);
    this.el.ghost.dataset.done = String(done);
    fill(this.el["ghost-figures"], `${progress}/${total}`, done ? ` · ${clockText(ghost.time_ms)}` : "");
  }

  drawRematchOffer() {
    const offer = this.rematchOffer;
    this.el["rematch-offer"].hidden = !offer;
    if (!offer) return;
    const by = this.info.players.find((p) => p.player === offer.by)?.name ?? "Another racer";
    fill(this.el["rematch-text"], `${by} offers a rematch.`);
  }

  /** The countdown and the clock, from the server's start time (so a reconnect keeps it). */
  tick() {
    if (!this.info || this.root.hidden) return;
    const info = this.info;
    const now = this.app.conn.serverNow();
    const countdown = this.el.countdown;
    if (info.phase === "countdown" && info.start_at_ms) {
      const left = info.start_at_ms - now;
      countdown.hidden = false;
      const text = left > 0 ? String(Math.ceil(left / 1000)) : "Go!";
      if (countdown.textContent !== text) countdown.textContent = text;
    } else {
      countdown.hidden = true;
    }
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
    this.drawGhost(now);
  }
}

/** An account's name links to its profile (a guest's name could be anyone's). */
function nameLink(standing, text) {
  return standing.account ? h("a", { href: `#user=${encodeURIComponent(standing.name)}` }, text) : text;
}

/** 1532, or 1532? while provisional. */
export function ratingText(rating, provisional) {
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

function ratingBadge(rating, provisional) {
  const text = ratingText(rating, provisional);
  const title = `rating ${Math.round(rating)}${provisional ? ", provisional (few races yet)" : ""}`;
  return h("span", { class: "rating", title }, ` ${text}`);
}

function signed(change) {
  const n = Math.round(change);
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

/** Whether racer `a` finished ahead of `b` (the order of the ranking, as far as known). */
function finishedBefore(a, b) {
  if (a.outcome !== "finished" || a.player === b.player) return false;
  return a.time_ms < b.time_ms || (a.time_ms === b.time_ms && a.actions < b.actions);
}

/** "Bob", "Bob and Cy", "Bob, Cy and Dee". */
function namesText(names) {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function ordinal(n) {
  const suffix =
    n % 10 === 1 && n % 100 !== 11
      ? "st"
      : n % 10 === 2 && n % 100 !== 12
        ? "nd"
        : n % 10 === 3 && n % 100 !== 13
          ? "rd"
          : "th";
  return `${n}${suffix}`;
}
