// The race screen before the start: the waiting room and the countdown.

import { h, fill } from "./dom.js";
import { shownName } from "./format.js";

export function drawWaiting(el, info, me) {
  const waiting = info.phase === "open";
  el.waiting.hidden = !waiting;
  if (!waiting) return;
  const link = `${location.origin}/#race=${info.race}`;
  el["share-link"].value = link;
  fill(
    el["waiting-players"],
    info.players.map((p) =>
      h(
        "li",
        {},
        shownName(p),
        p.player === info.host ? " (host)" : "",
        p.player === me ? " — you" : "",
      ),
    ),
  );
  fill(el["waiting-count"], `${info.players.length} of ${info.max_players} players`);
  el["start-button"].hidden = info.host !== me;
}

/** The countdown, from the server's start time (so a reconnect keeps it). */
export function drawCountdown(countdown, info, now) {
  if (info.phase === "countdown" && info.start_at_ms) {
    const left = info.start_at_ms - now;
    countdown.hidden = false;
    const text = left > 0 ? String(Math.ceil(left / 1000)) : "Go!";
    if (countdown.textContent !== text) countdown.textContent = text;
  } else {
    countdown.hidden = true;
  }
}
