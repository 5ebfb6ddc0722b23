// Replays a finished race in the page: the deal from its number (PySolFC's shuffles, as
// protocol/deals.py and the games' layouts) and the mechanics of the actions the server
// accepted (protocol/engine.py). Nothing is validated here: the server already did, and
// the log holds only accepted actions. The browser tests check every step against the
// Python engine.

const SUITS = "CSHD";
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const FIRST_MT_DEAL = 32000n;
const SUNFLOWER_DOWN = [3, 2, 1, 0, 1, 2, 3];

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

/** The starting position of a deal, every card known: stock next card first. */
export function startPosition(game, options, number) {
  const twoDecks = game === "sanibel" || game === "shady_lanes";
  const talon = shuffled(number, twoDecks ? 2 : 1);
  const position = { tableau: [], face_down: [], foundations: [], reserves: [], waste: [] };
  if (game === "shady_lanes") {
    position.reserves = Array.from({ length: 4 }, () => [talon.pop()]);
    position.tableau = Array.from({ length: 4 }, () => [talon.pop()]);
    position.face_down = [0, 0, 0, 0];
    position.waste = [talon.pop()];
    position.foundations = empties(8);
  } else {
    const sanibel = game === "sanibel";
    const piles = sanibel ? 10 : 7;
    const rounds = sanibel ? (options?.down ?? 3) + (options?.up ?? 7) : 4;
    position.tableau = empties(piles);
    for (let r = 0; r < rounds; r += 1) for (const pile of position.tableau) pile.push(talon.pop());
    position.face_down = sanibel ? Array(piles).fill(options?.down ?? 3) : [...SUNFLOWER_DOWN];
    if (sanibel) position.waste = [talon.pop()];
    position.foundations = empties(sanibel ? 8 : 4);
  }
  position.stock = talon.reverse();
  return position;
}

function clone(position) {
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

function move(position, src, count, dst) {
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
  } else if (src[0] === "r" && from.length === 0) {
    // Shady Lanes: an emptied reserve takes the waste's top card, else the stock's next.
    if (position.waste.length) from.push(position.waste.pop());
    else if (position.stock.length) from.push(position.stock.shift());
  }
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
  const piles = game === "sanibel" || game === "shady_lanes" ? ["w"] : [];
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
    move(position, src, 1, "f");
    moves.push(`${src} 1 f`);
  }
}

/** The position after the accepted action `text` (not `undo`: the caller keeps history). */
export function play(game, position, text) {
  const next = clone(position);
  const words = text.trim().split(/\s+/);
  if (words[0] === "deal") {
    if (game === "mount_sunflower" || game === "mount_sunflower_easy") {
      const dealt = next.stock.splice(0, Math.min(next.tableau.length, next.stock.length));
      dealt.forEach((card, i) => next.tableau[i].push(card));
    } else {
      next.waste.push(next.stock.shift());
    }
  } else if (words[0] === "auto") {
    autoMoves(game, next);
  } else {
    move(next, words[0], Number(words[1]), words[2]);
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

// ---------------------------------------------------------------- Finish with a stock left

const MAX_ORDERS = 720; // the stock's orders tried: every order of up to 6 unseen cards
const lastPlan = { key: null, plan: null }; // finishPlan's last question and answer

/** The cards not in sight (with nothing face down: the stock's), in no particular order. */
function unseenCards(game, view) {
  const counts = new Map();
  const decks = game === "sanibel" || game === "shady_lanes" ? 2 : 1;
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
  // Mount Sunflower (not Easy) deals only while no tableau pile is empty.
  return game !== "mount_sunflower" || position.tableau.every((pile) => pile.length > 0);
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
