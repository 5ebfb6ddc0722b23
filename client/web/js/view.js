// A player's view (docs/protocol.md, "View") and the event items that change it. The
// client changes its view only by applying what the server reported; `movedView` only draws
// a legal move ahead of the server's answer, which then replaces it.

import { parts, rankValue } from "./cards.js";

/** A deep copy, so a view held elsewhere is never changed behind its owner's back. */
export function copyView(view) {
  return structuredClone(view);
}

/** The face-up cards of the pile named `pile` ("t3", "f0", "r1", "w"), bottom first. */
export function pileCards(view, pile) {
  const kind = pile[0];
  const index = Number(pile.slice(1));
  if (kind === "t") return view.tableau[index];
  if (kind === "f") return view.foundations[index];
  if (kind === "r") return (view.reserves ?? [])[index];
  if (kind === "w") return view.waste;
  throw new Error(`no pile ${pile} holds face-up cards`);
}

/**
 * What a legal move ("t3 2 t5", "w 1 f") shows before the server answers: its cards on
 * their new pile (home: the first foundation whose top is the same suit one lower, or the
 * first empty one for an ace). A card it turns or a reserve it refills shows with the
 * answer. Null for anything else (a deal, auto, undo).
 */
export function movedView(view, action) {
  const [src, count, dst] = action.split(" ");
  if (!dst) return null;
  const next = copyView(view);
  const source = pileCards(next, src);
  const cards = source.splice(source.length - Number(count));
  const home = dst === "f" ? next.foundations.findIndex((pile) => takes(pile, cards[0])) : 0;
  if (home < 0) return null;
  pileCards(next, dst === "f" ? `f${home}` : dst).push(...cards);
  return next;
}

function takes(foundation, card) {
  const top = foundation.at(-1);
  if (!top) return rankValue(card) === 1;
  return parts(top).suit === parts(card).suit && rankValue(top) === rankValue(card) - 1;
}

/**
 * The view after `events` (the items of an `act` result or a `watch` act item). `undone`
 * needs the view the server sent with it (`replacement`); without one the view is kept.
 */
export function applyEvents(view, events, replacement = null) {
  let next = copyView(view);
  for (const event of events) {
    if (event.type === "moved") {
      const source = pileCards(next, event.src);
      source.splice(source.length - event.cards.length, event.cards.length);
      pileCards(next, event.dst).push(...event.cards);
    } else if (event.type === "revealed") {
      const index = Number(event.pile.slice(1));
      next.face_down[index] -= 1;
      next.tableau[index].push(event.card);
    } else if (event.type === "dealt") {
      event.piles.forEach((pile, i) => pileCards(next, pile).push(event.cards[i]));
      next.stock -= event.cards.length;
    } else if (event.type === "refilled") {
      if (event.src === "w") next.waste.pop();
      else next.stock -= 1;
      pileCards(next, event.reserve).push(event.card);
    } else if (event.type === "undone" && replacement) {
      next = copyView(replacement);
    }
  }
  if (replacement) next = copyView(replacement);
  return next;
}

/** Cards on the foundations. */
export function progressOf(view) {
  return view.foundations.reduce((sum, pile) => sum + pile.length, 0);
}
