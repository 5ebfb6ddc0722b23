// What every screen shows of a finished race: the ranking table, the revealed deal, and a
// link anyone can open to replay it (#replay=ID).

import { h } from "./dom.js";
import { clockText, outcomeText, shownName } from "./format.js";

/** The rows of a ranking table (race results, spectators, replays): `me` is highlighted. */
export function rankingRows(ranking, me = null) {
  return ranking.map((entry) =>
    h(
      "tr",
      { class: entry.player === me ? "me" : "", dataset: { player: entry.player } },
      h("td", { class: "rank" }, entry.rank),
      h("td", {}, shownName(entry)),
      h("td", {}, entry.outcome === "finished" ? clockText(entry.time_ms) : outcomeText(entry.outcome)),
      h("td", { class: "num" }, entry.actions),
      h("td", { class: "num" }, entry.progress),
    ),
  );
}

/** A whole ranking table, with its head. */
export function rankingTable(ranking, me = null) {
  const head = ["#", "Racer", "Time", "Actions", "Cards"].map((text, i) =>
    h("th", { class: i > 2 ? "num" : null, scope: "col" }, text),
  );
  return h(
    "table",
    { class: "ranking" },
    h("thead", {}, h("tr", {}, head)),
    h("tbody", {}, rankingRows(ranking, me)),
  );
}

/** The address that opens the replay of race `race`. */
export function replayLink(race) {
  return `${location.origin}/#replay=${encodeURIComponent(race)}`;
}

/** Copy the text of `input` (select it when the clipboard refuses); `say` tells the player. */
export function copyInput(input, say) {
  const done = () => say("Link copied.");
  const fallback = () => input.select();
  if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, fallback);
  else fallback();
}

/** "Share this result": the replay link in a read-only box and a Copy button (and a link
 * to the replay, unless it is the page showing it). */
export function shareBox(race, say, { watch = true } = {}) {
  const input = h("input", { readonly: true, value: replayLink(race), "aria-label": "Replay link" });
  input.value = replayLink(race);
  return h(
    "p",
    { class: "share inline" },
    watch ? h("a", { class: "button", href: `#replay=${encodeURIComponent(race)}` }, "Watch the replay") : null,
    input,
    h("button", { type: "button", class: "small", onclick: () => copyInput(input, say) }, "Copy link"),
  );
}
