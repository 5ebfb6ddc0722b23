// How to play (#rules=GAME): each game's rules in a few lines (the catalog's `rules`, from
// the server's game registry), its layout options, and an animated example of its key move,
// played on a small board by the same drawing code as a race.

import { Board } from "./board.js";
import { fill, h } from "./dom.js";
import { GAMES, gameTitle } from "./games.js";

const COMMON = [
  "Foundations are built up in suit from Ace to King. Any Ace starts any empty foundation, and a card on a foundation never comes back.",
  "A face-down card turns face up by itself as soon as it is the top of its pile. Face-down cards never move.",
  "You win when every card is on the foundations. Auto sends every card that can go to a foundation; Finish appears when foundation moves alone win the game, or deals and foundation moves whatever order the last stock cards come in (nothing face down), and plays them in one go.",
  "Undo takes back your last action (an Auto counts as one) and counts as an action; a race may switch it off.",
];

const EMPTY = { tableau: [], face_down: [], foundations: [], reserves: [], waste: [], stock: 0 };

/** The key move's heading and animated figure, when the game's rules have an example. */
function keyMove(host, example) {
  if (!example) return [];
  return [h("h2", {}, "The key move"), h("figure", { class: "example" }, host, h("figcaption", {}, example.text))];
}

export class RulesScreen {
  constructor(app) {
    this.app = app;
    this.timer = null;
    this.board = null;
  }

  show(game) {
    const chosen = GAMES[game]?.rules ? game : Object.keys(GAMES)[0];
    const rules = GAMES[chosen]?.rules;
    fill(
      document.getElementById("rules-tabs"),
      Object.keys(GAMES)
        .filter((name) => GAMES[name].rules)
        .map((name) =>
        h(
          "a",
          { href: `#rules=${name}`, class: name === chosen ? "tab selected" : "tab", "aria-current": name === chosen ? "page" : null },
          gameTitle(name),
        ),
      ),
    );
    if (!rules) return; // the games are not known yet: drawn again once they are
    this.hide(); // the last game's example board
    const host = h("div", { class: "example-board" });
    const base = GAMES[chosen].variantOf;
    if (base) {
      fill(
        document.getElementById("rules-text"),
        h("h1", {}, `How to play ${gameTitle(chosen)}`),
        h("p", { class: "sub" }, rules.lead),
        h(
          "p",
          {},
          "Everything else is as in ",
          h("a", { href: `#rules=${base}` }, gameTitle(base)),
          ": the layout, the moves and the options.",
        ),
        ...keyMove(host, rules.example),
      );
      if (rules.example) this.animate(host, chosen, rules.example);
      return;
    }
    fill(
      document.getElementById("rules-text"),
      h("h1", {}, `How to play ${gameTitle(chosen)}`),
      h("p", { class: "sub" }, rules.lead),
      h("h2", {}, "The layout"),
      h("p", {}, rules.layout),
      h("h2", {}, "Moves"),
      h("ul", {}, rules.moves.map((text) => h("li", {}, text))),
      h("h2", {}, "In every game"),
      h("ul", {}, COMMON.map((text) => h("li", {}, text))),
      h("h2", {}, "Options"),
      h("p", {}, rules.options),
      ...keyMove(host, rules.example),
      h("h2", {}, "Playing from the keyboard"),
      h(
        "p",
        {},
        "Type a move in the notation (t3 2 t5 moves the top 2 cards of t3 onto t5; w 1 f sends the waste's card to a foundation; deal, auto, undo), or press pile keys on the table: a digit picks tableau pile t0–t9 (press it again to take one more card), w the waste, r then a digit a reserve, then the pile it goes to, or f for a foundation. d deals, a plays Auto, f finishes, u undoes, Esc drops the selection. Switch on Pile names to see t0, f0… on the table.",
      ),
    );
    if (rules.example) this.animate(host, chosen, rules.example);
  }

  animate(host, game, example) {
    this.hide();
    const full = (view) => ({ ...EMPTY, ...view, can_undo: false });
    this.board = new Board(host, { game, label: "example" });
    let after = false;
    const step = () => {
      this.board.render(full(after ? example.after : example.before));
      after = !after;
    };
    step();
    this.timer = setInterval(step, 1800);
  }

  hide() {
    clearInterval(this.timer);
    this.timer = null;
    this.board?.destroy();
    this.board = null;
  }
}
