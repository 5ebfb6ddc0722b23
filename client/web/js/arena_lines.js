// What the arena screens show of an arena: its countdown, its entry conditions, its
// standings (a table, the short list beside a heat), and the podium of its end. Pure
// drawing: arenas.js and arena_heat.js decide what to draw.

import { h } from "./dom.js";
import { ordinal, waitText } from "./format.js";

/** "starts in 35 min 02 s", "ends in 1 h 12 min 09 s", "over": by the server's clock
 * `now`, to the second (it ticks). */
export function countdownText(arena, now) {
  if (now < arena.start_ms) return `starts in ${spanText(arena.start_ms - now)}`;
  if (now < arena.end_ms) return `ends in ${spanText(arena.end_ms - now)}`;
  return "over";
}

/** A wait to the second: "8 s", "12 min 09 s", "1 h 02 min 03 s". */
function spanText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  if (!hours) return waitText(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${hours} h ${two(Math.floor(seconds / 60) % 60)} min ${two(seconds % 60)} s`;
}

/** A countdown that ticks (arenas.js redraws every `[data-countdown]` each second). */
export function countdown(arena, now) {
  return h(
    "span",
    {
      class: "arena-countdown",
      role: "timer",
      dataset: { countdown: "", start: String(arena.start_ms), end: String(arena.end_ms) },
    },
    countdownText(arena, now),
  );
}

/** Every `[data-countdown]` under `root`, again at `now`. */
export function tickCountdowns(root, now) {
  for (const element of root.querySelectorAll("[data-countdown]")) {
    const text = countdownText(
      { start_ms: Number(element.dataset.start), end_ms: Number(element.dataset.end) },
      now,
    );
    if (element.textContent !== text) element.textContent = text;
  }
}

/** Who may enter: an account in good standing, and the arena's rating band and games. */
export function conditionsText(conditions = {}) {
  const parts = ["accounts in good standing"];
  const { rating_min: low, rating_max: high, min_rated_games: games } = conditions;
  if (low != null && high != null) parts.push(`rated ${low}–${high}`);
  else if (low != null) parts.push(`rated ${low} or more`);
  else if (high != null) parts.push(`rated ${high} or less`);
  if (games) parts.push(`at least ${games} rated games in the game`);
  return parts.join(", ");
}

export function pointsText(points) {
  return `${points} ${points === 1 ? "point" : "points"}`;
}

/** "x2" for a player on a streak (their heats count twice), else their wins in a row. */
export function streakText(line) {
  if (line.on_streak) return `x2 (${line.streak} wins in a row)`;
  return line.streak ? `${line.streak} won` : "—";
}

/** The standings as a table: rank, player, points, streak, heats, wins; mine marked. */
export function standingsTable(lines, me, label) {
  const head = ["#", "Player", "Points", "Streak", "Heats", "Wins"].map((text, i) =>
    h("th", { scope: "col", class: i === 1 || i === 3 ? null : "num" }, text),
  );
  return h(
    "table",
    { class: "ranking arena-table", "aria-label": label },
    h("thead", {}, h("tr", {}, head)),
    h(
      "tbody",
      {},
      lines.map((line) =>
        h(
          "tr",
          { class: line.player === me ? "me" : null, dataset: { player: line.player } },
          h("td", { class: "rank num" }, line.rank),
          h("td", {}, line.player === me ? `${line.name} (you)` : line.name),
          h("td", { class: "num" }, line.points),
          h("td", { class: line.on_streak ? "streak on" : "streak" }, streakText(line)),
          h("td", { class: "num" }, line.heats),
          h("td", { class: "num" }, line.wins),
        ),
      ),
    ),
  );
}

/** The lines to show: the top, and mine below them when I am not in it. */
export function shownLines(page, count) {
  const top = (page?.top ?? []).slice(0, count);
  const me = page?.me;
  return me && !top.some((line) => line.player === me.player) ? [...top, me] : top;
}

/** One short line beside a heat: "2. Ann 4 points x2 · 2 heats". */
export function besideLine(line, me) {
  const mine = line.player === me;
  return h(
    "li",
    { class: mine ? "me" : null, dataset: { player: line.player } },
    h("span", { class: "arena-rank" }, `${line.rank}.`),
    h("span", { class: "arena-name" }, mine ? "You" : line.name),
    h("span", { class: "arena-points" }, pointsText(line.points)),
    line.on_streak ? h("span", { class: "streak on", title: "on a streak: heats count twice" }, "x2") : null,
    h("span", { class: "sub" }, `${line.heats} ${line.heats === 1 ? "heat" : "heats"}`),
  );
}

/** Where I stand: "You are 3rd of 14, 5 points, on a streak (x2)." */
export function mineText(page, final) {
  const me = page?.me;
  if (!me) return final ? "You raced no heat that counted." : "You have no heat scored yet.";
  const streak = me.on_streak ? ", on a streak (x2)" : "";
  const verb = final ? "You placed" : "You are";
  return `${verb} ${ordinal(me.rank)} of ${page.players}, ${pointsText(me.points)}${streak}.`;
}

/** The podium: the first three, the winner in the middle and highest. */
export function podium(top) {
  const steps = top.slice(0, 3);
  if (!steps.length) return h("p", { class: "none" }, "Nobody finished a heat that counted.");
  return h(
    "ol",
    { class: "podium", "aria-label": "Podium" },
    steps.map((line) =>
      h(
        "li",
        { class: `step step-${line.rank}`, dataset: { player: line.player } },
        h("span", { class: "step-place" }, ordinal(line.rank)),
        h("strong", { class: "step-name" }, line.name),
        h("span", { class: "step-points" }, pointsText(line.points)),
      ),
    ),
  );
}
