"""Shady Lanes: two decks, four self-filling reserves, four tableau piles, one card at a time.

The deal is PySolFC's game 639; the rules are the sheet's (foundations in suit and final),
as RULES.md settles.
"""

from __future__ import annotations

from protocol.cards import Card
from protocol.engine import Rules
from protocol.errors import IllegalAction
from protocol.events import Event, Refilled
from protocol.games.entry import Example, Layout, RulesText
from protocol.notation import (
    ANY_FOUNDATION,
    DEAL,
    RESERVE,
    RESERVE_PILES,
    STOCK_PILE,
    TABLEAU_PILES,
    WASTE_PILE,
    Action,
    Move,
    Pile,
)
from protocol.position import Position


class ShadyLanes(Rules):
    name = "shady_lanes"
    title = "Shady Lanes"
    decks = 2
    tableau_piles = 4
    reserve_piles = 4

    def layout(self, cards: list[Card]) -> Position:
        talon = list(cards)
        reserves = tuple((talon.pop(),) for _ in range(self.reserve_piles))
        tableau = tuple((talon.pop(),) for _ in range(self.tableau_piles))
        waste = (talon.pop(),)
        return Position(
            tableau=tableau,
            face_down=(0,) * self.tableau_piles,
            foundations=((),) * self.foundation_piles,
            reserves=reserves,
            waste=waste,
            stock=tuple(reversed(talon)),
        )

    def moves(self, position: Position) -> list[Action]:
        targets = self.foundation_targets(position)
        tops: list[tuple[Pile, Card]] = []
        empties: list[Pile] = []
        for j, pile in enumerate(position.tableau):
            if pile:
                tops.append((TABLEAU_PILES[j], pile[-1]))
            else:
                empties.append(TABLEAU_PILES[j])
        sources: list[tuple[Pile, Card, bool]] = [
            (RESERVE_PILES[i], reserve[-1], True)
            for i, reserve in enumerate(position.reserves)
            if reserve
        ]
        sources.extend((src, card, False) for src, card in tops)
        if position.waste:
            sources.append((WASTE_PILE, position.waste[-1], False))
        out: list[Action] = []
        for src, card, from_reserve in sources:
            key = card >> 1
            for dst, top in tops:
                if dst is not src and ((top >> 1) ^ 1) - 2 == key:
                    out.append(Move(src, 1, dst))
            if from_reserve:
                out.extend(Move(src, 1, dst) for dst in empties)
            if card in targets:
                out.append(Move(src, 1, ANY_FOUNDATION))
        if position.stock:
            out.append(DEAL)
        return out

    def check_group(self, position: Position, src: Pile, count: int) -> None:
        if count != 1:
            raise IllegalAction(
                "in Shady Lanes only one card moves at a time, never a sequence",
                "group_not_movable",
            )

    def check_fill(self, src: Pile, card: Card) -> None:
        if src.kind != RESERVE:
            raise IllegalAction(
                "an empty tableau pile may be filled only from a reserve", "fill_refused"
            )

    def after_move(self, position: Position, src: Pile, events: list[Event]) -> Position:
        """An emptied reserve takes the top of the waste, else of the stock, else stays empty."""
        if src.kind != RESERVE:
            return position
        i = src.index
        assert i is not None
        if position.reserves[i]:
            return position
        if position.waste:
            card, origin = position.waste[-1], WASTE_PILE
            position = position._replace(waste=position.waste[:-1])
        elif position.stock:
            card, origin = position.stock[0], STOCK_PILE
            position = position._replace(stock=position.stock[1:])
        else:
            return position
        reserves = position.reserves[:i] + ((card,),) + position.reserves[i + 1 :]
        events.append(Refilled(src, origin, card))
        return position._replace(reserves=reserves)


LAYOUT = Layout(
    rounds=1, face_down=(0, 0, 0, 0), to_waste=1, reserves_refill=True, table="two_rows"
)
EXAMPLE_MOVE = "r0 1 t2, w 1 f, deal"
TEXT = RulesText(
    lead="Two decks. Build down in alternate colours one card at a time, fed by four reserves.",
    layout="Four reserves r0–r3, four tableau piles t0–t3, eight foundations f0–f7, a waste w "
    "and a stock s. One card face up on each reserve and each tableau pile, one on the waste; "
    "the other 95 are the stock.",
    moves=(
        "The tableau builds down by alternate colour, one card at a time, never in sequences. "
        "A tableau top card may go onto another non-empty pile or to a foundation.",
        "A reserve's card may go onto any tableau pile (empty or not) or to a foundation. No "
        "card is ever put into a reserve.",
        "An empty reserve at once takes the waste's top card (else the stock's next card). An "
        "empty tableau pile can be filled only from a reserve.",
        "The waste's top card may go onto a non-empty tableau pile or to a foundation. Deal "
        "turns one stock card onto the waste; one pass.",
    ),
    options="No layout option: only undo can be switched off.",
    example=Example(
        "r0 1 t1: the reserve's 8♦ fills the empty pile, and the reserve takes the waste's 5♣ "
        "at once.",
        before={
            "tableau": [["9C"], []],
            "face_down": [0, 0],
            "foundations": [[], []],
            "reserves": [["8D"], ["JS"]],
            "waste": ["2H", "5C"],
            "stock": 90,
        },
        after={
            "tableau": [["9C"], ["8D"]],
            "face_down": [0, 0],
            "foundations": [[], []],
            "reserves": [["5C"], ["JS"]],
            "waste": ["2H"],
            "stock": 90,
        },
    ),
)
