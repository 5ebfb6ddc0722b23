"""Mount Sunflower's and Easy's solver profiles (``protocol/solver/profile.py``; docs/solver.md
argues their rules)."""

from __future__ import annotations

from protocol.cards import Card
from protocol.engine import Rules
from protocol.notation import (
    TABLEAU,
    Action,
    Move,
)
from protocol.position import Position
from protocol.solver.profile import (
    PART_END,
    HomeCount,
    Profile,
    out_of_order,
    piles_in_order,
    ranked,
    sorted_piles,
)


class MountSunflowerProfile(Profile):
    """Seven piles that a deal tells apart (it gives t0 first), interchangeable once the
    stock is empty; same-suit runs move.

    Safe: a tableau top to a foundation once the stock is empty and every card one rank
    lower, of any suit, is home. While cards are left to deal, any card may be needed to
    fill an empty pile (standard game: a deal needs every pile filled), so none is safe
    there; in the easy game the fill is never needed and the stock does not matter.
    """

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        self.fill_matters = bool(getattr(rules, "deal_needs_full_tableau", True))

    def is_dead(self, position: Position) -> bool:
        """Standard game: cards left to deal but fewer cards in the tableau than piles. No
        move adds a card to the tableau but a deal, and a deal needs every pile filled."""
        return (
            self.fill_matters
            and bool(position.stock)
            and sum(map(len, position.tableau)) < len(position.tableau)
        )

    def key(self, position: Position) -> bytes:
        piles = piles_in_order(position) if position.stock else sorted_piles(position)
        return piles + PART_END + bytes((len(position.stock),))

    def safe_now(self, position: Position) -> bool:
        return not (position.stock and self.fill_matters)

    def is_safe(self, card: Card, home: HomeCount) -> bool:
        return home.no_lower_out(card)  # one deck: no other copy

    def ordered_moves(self, position: Position) -> list[Action]:
        moves = self.rules.moves(position)
        if not position.stock:
            moves = self._first_empty_only(moves, position)
        tableau, face_down = position.tableau, position.face_down
        targets = self.rules.foundation_targets(position)
        # Standard game with few cards left out: deal while every pile still has a card.
        deal_value = 150 if self.fill_matters and sum(map(len, tableau)) < 14 else -50

        def score(action: Action) -> int:
            if type(action) is not Move:
                return deal_value
            src, dst = action.src, action.dst
            if dst.kind != TABLEAU:
                return 100
            pile = tableau[src.index]  # type: ignore[index]
            down = face_down[src.index]  # type: ignore[index]
            bottom = len(pile) - action.count
            onto = tableau[dst.index]  # type: ignore[index]
            value = 0
            if onto and onto[-1] == pile[bottom] + 4:
                value += 20  # joins a run in suit
            if bottom == 0:
                value += 30 if onto else -40
            else:
                below = pile[bottom - 1]
                if bottom == down:
                    value += 50
                elif below == pile[bottom] + 4:
                    value -= 30  # splits a run in suit
                if below in targets:
                    value += 40
                if not onto:
                    value -= 20
            return value

        return ranked(moves, score)

    def score(self, position: Position) -> int:
        value = 10 * position.progress()
        for pile, down in zip(position.tableau, position.face_down, strict=True):
            if not pile:
                value += 6
                continue
            value -= 2 * down + 2 * out_of_order(pile)
            for k in range(max(down, 1), len(pile)):
                if pile[k - 1] == pile[k] + 4:
                    value += 3
        return value


class MountSunflowerEasyProfile(MountSunflowerProfile):
    """The easy game allows every move of the standard game, and a deal at any time: a
    standard win is an easy win, so the standard game's search runs alongside."""

    stricter_game = "mount_sunflower"
    strategies = (("depth_first", 1), ("best_first", 1), ("stricter_best_first", 1))
