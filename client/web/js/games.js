// The games as the client shows them: the server's catalog (GET /games, also in its
// welcome; docs/games.md), and how each game's table is laid out. Nothing here is per game.

/** game -> { title, decks, cards, options, variantOf, layout, exampleMove, rules }, in the server's order. */
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
      layout: entry.layout,
      exampleMove: entry.example_move,
      rules: entry.rules,
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

/** "3 down / 7 up, undo off" — the options that differ from a plain game (the catalog's
 * `options_text` with the race's options put in, when the race names them all). */
export function optionsText(game, options = {}) {
  const words = [];
  const template = GAMES[game]?.layout?.options_text ?? "";
  const named = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  if (named.length && named.every((name) => options[name] !== undefined)) {
    words.push(template.replace(/\{(\w+)\}/g, (_, name) => options[name]));
  }
  words.push(options.undo === false ? "no undo" : "undo on");
  return words.join(", ");
}

const range = (prefix, count) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/**
 * Where the piles sit on the table: `cols` columns; `top` rows of single-card piles
 * (null leaves a gap); `tableau` piles fanned downward, starting at column `tableauFrom`.
 * The catalog's `table` says which: stock, waste and foundations in one `row`, or
 * `two_rows` (the foundations, then stock, waste and reserves; the tableau to the right).
 */
export function layoutFor(game, view) {
  const shape = GAMES[game]?.layout ?? { table: "row", waste: false, foundations: 0 };
  const tableau = range("t", view.tableau.length);
  const foundations = range("f", view.foundations.length);
  const stockAndWaste = shape.waste ? ["s", "w"] : ["s"];
  if (shape.table === "two_rows") {
    const reserves = range("r", (view.reserves ?? []).length);
    const cols = Math.max(shape.foundations, foundations.length, 4 + reserves.length, tableau.length);
    const gap = Math.max(cols - shape.reserves - stockAndWaste.length, 0); // reserves under the last foundations
    return {
      cols,
      top: [foundations, [...stockAndWaste, ...Array(gap).fill(null), ...reserves]],
      tableau,
      tableauFrom: cols - tableau.length,
    };
  }
  const cols = Math.max(tableau.length, foundations.length + stockAndWaste.length);
  const gap = cols - foundations.length - stockAndWaste.length;
  return { cols, top: [[...stockAndWaste, ...Array(gap).fill(null), ...foundations]], tableau, tableauFrom: 0 };
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
