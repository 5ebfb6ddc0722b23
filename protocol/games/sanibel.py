"""Sanibel (PySolFC game 201): two decks, Yukon-style group moves, one pass of the stock.

Options: ``down`` and ``up``, the face-down and face-up rounds dealt to the ten tableau
piles (standard 3 and 7); after them one card goes face up to the waste and the rest
form the stock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from protocol.cards import Card
from protocol.engine import Rules
from protocol.errors import BadGame, IllegalAction
from protocol.games.entry import Example, Layout, OptionField, RulesText
from protocol.notation import (
    ANY_FOUNDATION,
    DEAL,
    TABLEAU,
    TABLEAU_PILES,
    WASTE_PILE,
    Action,
    Move,
    Pile,
)
from protocol.position import Position

ROUNDS = 10


class Sanibel(Rules):
    name = "sanibel"
    title = "Sanibel"
    decks = 2
    tableau_piles = 10
    option_defaults: ClassVar[dict[str, Any]] = {"undo": True, "down": 3, "up": 7}

    def _check_options(self, options: dict[str, Any]) -> None:
        down, up = options["down"], options["up"]
        if down < 0 or up < 1 or down + up > ROUNDS:
            raise BadGame(
                f"Sanibel deals at most {ROUNDS} rounds: 'down' from 0 and 'up' from 1, "
                f"together at most {ROUNDS}",
                "bad_options",
            )

    def layout(self, cards: list[Card]) -> Position:
        down, up = self.options["down"], self.options["up"]
        talon = list(cards)
        piles: list[list[Card]] = [[] for _ in range(self.tableau_piles)]
        for _ in range(down + up):
            for pile in piles:
                pile.append(talon.pop())
        waste = (talon.pop(),)
        return Position(
            tableau=tuple(tuple(p) for p in piles),
            face_down=(down,) * self.tableau_piles,
            foundations=((),) * self.foundation_piles,
            reserves=(),
            waste=waste,
            stock=tuple(reversed(talon)),
        )

    def moves(self, position: Position) -> list[Action]:
        tableau, face_down = position.tableau, position.face_down
        targets = self.foundation_targets(position)
        # A card c fits on top t when (c >> 1) == ((t >> 1) ^ 1) - 2: rank one lower,
        # other colour. ``wanted`` maps that key to the piles whose top asks for it.
        wanted: dict[int, list[Pile]] = {}
        empties: list[Pile] = []
        for j, pile in enumerate(tableau):
            if pile:
                wanted.setdefault(((pile[-1] >> 1) ^ 1) - 2, []).append(TABLEAU_PILES[j])
            else:
                empties.append(TABLEAU_PILES[j])
        out: list[Action] = []
        append = out.append
        for i, pile in enumerate(tableau):
            size = len(pile)
            if size == 0:
                continue
            src = TABLEAU_PILES[i]
            for k in range(face_down[i], size):
                dsts = wanted.get(pile[k] >> 1)
                if dsts:
                    for dst in dsts:
                        if dst is not src:
                            append(Move(src, size - k, dst))
                for dst in empties:
                    append(Move(src, size - k, dst))
            if pile[-1] in targets:
                append(Move(src, 1, ANY_FOUNDATION))
        if position.waste:
            top = position.waste[-1]
            for dst in wanted.get(top >> 1, ()):
                append(Move(WASTE_PILE, 1, dst))
            for dst in empties:
                append(Move(WASTE_PILE, 1, dst))
            if top in targets:
                append(Move(WASTE_PILE, 1, ANY_FOUNDATION))
        if position.stock:
            append(DEAL)
        return out

    def useful_tops(self, position: Position, index: int) -> Callable[[Card], bool]:
        """As ``moves`` has it, without listing them: a card is useful on pile ``index``
        when it goes home, when another pile's top takes it (or a face-up card under it:
        the group moves with it), or when a face-up card of another pile or the waste's top
        would go on it."""
        tableau, face_down = position.tableau, position.face_down
        taken = {((p[-1] >> 1) ^ 1) - 2 for j, p in enumerate(tableau) if p and j != index}
        offered = {c >> 1 for j, p in enumerate(tableau) if j != index for c in p[face_down[j] :]}
        offered.update(c >> 1 for c in position.waste[-1:])
        if any(c >> 1 in taken for c in tableau[index][face_down[index] : -1]):
            return lambda card: True
        targets = self.foundation_targets(position)
        return lambda card: (
            card in targets or card >> 1 in taken or ((card >> 1) ^ 1) - 2 in offered
        )

    def check_group(self, position: Position, src: Pile, count: int) -> None:
        if src.kind != TABLEAU and count != 1:
            raise IllegalAction("only the top card of the waste may move", "group_not_movable")


LAYOUT = Layout(
    rounds=("down", "up"),
    face_down="down",
    to_waste=1,
    options_text="{down} down / {up} up",
    option_fields=(
        OptionField("down", "Face-down rounds", 0, ROUNDS - 1),
        OptionField("up", "Face-up rounds", 1, ROUNDS),
    ),
)
EXAMPLE_MOVE = "t3 2 t5, w 1 f, deal"
TEXT = RulesText(
    lead="Two decks. Yukon-style: any face-up card moves, with everything on top of it.",
    layout="Ten tableau piles t0–t9, eight foundations f0–f7, a waste w and a stock s. Each "
    "pile gets 3 cards face down and 7 face up; one card goes face up to the waste and the "
    "last 3 are the stock.",
    moves=(
        "Any face-up card moves together with every card on top of it, in sequence or not. "
        "The group lands on a card one rank higher of the other colour (a black 9 on a red 10).",
        "An empty pile takes any card or group, from anywhere.",
        "The waste's top card may go onto a tableau pile (by the same rule) or a foundation.",
        "Deal turns the next stock card face up onto the waste. One pass, no redeal.",
    ),
    options="Layout option: face-down rounds and face-up rounds (3 down / 7 up is the standard "
    "game; up to 10 rounds in all, the rest goes to the stock). 0 down / 10 up deals every "
    "card face up but the last four.",
    example=Example(
        "t0 3 t1: the 9♠ takes the 3♥ and the K♦ with it onto the 10♥, and the card under it "
        "turns face up.",
        before={
            "tableau": [["9S", "3H", "KD"], ["10H"], []],
            "face_down": [1, 0, 0],
            "foundations": [[], []],
            "waste": ["4C"],
            "stock": 3,
        },
        after={
            "tableau": [["QC"], ["10H", "9S", "3H", "KD"], []],
            "face_down": [0, 0, 0],
            "foundations": [[], []],
            "waste": ["4C"],
            "stock": 3,
        },
    ),
)
