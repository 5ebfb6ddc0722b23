// A player's profile (#profile for me, #user=NAME for an account, #player=ID for anyone):
// each game's rating and its chart, races played and won (and the share won), the runs
// finished and their average time, best daily run, the daily streak, and the latest races
// and daily runs, each with its replay (#replay=ID), and the arenas placed in with the best
// place. Loaded on first use.

import { legend, lineChart } from "./chart.js";
import { fill, h } from "./dom.js";
import { clockText, ordinal, outcomeText, ratingText, shownName } from "./format.js";
import { GAMES, gameTitle } from "./games.js";
import { remembered } from "./storage.js";

export class ProfileScreen {
  constructor(app) {
    this.app = app;
    this.root = document.getElementById("screen-profile");
    this.asked = null;
  }

  /** Show `who`'s profile ({player} or {username}). */
  show(who) {
    this.open(who);
  }

  hide() {
    this.asked = null;
  }

  onReconnected() {
    if (this.asked) this.open(this.asked);
  }

  async open(who) {
    this.asked = who;
    const key = JSON.stringify(who);
    this.root.dataset.ready = "false";
    fill(document.getElementById("profile-title"), who.username ?? "Profile");
    fill(document.getElementById("profile-sub"));
    fill(document.getElementById("profile-body"));
    fill(document.getElementById("profile-challenge"));
    fill(document.getElementById("profile-message"), "Loading…");
    try {
      const profile = await this.app.conn.request("profile", who);
      if (JSON.stringify(this.asked) !== key) return;
      fill(document.getElementById("profile-message"));
      this.draw(profile);
    } catch (error) {
      if (JSON.stringify(this.asked) !== key) return;
      const unknown = error.code === "player_not_found";
      fill(
        document.getElementById("profile-message"),
        unknown && who.player === this.app.conn.player
          ? "Nothing played yet: your races and daily runs will show here."
          : error.message,
      );
    }
  }

  draw(profile) {
    const mine = profile.player === this.app.conn.player;
    this.root.dataset.player = profile.player;
    this.root.dataset.ready = "true";
    fill(document.getElementById("profile-title"), `${shownName(profile)}${mine ? " (you)" : ""}`);
    const streak = profile.streak ?? { current: 0, longest: 0 };
    fill(
      document.getElementById("profile-sub"),
      profile.account ? "Account" : "Guest (no ratings or ranked dailies)",
      ` · daily streak: ${days(streak.current)} (longest ${days(streak.longest)})`,
      mine ? null : [" · ", h("a", { href: `#follow=${encodeURIComponent(profile.player)}` }, "Follow their races")],
    );
    fill(document.getElementById("profile-challenge"), mine ? turnDownBox() : this.challengeForm(profile));
    fill(
      document.getElementById("profile-body"),
      h("h2", {}, "Games"),
      table(
        "Games",
        [
          "Game",
          ["Rating", "num"],
          ["Won / played", "num"],
          ["Average time", "num"],
          "Best daily",
        ],
        Object.keys(GAMES).map((game) => {
          const rating = profile.ratings?.[game];
          const races = profile.races?.[game] ?? { played: 0, won: 0 };
          const finished = profile.finished?.[game] ?? { count: 0, average_ms: null };
          const best = profile.best_daily?.[game];
          const share = races.played ? ` (${Math.round((100 * races.won) / races.played)}%)` : "";
          return h(
            "tr",
            { dataset: { game } },
            h("th", { scope: "row" }, gameTitle(game)),
            h("td", { class: "num" }, rating ? ratingText(rating.rating, rating.provisional) : "—"),
            h("td", { class: "num" }, `${races.won} / ${races.played}${share}`),
            // the second lines (how many finished; today's daily played) go under the figure,
            // so that every column fits a phone
            h(
              "td",
              { class: "num" },
              finished.count
                ? [clockText(finished.average_ms), h("small", {}, ` (${finished.count} finished)`)]
                : "—",
            ),
            h(
              "td",
              {},
              best ? `${clockText(best.time_ms)} (#${best.rank})` : "—",
              profile.daily_today?.[game] ? h("small", {}, " played today") : null,
            ),
          );
        }),
      ),
      ratingChart(profile.rating_history ?? {}),
      h("h2", {}, mine ? "My history" : "Recent races"),
      profile.recent?.length
        ? table("History", ["Race", ["Place", "num"], "Result", "Replay"], profile.recent.map(recentRow))
        : h("p", { class: "none" }, "No races or daily runs yet."),
      arenaLines(profile.arenas ?? [], profile.best_arena_place ?? null),
    );
  }

  /** Challenge this player: to a game (the last one played here first), a private race for two. */
  challengeForm(profile) {
    const app = this.app;
    const games = Object.keys(GAMES);
    const select = h(
      "select",
      { name: "game", "aria-label": "Game to challenge to" },
      games.map((game) => h("option", { value: game, selected: game === app.lastGame }, gameTitle(game))),
    );
    const form = h(
      "form",
      { class: "inline challenge-form" },
      h("button", { type: "submit", class: "primary small" }, `Challenge ${shownName(profile)}`),
      " to ",
      select,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await (await app.challenges()).challenge(profile.player, select.value);
      } catch (error) {
        fill(document.getElementById("profile-message"), error.message);
      }
    });
    return form;
  }
}

/** The ratings after each rated race, one line per game played rated; none before the first. */
function ratingChart(history) {
  const games = Object.keys(history).filter((game) => history[game].length);
  if (!games.length) return null;
  const points = games.flatMap((game) => history[game]);
  const start = Math.min(...points.map(([at]) => at));
  const end = Math.max(...points.map(([at]) => at));
  const ratings = points.map(([, rating]) => rating);
  const day = (at) => new Date(start + at).toISOString().slice(0, 10);
  const lines = games.map((game) => ({
    label: gameTitle(game),
    points: history[game].map(([at, rating]) => [at - start, rating]),
  }));
  const chart = lineChart({
    lines,
    xMax: Math.max(end - start, 1),
    yMin: Math.min(...ratings) - 20,
    yMax: Math.max(...ratings) + 20,
    xText: day,
    label: `Rating after each rated race: ${games.map((game) => `${gameTitle(game)} ${history[game].at(-1)[1]}`).join(", ")}`,
  });
  return h("figure", { class: "rating-chart" }, h("h2", {}, "Rating"), chart, legend(lines));
}

/** A table named `label` whose `head` names its columns: a text, or [text, class] ("num": right-aligned,
 * as the column's figures are). */
function table(label, head, rows) {
  return h(
    "div",
    // Scrolled sideways on a narrow screen: from the keyboard too (focusable, named).
    { class: "table-scroll", tabindex: "0", role: "region", "aria-label": label },
    h(
      "table",
      { class: "ranking profile-table" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          head.map((cell) => {
            const [text, kind] = Array.isArray(cell) ? cell : [cell, null];
            return h("th", { scope: "col", class: kind }, text);
          }),
        ),
      ),
      h("tbody", {}, rows),
    ),
  );
}

function recentRow(run) {
  const when = new Date(run.at_ms).toISOString().slice(0, 16).replace("T", " ");
  const kind = run.mode === "daily" ? `daily ${run.day}` : "race";
  const result = run.outcome === "finished" ? clockText(run.time_ms) : outcomeText(run.outcome);
  return h(
    "tr",
    { dataset: { race: run.race } },
    h("td", {}, `${gameTitle(run.game)} · ${kind}`, h("small", {}, `${when} UTC`)),
    h("td", { class: "num" }, run.of > 1 ? `${run.rank} of ${run.of}` : "—"),
    h("td", {}, `${result} · ${run.progress} cards`),
    h(
      "td",
      {},
      h("a", { href: `#replay=${encodeURIComponent(run.race)}`, "aria-label": `Replay: ${kind}, ${when}` }, "Replay"),
    ),
  );
}

/** The arenas the player placed in, newest first, and their best place of all (kept
 * apart: it outlives the lines). None before the first. */
function arenaLines(lines, best) {
  if (!lines.length && best === null) return null;
  return [
    h("h2", {}, "Arenas"),
    best === null ? null : h("p", { class: "me-line", dataset: { best: String(best) } }, `Best place: ${ordinal(best)}`),
    lines.length ? table("Arenas", ["Arena", ["Place", "num"], ["Points", "num"]], lines.map(arenaRow)) : null,
  ];
}

function arenaRow(line) {
  const when = new Date(line.ended_ms).toISOString().slice(0, 16).replace("T", " ");
  return h(
    "tr",
    { dataset: { arena: line.arena } },
    h(
      "td",
      {},
      h("a", { href: `#arenas=${encodeURIComponent(line.arena)}`, "aria-label": `Final standings: ${gameTitle(line.game)} arena, ${when}` }, `${gameTitle(line.game)} arena`),
      h("small", {}, `ended ${when} UTC`),
    ),
    h("td", { class: "num" }, `${ordinal(line.place)} of ${line.players}`),
    h("td", { class: "num" }, line.points),
  );
}

function days(n) {
  return `${n} ${n === 1 ? "day" : "days"}`;
}

/** On my own profile: turn down every challenge (the page declines them by itself). */
function turnDownBox() {
  const box = h("input", { type: "checkbox", id: "turn-down-toggle" });
  box.checked = remembered.setting("nochallenges");
  box.addEventListener("change", () => remembered.setSetting("nochallenges", box.checked));
  return h("label", { class: "check" }, box, " Turn down every challenge (the challenger is told)");
}
