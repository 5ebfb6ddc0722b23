// Leaderboards: today's daily challenge of a game (the top, the entries around me, my
// rank, when the next day begins) and the all-time board of best daily runs.

import { h, fill } from "./dom.js";
import { clockText, sealText, shownName, waitText } from "./format.js";
import { GAMES, gameTitle } from "./games.js";

export class BoardsScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-boards");
    this.game = null; // the first of the server's games until one is asked for or played
    this.nextDayMs = null;
    this.timer = null;
    document
      .getElementById("board-play")
      .addEventListener("click", () => this.app.startDaily(this.game));
    this.showGames();
  }

  /** A tab per game of the server's. */
  showGames() {
    fill(
      document.getElementById("board-tabs"),
      Object.entries(GAMES).map(([game, { title }]) =>
        h("a", { class: "tab", href: `#boards=${game}`, role: "tab", dataset: { game } }, title),
      ),
    );
  }

  /** The board of `game`; without one (the top bar's link), of the game last played. */
  show(game) {
    const wanted = game || this.app.lastGame;
    if (wanted && GAMES[wanted]) this.game = wanted;
    this.game ??= Object.keys(GAMES)[0];
    for (const tab of document.querySelectorAll("#board-tabs .tab")) {
      const selected = tab.dataset.game === this.game;
      tab.classList.toggle("selected", selected);
      tab.setAttribute("aria-selected", String(selected));
    }
    fill(document.getElementById("board-title"), `Daily ${gameTitle(this.game)}`);
    this.load();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.tick(), 1000);
  }

  hide() {
    clearInterval(this.timer);
    this.timer = null;
  }

  tick() {
    if (this.nextDayMs === null) return;
    const left = this.nextDayMs - this.app.conn.serverNow();
    fill(document.getElementById("next-day"), left > 0 ? waitText(left) : "now — refresh");
  }

  async load() {
    const game = this.game;
    const status = document.getElementById("board-status");
    status.textContent = "Loading…";
    try {
      const [daily, best] = await Promise.all([
        this.app.conn.request("daily_board", { game, top: 10, around: 3 }),
        this.app.conn.request("best_board", { game, top: 10, around: 3 }),
      ]);
      if (game !== this.game) return;
      status.textContent = "";
      this.nextDayMs = daily.next_day_ms;
      fill(document.getElementById("board-day"), `${daily.day} (UTC)`);
      fill(
        document.getElementById("board-seal"),
        daily.commitment
          ? `${sealText(daily.commitment)}. Deal and nonce are shown after the day; ` +
              `check every run with: solrace verify daily ${game} ${daily.day}`
          : "Today's deal is not chosen yet.",
      );
      this.tick();
      this.drawBoard("daily", daily, "Nobody has played today's deal yet. Be the first!");
      this.drawBoard("best", best, "No finished daily runs yet.");
    } catch (error) {
      status.textContent = error.message;
    }
  }

  drawBoard(prefix, board, emptyText) {
    const me = this.app.conn.player;
    fill(document.getElementById(`${prefix}-top`), rows(board.top, me, emptyText));
    const aroundSection = document.getElementById(`${prefix}-around-section`);
    const meInTop = board.me && board.top.some((entry) => entry.player === me);
    aroundSection.hidden = !board.me || meInTop;
    fill(document.getElementById(`${prefix}-around`), rows(board.around, me, ""));
    fill(
      document.getElementById(`${prefix}-me`),
      board.me
        ? `Your rank: ${board.me.rank} of ${board.total}`
        : `No run of yours on this board yet (${board.total} ${board.total === 1 ? "player" : "players"}).`,
    );
  }
}

function rows(entries, me, emptyText) {
  if (!entries.length) {
    return emptyText ? [h("tr", {}, h("td", { colspan: "4", class: "none" }, emptyText))] : [];
  }
  return entries.map((entry) =>
    h(
      "tr",
      {
        class: entry.player === me ? "me" : "",
        dataset: { player: entry.player, rank: String(entry.rank) },
      },
      h("td", { class: "rank" }, entry.rank),
      h(
        "td",
        {},
        h("a", { href: `#user=${encodeURIComponent(entry.name)}` }, shownName(entry)),
        entry.player === me ? " (you)" : "",
      ),
      h(
        "td",
        {},
        entry.finished ? clockText(entry.time_ms) : `did not finish · ${entry.progress} cards`,
      ),
      h("td", { class: "num" }, entry.actions),
    ),
  );
}
