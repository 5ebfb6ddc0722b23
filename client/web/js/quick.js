// "Race someone now" (quick_race): wait in a game's pool until the server pairs me with a
// player of a close rating; the `paired` event names the race, which counts down by itself.
// While waiting the lobby shows for how long, and Cancel leaves the pool (quick_cancel).
// The tab remembers the wait, so after a reload it asks again (which keeps its place).

import { fill } from "./dom.js";
import { gameTitle } from "./games.js";
import { sentence } from "./account.js";

const KEY = "solrace.quick";
const REFRESH_MS = 5000; // the pool's size asked again while waiting

/**
 * "rated 1400–1600 · 3 waiting": the ratings accepted now (the server's window, widening
 * as I wait: `quick_race`'s `window`), and how many wait in the pool, me included.
 */
function rangeText(rating, window, waitedMs, waitingPlayers) {
  const parts = [];
  if (window && rating != null) {
    if (waitedMs >= window.unlimited_after_ms) parts.push("any rating");
    else {
      const half = window.start + (window.widen_per_s * Math.max(0, waitedMs)) / 1000;
      parts.push(`rated ${Math.round(rating - half)}–${Math.round(rating + half)}`);
    }
  }
  if (waitingPlayers) parts.push(`${waitingPlayers} waiting`);
  return parts.join(" · ");
}

export class QuickRace {
  constructor(app) {
    this.app = app;
    this.game = null; // the pool I wait in
    this.since = 0;
    this.rating = null;
    this.message = document.getElementById("quick-message");
    document.getElementById("quick-cancel").addEventListener("click", () => this.cancel());
    this.window = null; // how the ratings accepted widen (the server's rule)
    this.waitingPlayers = 0;
    this.unrated = null; // why my races are not rated (my standing), if they are not
    setInterval(() => this.game && this.draw(), 1000);
    setInterval(() => this.game && this.refresh(), REFRESH_MS);
    let kept = null;
    try {
      kept = JSON.parse(sessionStorage.getItem(KEY));
    } catch {
      // nothing kept
    }
    if (kept?.game) this.rejoin(kept);
  }

  /** After a reload: the same wait (the server keeps the place of a player who came back). */
  async rejoin({ game, since }) {
    try {
      const answer = await this.app.conn.request("quick_race", { game });
      Object.assign(this, { game, since });
      this.learn(answer);
    } catch {
      this.game = null; // racing now, or waiting elsewhere: nothing to show
    }
    this.keep();
    this.draw();
  }

  keep() {
    try {
      if (this.game) sessionStorage.setItem(KEY, JSON.stringify({ game: this.game, since: this.since }));
      else sessionStorage.removeItem(KEY);
    } catch {
      // storage refused: the wait goes on, only a reload forgets it
    }
  }

  async join(game) {
    fill(this.message);
    try {
      if (!(await this.app.leaveMyRaces())) return;
      const answer = await this.app.conn.request("quick_race", { game });
      if (this.game !== game) this.since = Date.now();
      this.game = game;
      this.learn(answer);
      this.keep();
    } catch (error) {
      fill(this.message, sentence(error.message));
    }
    this.draw();
  }

  /** What a `quick_race` answer says of the wait: my rating, the window, the pool's size. */
  learn(answer) {
    this.rating = answer.rating;
    this.window = answer.window ?? null;
    this.waitingPlayers = answer.waiting_players ?? 0;
    // an account not in good standing races all the same, unrated: told why
    const standing = answer.standing;
    this.unrated = standing?.code && standing.code !== "guest" ? standing.reason : null;
  }

  /** Asking again keeps my place and tells how many wait now. */
  async refresh() {
    const game = this.game;
    try {
      const answer = await this.app.conn.request("quick_race", { game });
      if (this.game === game) this.learn(answer);
    } catch {
      // paired meanwhile, or offline: the next answer or event says
    }
    this.draw();
  }

  async cancel() {
    this.forget();
    try {
      await this.app.conn.request("quick_cancel");
    } catch (error) {
      fill(this.message, sentence(error.message));
    }
  }

  /** Waiting no more (cancelled, paired, signed in or out: the server forgets it too). */
  forget() {
    this.game = null;
    this.keep();
    this.draw();
  }

  paired(event) {
    this.forget();
    this.app.openRace(event.race);
  }

  draw() {
    const waiting = document.getElementById("quick-waiting");
    waiting.hidden = !this.game;
    document.getElementById("quick-panel").dataset.waiting = this.game ?? "";
    for (const button of document.querySelectorAll("#quick-games button")) {
      button.disabled = Boolean(this.game);
    }
    if (!this.game) return;
    const unrated = this.unrated ? ` Not rated: ${this.unrated}` : "";
    const text = `Looking for a ${gameTitle(this.game)} opponent near ${Math.round(this.rating ?? 1500)}…${unrated}`;
    const line = document.getElementById("quick-text");
    if (line.textContent !== text) fill(line, text); // announced once, not every second
    const waited = Date.now() - this.since;
    fill(document.getElementById("quick-elapsed"), `${Math.floor(waited / 1000)} s`);
    fill(document.getElementById("quick-range"), rangeText(this.rating, this.window, waited, this.waitingPlayers));
  }
}
