// Replays a finished race in the page: the deal from its number (PySolFC's shuffles, as
// protocol/deals.py, laid out as the catalog's `layout` of the game says) and the mechanics
// of the actions the server accepted (protocol/engine.py). Nothing is validated here: the server already did, and
// the log holds only accepted actions. The browser tests check every step against the
// Python engine.

import { GAMES } from "./games.js";

export const SUITS = "CSHD";
export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const FIRST_MT_DEAL = 32000n;

const rankOf = (card) => RANKS.indexOf(card.slice(0, -1)) + 1;
const suitOf = (card) => card.slice(-1);

/** The Microsoft-compatible generator (pysol_cards' LCRandom31) for deals below 32000. */
function lcRandom(seed) {
  let x = Number(seed);
  return (n) => {
    x = (x * 214013 + 2531011) % 2 ** 33;
    return Math.floor(x / 65536) % 32768 % (n + 1);
  };
}

/** Python's random.Random(seed) (MT19937, seeded by init_by_array) and its randint(0, n). */
function mtRandom(seed) {
  const mt = new Uint32Array(624);
  let index = 624;
  mt[0] = 19650218;
  for (let i = 1; i < 624; i += 1) {
    const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
    mt[i] = Math.imul(1812433253, prev) + i;
  }
  const key = [];
  for (let rest = seed; rest > 0n; rest >>= 32n) key.push(Number(rest & 0xffffffffn));
  if (key.length === 0) key.push(0);
  let i = 1;
  let j = 0;
  for (let k = Math.max(624, key.length); k > 0; k -= 1) {
    const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
    mt[i] = (mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j;
    i += 1;
    j += 1;
    if (i >= 624) {
      mt[0] = mt[623];
      i = 1;
    }
    if (j >= key.length) j = 0;
  }
  for (let k = 623; k > 0; k -= 1) {
    const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
    mt[i] = (mt[i] ^ Math.imul(prev, 1566083941)) - i;
    i += 1;
    if (i >= 624) {
      mt[0] = mt[623];
      i = 1;
    }
  }
  mt[0] = 0x80000000;
  const next = () => {
    if (index >= 624) {
      for (let k = 0; k < 624; k += 1) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      index = 0;
    }
    let y = mt[index];
    index += 1;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    return (y ^ (y >>> 18)) >>> 0;
  };
  return (n) => {
    const a = next() >>> 5;
    const b = next() >>> 6;
    return Math.floor(((a * 67108864 + b) / 9007199254740992) * (n + 1));
  };
}

/** The cards of `decks` decks shuffled for deal `number` (a decimal string); last dealt first. */
export function shuffled(number, decks) {
  const deal = BigInt(number);
  let cards = [];
  for (let d = 0; d < decks; d += 1) {
    for (const suit of SUITS) for (const rank of RANKS) cards.push(rank + suit);
  }
  let randint;
  if (deal < FIRST_MT_DEAL) {
    randint = lcRandom(deal);
    if (cards.length === 52) {
      const order = [];
      for (let i = 0; i < 13; i += 1) for (const j of [0, 39, 26, 13]) order.push(cards[i + j]);
      cards = order;
    }
  } else {
    randint = mtRandom(deal);
  }
  for (let n = cards.length - 1; n > 0; n -= 1) {
    const j = randint(n);
    [cards[n], cards[j]] = [cards[j], cards[n]];
  }
  return cards;
}

const empties = (count) => Array.from({ length: count }, () => []);

/**
 * The starting position of a deal, every card known: stock next card first. Laid out as
 * the catalog's `layout` says: a card on each reserve, `rounds` rounds on the tableau,
 * `to_waste` cards on the waste, the rest the stock; a count may name options to add up.
 */
export function startPosition(game, options, number) {
  const { decks, layout, options: defaults } = GAMES[game];
  const option = (name) => options?.[name] ?? defaults[name];
  const count = (value) => (Array.isArray(value) ? value.reduce((sum, name) => sum + option(name), 0) : value);
  const talon = shuffled(number, decks);
  const position = { tableau: empties(layout.tableau), foundations: empties(layout.foundations), waste: [] };
  position.reserves = Array.from({ length: layout.reserves }, () => [talon.pop()]);
  for (let r = 0; r < count(layout.rounds); r += 1) for (const pile of position.tableau) pile.push(talon.pop());
  position.face_down =
    typeof layout.face_down === "string" ? Array(layout.tableau).fill(option(layout.face_down)) : [...layout.face_down];
  for (let n = 0; n < layout.to_waste; n += 1) position.waste.push(talon.pop());
  position.stock = talon.reverse();
  return position;
}

export function clone(position) {
  return {
    tableau: position.tableau.map((pile) => [...pile]),
    face_down: [...position.face_down],
    foundations: position.foundations.map((pile) => [...pile]),
    reserves: position.reserves.map((pile) => [...pile]),
    waste: [...position.waste],
    stock: [...position.stock],
  };
}

function pileOf(position, pile) {
  const kind = pile[0];
  const index = Number(pile.slice(1));
  if (kind === "t") return position.tableau[index];
  if (kind === "r") return position.reserves[index];
  if (kind === "f") return position.foundations[index];
  return position.waste;
}

/** Whether a foundation whose cards are `pile` takes `card` next. */
export function takes(pile, card) {
  if (pile.length === 0) return rankOf(card) === 1;
  const top = pile[pile.length - 1];
  return suitOf(top) === suitOf(card) && rankOf(top) + 1 === rankOf(card);
}

function move(game, position, src, count, dst) {
  const from = pileOf(position, src);
  const group = from.splice(from.length - count, count);
  if (dst[0] === "f") {
    const index =
      dst.length > 1
        ? Number(dst.slice(1))
        : position.foundations.findIndex((pile) => takes(pile, group[0]));
    position.foundations[index].push(...group);
  } else {
    pileOf(position, dst).push(...group);
  }
  if (src[0] === "t") {
    const i = Number(src.slice(1));
    if (from.length > 0 && from.length === position.face_down[i]) position.face_down[i] -= 1;
  } else if (src[0] === "r" && from.length === 0 && GAMES[game].layout.reserves_refill) {
    // An emptied reserve takes the waste's top card, else the stock's next.
    if (position.waste.length) from.push(position.waste.pop());
    else if (position.stock.length) from.push(position.stock.shift());
  }
}

/**
 * An action as a person reads it, in `position` (before it): the card it moves, then where
 * from and to ("8♥ t0→t4", "Q♠ w→f", "8♥ t3→t5 (2 cards)"); `deal`, `auto` and `undo` as
 * they are.
 */
export function readable(position, action, symbols) {
  const [src, count, dst] = action.split(" ");
  if (dst === undefined) return action;
  const cards = pileOf(position, src);
  const card = cards[cards.length - Number(count)];
  if (card === undefined) return action;
  const name = `${card.slice(0, -1)}${symbols[card.slice(-1)]}`;
  const more = Number(count) > 1 ? ` (${count} cards)` : "";
  return `${name} ${src}→${dst}${more}`;
}

/** The top card of `pile` that may move (face up), or null. */
function topFaceUp(position, pile) {
  const cards = pileOf(position, pile);
  if (cards.length === 0) return null;
  if (pile[0] === "t" && cards.length <= position.face_down[Number(pile.slice(1))]) return null;
  return cards[cards.length - 1];
}

/** The piles `auto` tries, in the engine's order: waste, reserves, tableau. */
function autoSources(game, position) {
  const piles = GAMES[game].layout.waste ? ["w"] : [];
  position.reserves.forEach((_, i) => piles.push(`r${i}`));
  position.tableau.forEach((_, i) => piles.push(`t${i}`));
  return piles;
}

/** Foundation moves, one at a time, as `auto` plays them (or finishes a won-able game). */
export function autoMoves(game, position) {
  const moves = [];
  const sources = autoSources(game, position);
  for (;;) {
    const src = sources.find((pile) => {
      const card = topFaceUp(position, pile);
      return card !== null && position.foundations.some((f) => takes(f, card));
    });
    if (!src) return moves;
    move(game, position, src, 1, "f");
    moves.push(`${src} 1 f`);
  }
}

/** The position after the accepted action `text` (not `undo`: the caller keeps history). */
export function play(game, position, text) {
  const next = clone(position);
  const words = text.trim().split(/\s+/);
  if (words[0] === "deal") {
    if (GAMES[game].layout.deal === "tableau") {
      const dealt = next.stock.splice(0, Math.min(next.tableau.length, next.stock.length));
      dealt.forEach((card, i) => next.tableau[i].push(card));
    } else {
      next.waste.push(next.stock.shift());
    }
  } else if (words[0] === "auto") {
    autoMoves(game, next);
  } else {
    move(game, next, words[0], Number(words[1]), words[2]);
  }
  return next;
}

/** Every position of a log of actions: the start, then one after each (undo included). */
export function positionsOf(game, options, number, actions) {
  const positions = [startPosition(game, options, number)];
  const history = [];
  for (const action of actions) {
    const current = positions[positions.length - 1];
    if (action.trim() === "undo") {
      positions.push(history.pop() ?? current);
    } else {
      history.push(current);
      positions.push(play(game, current, action));
    }
  }
  return positions;
}

/** What a player saw of `position`: the view of docs/protocol.md (face-up cards only). */
export function viewOf(position) {
  return {
    tableau: position.tableau.map((pile, i) => pile.slice(position.face_down[i])),
    face_down: [...position.face_down],
    foundations: position.foundations.map((pile) => [...pile]),
    reserves: position.reserves.map((pile) => [...pile]),
    waste: [...position.waste],
    stock: position.stock.length,
    can_undo: false,
  };
}

/**
 * Whether the game in `view` is won by foundation moves alone: nothing face down, nothing
 * left in the stock, and playing every card that can go home brings them all home.
 */
export function finishable(game, view) {
  if (!view || view.stock > 0 || view.face_down.some((n) => n > 0)) return false;
  const position = clone({ ...view, reserves: view.reserves ?? [], stock: [] });
  autoMoves(game, position);
  const left = [...position.tableau, ...position.reserves, position.waste];
  return left.every((pile) => pile.length === 0);
}

