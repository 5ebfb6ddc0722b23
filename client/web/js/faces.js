// How a card looks: a face (its corners, its middle, a number card's pips as printed) or
// a back, and a pile's name tag. Drawn as elements that CSS styles from their data; the
// board (board.js) lays them out.

import { cardLabel, FACE_DOWN_LABEL, isRed, parts, SUIT_SYMBOLS } from "./cards.js";
import { h } from "./dom.js";

// Where the suit symbols of a number card sit: [column (0 left, 1 middle, 2 right), row
// from 0 (top) to 1 (bottom)], as on printed cards.
const SIDES = [
  [0, 0],
  [2, 0],
  [0, 1],
  [2, 1],
];
const PIPS = {
  2: [
    [1, 0],
    [1, 1],
  ],
  3: [
    [1, 0],
    [1, 0.5],
    [1, 1],
  ],
  4: SIDES,
  5: [...SIDES, [1, 0.5]],
  6: [...SIDES, [0, 0.5], [2, 0.5]],
  7: [...SIDES, [0, 0.5], [2, 0.5], [1, 0.25]],
  8: [...SIDES, [0, 0.5], [2, 0.5], [1, 0.25], [1, 0.75]],
  9: [...SIDES, [0, 1 / 3], [2, 1 / 3], [0, 2 / 3], [2, 2 / 3], [1, 0.5]],
  10: [...SIDES, [0, 1 / 3], [2, 1 / 3], [0, 2 / 3], [2, 2 / 3], [1, 1 / 6], [1, 5 / 6]],
};

/**
 * A face-up card: a button when `playable` (focusable if `focusable`), an image otherwise.
 * One `covered` by another shows only its corner, so it has no pips.
 */
export function cardFace(card, { index, focusable, covered = false, style = {}, playable = false }) {
  const { rank, suit } = parts(card);
  const symbol = SUIT_SYMBOLS[suit];
  const court = rank === "J" || rank === "Q" || rank === "K";
  const element = h(
    "div",
    {
      class: `card face ${isRed(card) ? "red" : "black"}${court ? " court" : ""}${PIPS[rank] && !covered ? " pips-card" : ""}`,
      dataset: { card, index: String(index) },
      role: playable ? "button" : "img",
      "aria-label": cardLabel(card),
      tabindex: playable && focusable ? "0" : null,
      style,
    },
    corner("top", rank, symbol),
    // Drawn by CSS from data-glyph: a name that is only read once ("king of diamonds").
    h("span", { class: "middle", "aria-hidden": "true", dataset: { glyph: court ? rank : symbol } }),
    covered ? null : pips(rank, symbol),
    covered ? null : corner("bottom", rank, symbol),
  );
  if (court) element.querySelector(".middle").dataset.suit = symbol;
  return element;
}

function corner(where, rank, symbol) {
  // Drawn by CSS from its data: the card's name is its label alone ("king of diamonds").
  return h("span", { class: `corner ${where}`, "aria-hidden": "true", dataset: { rank, suit: symbol } });
}

/** The printed pattern of suit symbols of a number card (shown on larger cards only). */
function pips(rank, symbol) {
  const places = PIPS[rank];
  if (!places) return null;
  return h(
    "span",
    { class: "pips", "aria-hidden": "true" },
    places.map(([column, row]) =>
      h(
        "span",
        {
          class: row > 0.5 ? "pip flipped" : "pip",
          style: { "--x": String(column / 2), "--y": String(row) },
        },
        symbol,
      ),
    ),
  );
}

/** The pile's name in the notation (t0, f0, w, s, r0), shown when pile names are on. */
export function pileTag(pile) {
  return h("span", { class: "pile-name", "aria-hidden": "true" }, pile);
}

/** A face-down card. */
export function cardBack(style = {}) {
  return h("div", { class: "card back", role: "img", "aria-label": FACE_DOWN_LABEL, style });
}
