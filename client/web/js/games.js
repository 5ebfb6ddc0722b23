// The games as the client shows them: the list the server sends in its welcome (names,
// titles, decks, options), and how each game's table is laid out.

/** game -> { title, decks, cards, options, variantOf }, in the server's order. */
export const GAMES = {};

/** Learn the server's games from its welcome (`welcome.games`). */
export function learnGames(list) {
  for (const game of Object.keys(GAMES)) delete GAMES[game];
  for (const entry of list ?? []) {
    GAMES[entry.game] = {
      title: entry.title,
      decks: entry.decks,
      cards: 52 * entry.decks,
      options: entry.options,
      variantOf: entry.variant_of,
    };
  }
}

export function gameTitle(game) {
  return GAMES[game]?.title ?? game;
}

export function cardCount(game) {
  return GAMES[game]?.cards ?? 52;
}

/** Whether a game is dealt with two decks (the table and the replay's shapes follow). */
export function twoDecks(game) {
  return (GAMES[game]?.decks ?? 1) === 2;
}

/** "3 down / 7 up, undo off" — the options that differ from a plain game. */
export function optionsText(game, options = {}) {
  const words = [];
  if (game === "sanibel" && options.down !== undefined) {
    words.push(`${options.down} down / ${options.up} up`);
  }
  words.push(options.undo === false ? "no undo" : "undo on");
  return words.join(", ");
}

const range = (prefix, count) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/**
 * Where the piles sit on the table: `cols` columns; `top` rows of single-card piles
 * (null leaves a gap); `tableau` piles fanned downward, starting at column `tableauFrom`.
 */
export function layoutFor(game, view) {
  const tableau = range("t", view.tableau.length);
  const foundations = range("f", view.foundations.length);
  if (game === "shady_lanes") {
    const reserves = range("r", (view.reserves ?? []).length);
    return {
      cols: 8,
      top: [foundations, ["s", "w", null, null, ...reserves]],
      tableau,
      tableauFrom: 8 - tableau.length,
    };
  }
  if (game === "sanibel") {
    const cols = Math.max(tableau.length, foundations.length + 2);
    const gap = cols - foundations.length - 2;
    return {
      cols,
      top: [["s", "w", ...Array(gap).fill(null), ...foundations]],
      tableau,
      tableauFrom: 0,
    };
  }
  const cols = tableau.length;
  const gap = cols - foundations.length - 1;
  return { cols, top: [["s", ...Array(gap).fill(null), ...foundations]], tableau, tableauFrom: 0 };
}

/** A human name for a pile, for labels: "tableau pile 4", "foundation 2". */
export function pileName(pile) {
  const kind = pile[0];
  const number = Number(pile.slice(1)) + 1;
  if (kind === "t") return `tableau pile ${number}`;
  if (kind === "f") return `foundation ${number}`;
  if (kind === "r") return `reserve ${number}`;
  if (kind === "w") return "waste";
  return "stock";
}
