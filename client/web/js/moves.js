// Which legal action a tap on a card plays, and which one a hint shows. Both are chosen from
// the server's list of the player's legal actions (worked out from what the player sees),
// never from rules of the page's own.

/** "t3 2 t5" -> {src: "t3", count: 2, dst: "t5", action}; null for deal, auto, undo. */
function parseMove(action) {
  const [src, count, dst] = action.split(" ");
  return dst ? { src, count: Number(count), dst, action } : null;
}

function emptyPile(view, pile) {
  const index = Number(pile.slice(1));
  return pile[0] === "t" && view.tableau[index].length === 0 && view.face_down[index] === 0;
}

/** A move of a tableau pile's every card to an empty pile changes nothing that matters. */
function pointless(view, move) {
  if (move.src[0] !== "t" || !emptyPile(view, move.dst)) return false;
  const index = Number(move.src.slice(1));
  return view.face_down[index] === 0 && view.tableau[index].length === move.count;
}

/** The bottom card of the `count` taken from `pile` ("4C"). */
function movedCard(view, pile, count) {
  if (pile === "w") return view.waste.at(-1);
  const index = Number(pile.slice(1));
  return pile[0] === "r" ? view.reserves[index].at(-1) : view.tableau[index].at(-count);
}

/** Whether `move` builds a run in one suit. */
function ontoItsSuit(view, move) {
  const onto = move.dst[0] === "t" ? view.tableau[Number(move.dst.slice(1))].at(-1) : null;
  return Boolean(onto) && onto.at(-1) === movedCard(view, move.src, move.count)?.at(-1);
}

/** Home, onto a card of its suit, onto any card, a reserve, an empty pile; leftmost first. */
function placeOrder(view, move) {
  if (move.dst === "f") return 0;
  if (emptyPile(view, move.dst)) return 4;
  if (move.dst[0] !== "t") return 3;
  return ontoItsSuit(view, move) ? 1 : 2;
}

function movesIn(legal, view) {
  return (legal ?? [])
    .map(parseMove)
    .filter((move) => move && !pointless(view, move));
}

/**
 * The action a tap on the cards `grab` ({pile, count}) plays: their best legal place, or
 * null when they have none (the tap then picks them up, to be put down by a second tap).
 */
export function bestPlace(legal, view, grab) {
  const moves = movesIn(legal, view).filter((m) => m.src === grab.pile && m.count === grab.count);
  moves.sort((a, b) => placeOrder(view, a) - placeOrder(view, b));
  return moves[0]?.action ?? null;
}

/** Whether `move` leaves a face-down card on top of its pile, to be turned. */
function turnsACard(view, move) {
  if (move.src[0] !== "t") return false;
  const index = Number(move.src.slice(1));
  return view.face_down[index] > 0 && view.tableau[index].length === move.count;
}

/**
 * A legal action worth trying (practice only): a card home, else a move that turns a card,
 * else a card from the waste or a reserve onto the table, else a move onto a card, else a
 * deal, else any move. Null when nothing but `undo` is left.
 */
export function hint(legal, view) {
  const moves = movesIn(legal, view);
  const first = (test) => moves.find(test)?.action;
  return (
    first((m) => m.dst === "f") ??
    first((m) => turnsACard(view, m)) ??
    first((m) => m.src[0] !== "t" && !emptyPile(view, m.dst)) ??
    first((m) => !emptyPile(view, m.dst)) ??
    (legal ?? []).find((action) => action === "deal") ??
    moves[0]?.action ??
    null
  );
}

export const NO_MOVES = "No moves left: undo a move, or resign.";

/** Whether no action but `undo` is left (with undo off the server ends the race: stuck). */
export function noMovesLeft(legal) {
  return Array.isArray(legal) && legal.every((action) => action === "undo");
}
