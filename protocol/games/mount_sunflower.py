"""Mount Sunflower: one deck, Spider family. Builds down regardless of suit; only runs in
one suit move together; a deal puts one card on each of the seven piles and is allowed
only while no tableau pile is empty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from protocol.cards import Card, rank, shown
from protocol.engine import Rules, build_refusal
from protocol.errors import IllegalAction
from protocol.events import Dealt, Event
from protocol.games.entry import Example, Layout, RulesText
from protocol.notation import ANY_FOUNDATION, DEAL, TABLEAU, TABLEAU_PILES, Action, Move, Pile
from protocol.position import Position

FACE_DOWN = (3, 2, 1, 0, 1, 2, 3)
SWEEPS = 4


def run_length(pile: tuple[Card, ...], face_down: int) -> int:
    """How many top cards of ``pile`` form a descending run in one suit (face up only)."""
    k = len(pile) - 1
    while k > face_down and pile[k - 1] == pile[k] + 4:
        k -= 1
    return len(pile) - k


class MountSunflower(Rules):
    name = "mount_sunflower"
    title = "Mount Sunflower"
    decks = 1
    tableau_piles = 7
    has_waste = False
    deal_needs_full_tableau: ClassVar[bool] = True

    def layout(self, cards: list[Card]) -> Position:
        talon = list(cards)
        piles: list[list[Card]] = [[] for _ in range(self.tableau_piles)]
        for _ in range(SWEEPS):
            for pile in piles:
                pile.append(talon.pop())
        return Position(
            tableau=tuple(tuple(p) for p in piles),
            face_down=FACE_DOWN,
            foundations=((),) * self.foundation_piles,
            reserves=(),
            waste=(),
            stock=tuple(reversed(talon)),
        )

    def moves(self, position: Position) -> list[Action]:
        tableau, face_down = position.tableau, position.face_down
        targets = self.foundation_targets(position)
        by_rank: dict[int, list[Pile]] = {}  # piles whose top takes a card of this rank
        empties: list[Pile] = []
        for j, pile in enumerate(tableau):
            if pile:
                by_rank.setdefault(rank(pile[-1]) - 1, []).append(TABLEAU_PILES[j])
            else:
                empties.append(TABLEAU_PILES[j])
        out: list[Action] = []
        for i, pile in enumerate(tableau):
            if not pile:
                continue
            src = TABLEAU_PILES[i]
            for count in range(1, run_length(pile, face_down[i]) + 1):
                for dst in by_rank.get(rank(pile[-count]), ()):
                    if dst is not src:
                        out.append(Move(src, count, dst))
                out.extend(Move(src, count, dst) for dst in empties)
            if pile[-1] in targets:
                out.append(Move(src, 1, ANY_FOUNDATION))
        if self._may_deal(position):
            out.append(DEAL)
        return out

    def useful_tops(self, position: Position, index: int) -> Callable[[Card], bool]:
        """As ``moves`` has it, without listing them: a card is useful on pile ``index``
        when it goes home, when another pile's top takes it (or a card of the run in one
        suit it heads), or when a card of another pile's run would go on it."""
        tableau, face_down = position.tableau, position.face_down
        taken = {rank(p[-1]) - 1 for j, p in enumerate(tableau) if p and j != index}
        offered = {
            rank(c)
            for j, p in enumerate(tableau)
            if p and j != index
            for c in p[len(p) - run_length(p, face_down[j]) :]
        }
        targets, under = self.foundation_targets(position), tableau[index][:-1]

        def useful(card: Card) -> bool:
            if card in targets or rank(card) - 1 in offered:
                return True
            pile = (*under, card)
            run = pile[len(pile) - run_length(pile, face_down[index]) :]
            return any(rank(c) in taken for c in run)

        return useful

    def _may_deal(self, position: Position) -> bool:
        if not position.stock:
            return False
        return not self.deal_needs_full_tableau or all(position.tableau)

    def check_group(self, position: Position, src: Pile, count: int) -> None:
        if src.kind != TABLEAU:
            return
        index = src.index
        assert index is not None
        pile = position.tableau[index]
        run = run_length(pile, position.face_down[index])
        if count > run:
            lower, upper = pile[-run - 1], pile[-run]
            raise IllegalAction(
                f"only a run in one suit moves together, and {shown(upper)} lies on {shown(lower)}",
                "group_not_movable",
            )

    def check_build(self, card: Card, top: Card) -> None:
        if rank(card) + 1 != rank(top):
            raise build_refusal(card, top, " of any suit")

    def play_deal(self, position: Position) -> tuple[Position, list[Event]]:
        stock = position.stock
        if not stock:
            raise IllegalAction("the stock is empty", "stock_empty")
        if not self._may_deal(position):
            raise IllegalAction(
                "in Mount Sunflower you may deal only while no tableau pile is empty",
                "deal_refused",
            )
        count = min(self.tableau_piles, len(stock))
        dealt = stock[:count]
        tableau = tuple(
            pile + (dealt[i],) if i < count else pile for i, pile in enumerate(position.tableau)
        )
        new = position._replace(tableau=tableau, stock=stock[count:])
        return new, [Dealt(TABLEAU_PILES[:count], dealt)]


LAYOUT = Layout(rounds=SWEEPS, face_down=FACE_DOWN, deal="tableau")
EXAMPLE_MOVE = "t3 1 t5, t0 1 f, deal"
TEXT = RulesText(
    lead="One deck. Build on any suit, but only runs in one suit move together.",
    layout="Seven tableau piles t0–t6 of four cards, face down at the bottom as a low pyramid "
    "(3, 2, 1, 0, 1, 2, 3 face-down cards), four foundations f0–f3 and a stock s of 24 cards. "
    "No waste.",
    moves=(
        "A card goes on a card one rank higher, whatever the suit.",
        "What moves: the top card, or a run at the top of a pile in descending sequence in one "
        "suit (the whole run or its upper part). A build in mixed suits never moves as a unit.",
        "An empty pile takes any card or run that may move.",
        "Deal puts one card face up on each of t0–t6 (the last deal only on t0–t2). In Mount "
        "Sunflower you may deal only while no pile is empty; in Mount Sunflower Easy at any "
        "time.",
    ),
    options="Mount Sunflower Easy is the same game where Deal is allowed at any time. The "
    "standard game can lock itself: with fewer than 7 cards in the tableau and cards in the "
    "stock, no deal is possible again.",
    example=Example(
        "t0 2 t1: the 7♥ and 6♥, a run in one suit, go onto the 8♣ together.",
        before={
            "tableau": [["KS", "7H", "6H"], ["8C"], ["2D"]],
            "face_down": [1, 0, 0],
            "foundations": [["AD"], []],
            "stock": 24,
        },
        after={
            "tableau": [["KS"], ["8C", "7H", "6H"], ["2D"]],
            "face_down": [1, 0, 0],
            "foundations": [["AD"], []],
            "stock": 24,
        },
    ),
)
