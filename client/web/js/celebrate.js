// A small celebration when a player clears the table, and optional sounds (off unless the
// player switches them on). The words ("Cleared!") are the page's own, in the note or the
// result, so nothing is drawn over them; with prefers-reduced-motion no suit flies.

import { h } from "./dom.js";

const SUITS = ["♠", "♥", "♦", "♣"];

/** Suits fly up over `root` for two seconds (they catch no click and hide nothing for
 * long). */
export function celebrate(root) {
  const burst = h(
    "div",
    { class: "celebration", "aria-hidden": "true" },
    Array.from({ length: 24 }, (_, i) =>
      h(
        "span",
        {
          class: `flying ${i % 4 === 1 || i % 4 === 2 ? "red" : ""}`,
          style: { "--x": `${(i * 37) % 100}%`, "--delay": `${(i % 6) * 90}ms`, "--turn": `${(i * 53) % 360}deg` },
        },
        SUITS[i % 4],
      ),
    ),
  );
  root.append(burst);
  setTimeout(() => burst.remove(), 2400);
}

let audio = null;

/** A short tone for a move, a rising chord for a win (Web Audio; no files to load). */
export function chime(kind) {
  audio ??= new AudioContext();
  const notes = kind === "win" ? [523, 659, 784, 1047] : [660];
  notes.forEach((frequency, i) => {
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    const start = audio.currentTime + i * 0.09;
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.06, start);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.16);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(start);
    oscillator.stop(start + 0.17);
  });
}
