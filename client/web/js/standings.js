// The racers' progress on the race screen: the standings, the daily ghost, my done note.

import { h, fill } from "./dom.js";
import { clockText, ordinal, outcomeText, ratingText, shownName } from "./format.js";
import { cardCount } from "./games.js";

/** For `sort`: `me` first. */
export function meFirst(me, a, b) {
  return a === me ? -1 : b === me ? 1 : 0;
}

export function drawStandings(list, info, me) {
  const total = cardCount(info.game);
  const players = [...info.players].sort((a, b) => meFirst(me, a.player, b.player));
  // Drawn again only when what it shows changed (not on every action's answer).
  const shown = JSON.stringify([
    total,
    players.map((p) => [p.player === me, p.name, p.account, p.rating, p.provisional, p.progress, p.outcome, p.time_ms, p.bot]),
  ]);
  if (list.dataset.shown === shown) return;
  list.dataset.shown = shown;
  fill(
    list,
    players.map((p) => {
      const share = Math.round((100 * p.progress) / total);
      const state =
        p.outcome === "finished" ? clockText(p.time_ms) : p.outcome ? outcomeText(p.outcome) : "";
      return h(
        "li",
        {
          class: `standing${p.player === me ? " me" : ""}${p.outcome ? ` ${p.outcome}` : ""}`,
          dataset: { player: p.player, progress: String(p.progress) },
        },
        h(
          "span",
          { class: "standing-name" },
          nameLink(p, p.player === me ? `${shownName(p)} (you)` : shownName(p)),
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

/** An account's name links to its profile (a guest's name could be anyone's). */
function nameLink(standing, text) {
  return standing.account ? h("a", { href: `#user=${encodeURIComponent(standing.name)}` }, text) : text;
}

function ratingBadge(rating, provisional) {
  const text = ratingText(rating, provisional);
  const title = `rating ${Math.round(rating)}${provisional ? ", provisional (few races yet)" : ""}`;
  return h("span", { class: "rating", title }, ` ${text}`);
}

/** The ghost of the day's best run: its progress at this moment of my attempt's clock. */
export function drawGhost(el, info, daily, mine, now) {
  const ghost = info.mode === "daily" ? daily?.ghost : null;
  el.ghost.hidden = !ghost;
  if (!ghost) return;
  const total = cardCount(info.game);
  let t = info.start_at_ms ? Math.max(0, now - info.start_at_ms) : 0;
  if (mine?.outcome === "finished") t = Math.min(t, mine.time_ms); // where it was as I finished
  let [, progress] = ghost.progress[0] ?? [0, 0];
  for (const [at, cards] of ghost.progress) if (at <= t) progress = cards;
  const done = ghost.finished && t >= ghost.time_ms;
  const bar = el["ghost-bar"];
  const shown = `${ghost.player} ${progress} ${done}`;
  if (el.ghost.dataset.shown === shown) return; // redrawn only when it changes
  el.ghost.dataset.shown = shown;
  fill(el["ghost-name"], `Ghost: ${ghost.name}`);
  bar.setAttribute("aria-valuemax", String(total));
  bar.setAttribute("aria-valuenow", String(progress));
  bar.setAttribute("aria-label", `Ghost of ${ghost.name}'s best run: ${progress} of ${total} cards home`);
  bar.firstElementChild.style.width = `${Math.round((100 * progress) / total)}%`;
  el.ghost.dataset.progress = String(progress);
  el.ghost.dataset.done = String(done);
  fill(el["ghost-figures"], `${progress}/${total}`, done ? ` · ${clockText(ghost.time_ms)}` : "");
}

/** Once I am done and others still play: my place so far, my time, whom we wait for. */
export function drawDoneNote(note, players, mine, over) {
  const playing = players.filter((p) => !p.outcome).map((p) => p.name);
  note.hidden = !mine?.outcome || over || playing.length === 0;
  if (note.hidden) return;
  const waiting = `waiting for ${namesText(playing)}`;
  if (mine.outcome !== "finished") {
    fill(note, `You are out (${outcomeText(mine.outcome)}) — ${waiting}`);
    return;
  }
  const place = 1 + players.filter((p) => finishedBefore(p, mine)).length;
  const time = clockText(mine.time_ms);
  fill(note, `Cleared! You finished — ${ordinal(place)} so far, ${time} — ${waiting}`);
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
