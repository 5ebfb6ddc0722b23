// One pile's element, drawn from a player's view in its column of the table: the stock,
// the waste, a foundation or a reserve (one card shown), or a tableau pile fanned downward.
// `playable` makes the cards that may move focusable buttons. Drawing only: js/board.js
// lays the piles out and handles the player's hands on them.

import { h } from "./dom.js";
import { cardBack, cardFace, pileTag } from "./faces.js";
import { pileName } from "./games.js";

const DOWN_STEP = 0.12; // a face-down card shows this much of the card height
const UP_STEP = 0.27; // a face-up card shows its corner
const MAX_FAN = 4.6; // a fanned pile is at most this many card heights tall, ...
const MIN_FAN = 0.22; // ... unless that would hide the corner index of a card under another

/** A pile of single cards in the top rows (stock, waste, foundation, reserve): its top card. */
export function slotPile(pile, view, column, playable) {
  const element = h(
    "div",
    {
      class: `pile slot pile-${pile[0]}`,
      dataset: { pile },
      role: "group",
      style: { "grid-column": String(column + 1) },
    },
    pileTag(pile),
  );
  if (pile === "s") {
    const count = view.stock;
    element.setAttribute("aria-label", `stock, ${count} ${count === 1 ? "card" : "cards"}`);
    if (count > 0) {
      const back = cardBack();
      if (playable) {
        back.setAttribute("role", "button");
        back.setAttribute("tabindex", "0");
        back.setAttribute("aria-label", `stock: deal (${count} left)`);
      }
      element.append(back, h("span", { class: "count", "aria-hidden": "true" }, count));
    } else {
      element.classList.add("empty");
      element.append(h("span", { class: "slot-mark", "aria-hidden": "true" }, "∅"));
    }
    return element;
  }
  const cards = pile === "w" ? view.waste : pileFor(view, pile);
  element.setAttribute("aria-label", `${pileName(pile)}, ${cards.length} cards`);
  if (pile[0] === "r") {
    element.append(h("span", { class: "pile-caption", "aria-hidden": "true" }, "reserve"));
  }
  if (cards.length === 0) {
    element.classList.add("empty");
    const mark = pile[0] === "f" ? "A" : "";
    element.append(h("span", { class: "slot-mark", "aria-hidden": "true" }, mark));
    if (playable) element.setAttribute("tabindex", "0");
    return element;
  }
  if (cards.length > 1) element.classList.add("stacked");
  const top = cards[cards.length - 1];
  const card = cardFace(top, { index: cards.length - 1, focusable: true, playable: playable });
  element.append(card);
  if (pile === "w" && cards.length > 1) {
    element.append(h("span", { class: "count", "aria-hidden": "true" }, cards.length));
  }
  return element;
}

/** A tableau pile, fanned downward: its face-down cards, then its face-up ones. */
export function tableauPile(pile, view, column, playable) {
  const index = Number(pile.slice(1));
  // Once the deal is shown (a finished race's spectators), the face-down cards are dealt
  // face up too, dimmed, fanned with the others so each can be read.
  const revealed = view.face_down_cards?.[index] ?? [];
  const down = view.face_down[index] - revealed.length;
  const up = [...revealed, ...view.tableau[index]];
  const fan =
    up.length > 1
      ? Math.max(MIN_FAN, Math.min(UP_STEP, (MAX_FAN - 1 - down * DOWN_STEP) / (up.length - 1)))
      : UP_STEP;
  const element = h("div", {
    class: "pile fan pile-t",
    dataset: { pile },
    role: "group",
    "aria-label": `${pileName(pile)}: ${view.face_down[index]} face-down, ${view.tableau[index].length} face-up`,
    style: {
      "grid-column": String(column + 1),
      "--down": String(down),
      "--up": String(Math.max(up.length - 1, 0)),
      "--fan": fan.toFixed(4),
    },
  });
  element.append(pileTag(pile));
  for (let i = 0; i < down; i += 1) {
    element.append(cardBack({ "--d": String(i), "--u": "0" }));
  }
  up.forEach((card, i) => {
    const face = cardFace(card, {
      playable: playable,
      index: i - revealed.length,
      focusable: i >= revealed.length,
      covered: i < up.length - 1,
      style: { "--d": String(down), "--u": String(i) },
    });
    if (i < revealed.length) face.classList.add("revealed");
    element.append(face);
  });
  if (down === 0 && up.length === 0) {
    element.classList.add("empty");
    if (playable) element.setAttribute("tabindex", "0");
  }
  return element;
}

/** What is drawn of `pile` in `view`, as a string: equal strings draw the same pile. */
export function pileKey(view, pile) {
  if (pile === "s") return String(view.stock);
  if (pile === "w") return view.waste.join();
  if (pile[0] !== "t") return pileFor(view, pile).join();
  const index = Number(pile.slice(1));
  const revealed = view.face_down_cards?.[index] ?? [];
  return `${view.face_down[index]}|${revealed.join()}|${view.tableau[index].join()}`;
}

function pileFor(view, pile) {
  const index = Number(pile.slice(1));
  if (pile[0] === "f") return view.foundations[index];
  return (view.reserves ?? [])[index];
}
