// How to play (#rules=GAME): each game's rules in a few lines (from the project's settled
// rules), its layout options, and an animated example of its key move, played on a small
// board by the same drawing code as a race.

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

const RULES = {
  sanibel: {
    lead: "Two decks. Yukon-style: any face-up card moves, with everything on top of it.",
    layout:
      "Ten tableau piles t0–t9, eight foundations f0–f7, a waste w and a stock s. Each pile gets 3 cards face down and 7 face up; one card goes face up to the waste and the last 3 are the stock.",
    moves: [
      "Any face-up card moves together with every card on top of it, in sequence or not. The group lands on a card one rank higher of the other colour (a black 9 on a red 10).",
      "An empty pile takes any card or group, from anywhere.",
      "The waste's top card may go onto a tableau pile (by the same rule) or a foundation.",
      "Deal turns the next stock card face up onto the waste. One pass, no redeal.",
    ],
    options:
      "Layout option: face-down rounds and face-up rounds (3 down / 7 up is the standard game; up to 10 rounds in all, the rest goes to the stock). 0 down / 10 up deals every card face up but the last four.",
    example: {
      text: "t0 3 t1: the 9♠ takes the 3♥ and the K♦ with it onto the 10♥, and the card under it turns face up.",
      before: { tableau: [["9S", "3H", "KD"], ["10H"], []], face_down: [1, 0, 0], foundations: [[], []], waste: ["4C"], stock: 3 },
      after: { tableau: [["QC"], ["10H", "9S", "3H", "KD"], []], face_down: [0, 0, 0], foundations: [[], []], waste: ["4C"], stock: 3 },
    },
  },
  shady_lanes: {
    lead: "Two decks. Build down in alternate colours one card at a time, fed by four reserves.",
    layout:
      "Four reserves r0–r3, four tableau piles t0–t3, eight foundations f0–f7, a waste w and a stock s. One card face up on each reserve and each tableau pile, one on the waste; the other 95 are the stock.",
    moves: [
      "The tableau builds down by alternate colour, one card at a time, never in sequences. A tableau top card may go onto another non-empty pile or to a foundation.",
      "A reserve's card may go onto any tableau pile (empty or not) or to a foundation. No card is ever put into a reserve.",
      "An empty reserve at once takes the waste's top card (else the stock's next card). An empty tableau pile can be filled only from a reserve.",
      "The waste's top card may go onto a non-empty tableau pile or to a foundation. Deal turns one stock card onto the waste; one pass.",
    ],
    options: "No layout option: only undo can be switched off.",
    example: {
      text: "r0 1 t1: the reserve's 8♦ fills the empty pile, and the reserve takes the waste's 5♣ at once.",
      before: { tableau: [["9C"], []], face_down: [0, 0], foundations: [[], []], reserves: [["8D"], ["JS"]], waste: ["2H", "5C"], stock: 90 },
      after: { tableau: [["9C"], ["8D"]], face_down: [0, 0], foundations: [[], []], reserves: [["5C"], ["JS"]], waste: ["2H"], stock: 90 },
    },
  },
  mount_sunflower: {
    lead: "One deck. Build on any suit, but only runs in one suit move together.",
    layout:
      "Seven tableau piles t0–t6 of four cards, face down at the bottom as a low pyramid (3, 2, 1, 0, 1, 2, 3 face-down cards), four foundations f0–f3 and a stock s of 24 cards. No waste.",
    moves: [
      "A card goes on a card one rank higher, whatever the suit.",
      "What moves: the top card, or a run at the top of a pile in descending sequence in one suit (the whole run or its upper part). A build in mixed suits never moves as a unit.",
      "An empty pile takes any card or run that may move.",
      "Deal puts one card face up on each of t0–t6 (the last deal only on t0–t2). In Mount Sunflower you may deal only while no pile is empty; in Mount Sunflower Easy at any time.",
    ],
    options:
      "Mount Sunflower Easy is the same game where Deal is allowed at any time. The standard game can lock itself: with fewer than 7 cards in the tableau and cards in the stock, no deal is possible again.",
    example: {
      text: "t0 2 t1: the 7♥ and 6♥, a run in one suit, go onto the 8♣ together.",
      before: { tableau: [["KS", "7H", "6H"], ["8C"], ["2D"]], face_down: [1, 0, 0], foundations: [["AD"], []], stock: 24 },
      after: { tableau: [["KS"], ["8C", "7H", "6H"], ["2D"]], face_down: [1, 0, 0], foundations: [["AD"], []], stock: 24 },
    },
  },
};
// A variant says what differs from its game, and points there for the rest.
RULES.mount_sunflower_easy = {
  ...RULES.mount_sunflower,
  variantOf: "mount_sunflower",
  lead:
    "Mount Sunflower with one change: Deal is allowed at any time while the stock has cards (in Mount Sunflower only while no pile is empty), so the game never locks itself.",
};

export class RulesScreen {
  constructor(app) {
    this.app = app;
    this.timer = null;
    this.board = null;
  }

  show(game) {
    const chosen = RULES[game] ? game : (Object.keys(GAMES)[0] ?? Object.keys(RULES)[0]);
    fill(
      document.getElementById("rules-tabs"),
      Object.keys(GAMES)
        .filter((name) => RULES[name])
        .map((name) =>
        h(
          "a",
          { href: `#rules=${name}`, class: name === chosen ? "tab selected" : "tab", "aria-current": name === chosen ? "page" : null },
          gameTitle(name),
        ),
      ),
    );
    const rules = RULES[chosen];
    const host = h("div", { class: "example-board" });
    const base = rules.variantOf;
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
        h("h2", {}, "The key move"),
        h("figure", { class: "example" }, host, h("figcaption", {}, rules.example.text)),
      );
      this.animate(host, chosen, rules.example);
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
      h("h2", {}, "The key move"),
      h("figure", { class: "example" }, host, h("figcaption", {}, rules.example.text)),
      h("h2", {}, "Playing from the keyboard"),
      h(
        "p",
        {},
        "Type a move in the notation (t3 2 t5 moves the top 2 cards of t3 onto t5; w 1 f sends the waste's card to a foundation; deal, auto, undo), or press pile keys on the table: a digit picks tableau pile t0–t9 (press it again to take one more card), w the waste, r then a digit a reserve, then the pile it goes to, or f for a foundation. d deals, a plays Auto, f finishes, u undoes, Esc drops the selection. Switch on Pile names to see t0, f0… on the table.",
      ),
    );
    this.animate(host, chosen, rules.example);
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
