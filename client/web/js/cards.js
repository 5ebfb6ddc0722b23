// Cards in the notation of the rules ("AS", "10H", "QD"): their parts, colours and the
// words a screen reader says for them.

export const SUIT_SYMBOLS = { C: "♣", S: "♠", H: "♥", D: "♦" };
const SUIT_WORDS = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
const RANK_WORDS = { A: "ace", J: "jack", Q: "queen", K: "king" };
const RANK_VALUES = { A: 1, J: 11, Q: 12, K: 13 };

/** The rank text ("A", "10", "Q") and suit letter ("H") of a card name. */
export function parts(card) {
  return { rank: card.slice(0, -1), suit: card.slice(-1) };
}

/** The rank as a number, ace 1 to king 13. */
export function rankValue(card) {
  const { rank } = parts(card);
  return RANK_VALUES[rank] ?? Number(rank);
}

export function isRed(card) {
  const { suit } = parts(card);
  return suit === "H" || suit === "D";
}

/** What a screen reader says: "queen of hearts", "10 of clubs". */
export function cardLabel(card) {
  const { rank, suit } = parts(card);
  return `${RANK_WORDS[rank] ?? rank} of ${SUIT_WORDS[suit]}`;
}

export const FACE_DOWN_LABEL = "face-down card";

/** The card as printed in its corner: "8♥", "Q♠". */
export function cardText(card) {
  const { rank, suit } = parts(card);
  return `${rank}${SUIT_SYMBOLS[suit]}`;
}
