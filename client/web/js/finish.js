// Finish (js/controls.js): whether deals and foundation moves alone win the game on the table,
// worked out from the player's view. Loaded once a race is played, not with the page.

import { GAMES } from "./games.js";
import { autoMoves, clone, finishable, play, RANKS, SUITS } from "./replayer.js";

const MAX_ORDERS = 720; // the stock's orders tried: every order of up to 6 unseen cards
const lastPlan = { key: null, plan: null }; // finishPlan's last question and answer

/** The cards not in sight (with nothing face down: the stock's), in no particular order. */
function unseenCards(game, view) {
  const counts = new Map();
  const decks = GAMES[game]?.decks ?? 1;
  for (const suit of SUITS) for (const rank of RANKS) counts.set(rank + suit, decks);
  const seen = [view.tableau, view.foundations, view.reserves ?? [], [view.waste ?? []]].flat(2);
  for (const card of seen) counts.set(card, (counts.get(card) ?? 0) - 1);
  return [...counts].flatMap(([card, n]) => Array(Math.max(n, 0)).fill(card));
}

/** How many different orders `cards` have (a two-deck game's twins are alike). */
function orderCount(cards) {
  const twins = new Map();
  let count = 1;
  cards.forEach((card, i) => {
    twins.set(card, (twins.get(card) ?? 0) + 1);
    count = (count * (i + 1)) / twins.get(card);
  });
  return count;
}

/** Every different order of `cards`. */
function* orders(cards) {
  if (cards.length <= 1) {
    yield [...cards];
    return;
  }
  for (const card of new Set(cards)) {
    const rest = [...cards];
    rest.splice(rest.indexOf(card), 1);
    for (const order of orders(rest)) yield [card, ...order];
  }
}

function mayDeal(game, position) {
  if (position.stock.length === 0) return false;
  // Some games deal only while no tableau pile is empty (the catalog says which).
  return !GAMES[game]?.layout.deal_needs_full_tableau || position.tableau.every((pile) => pile.length > 0);
}

/**
 * Whether `position` (every card known) is won by deals and foundation moves alone:
 * "auto-first" sends every card home, then deals one, and so on; "deal-first" deals the
 * whole stock, then sends every card home.
 */
function wonByDealing(game, start, strategy) {
  let position = clone(start);
  while (position.stock.length > 0) {
    if (strategy === "auto-first") autoMoves(game, position);
    if (!mayDeal(game, position)) return false;
    position = play(game, position, "deal");
  }
  autoMoves(game, position);
  return [...position.tableau, ...position.reserves, position.waste].every((pile) => pile.length === 0);
}

/**
 * How Finish wins the game in `view`, or null when it cannot promise to: "auto" when
 * foundation moves alone win (`finishable`); with cards left in the stock and nothing face
 * down, the page knows which cards the stock holds but not their order, so it tries every
 * order (up to MAX_ORDERS) and offers "auto-first" or "deal-first" only if the deals and the
 * foundation moves win whatever the order is.
 */
export function finishPlan(game, view) {
  if (!view || view.face_down.some((n) => n > 0)) return null;
  // The race screen asks again on every redraw (standings too): the last answer is kept.
  const key = JSON.stringify([game, view.tableau, view.foundations, view.reserves, view.waste, view.stock]);
  if (lastPlan.key !== key) Object.assign(lastPlan, { key, plan: planFor(game, view) });
  return lastPlan.plan;
}

function planFor(game, view) {
  if (view.stock === 0) return finishable(game, view) ? "auto" : null;
  const unseen = unseenCards(game, view);
  if (unseen.length !== view.stock || orderCount(unseen) > MAX_ORDERS) return null;
  const base = { ...view, reserves: view.reserves ?? [], waste: view.waste ?? [], stock: [] };
  for (const strategy of ["auto-first", "deal-first"]) {
    let always = true;
    for (const order of orders(unseen)) {
      if (!wonByDealing(game, clone({ ...base, stock: order }), strategy)) {
        always = false;
        break;
      }
    }
    if (always) return strategy;
  }
  return null;
}

/** Whether `auto` would move a card in `view` (the server refuses an `auto` that does not). */
export function canAuto(game, view) {
  const position = clone({ ...view, reserves: view.reserves ?? [], waste: view.waste ?? [], stock: [] });
  return autoMoves(game, position).length > 0;
}
