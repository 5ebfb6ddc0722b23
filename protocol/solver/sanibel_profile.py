"""Sanibel's solver profile (``protocol/solver/profile.py``; docs/solver.md argues its rules)."""

from __future__ import annotations

from protocol.engine import fits_alternate_colour
from protocol.notation import (
    TABLEAU,
    Action,
    Move,
)
from protocol.position import Position
from protocol.solver.profile import (
    PART_END,
    Profile,
    ranked,
    sorted_piles,
)


class SanibelProfile(Profile):
    """Ten interchangeable piles (the stock deals to the waste), Yukon-style group moves.

    Safe: a card from the waste or a tableau top to a foundation once every card that
    could ever be built on it (the four cards of the other colour one rank lower) is home,
    and the other copy of the card is home too or has a foundation of its own ready.
    """

    safe_from_waste = True

    def key(self, position: Position) -> bytes:
        return (
            sorted_piles(position)
            + PART_END
            + bytes(position.waste)
            + PART_END
            + bytes((len(position.stock),))
        )

    def ordered_moves(self, position: Position) -> list[Action]:
        moves = self._first_empty_only(self.rules.moves(position), position)
        tableau, face_down = position.tableau, position.face_down
        targets = self.rules.foundation_targets(position)

        def score(action: Action) -> int:
            if type(action) is not Move:
                return -30  # deal: irreversible, try it after the rest
            if action.dst.kind != TABLEAU:
                return 100
            onto_empty = not tableau[action.dst.index]  # type: ignore[index]
            src = action.src
            if src.kind != TABLEAU:
                return 5 if onto_empty else 20
            pile = tableau[src.index]  # type: ignore[index]
            down = face_down[src.index]  # type: ignore[index]
            bottom = len(pile) - action.count
            if bottom == 0:
                return 40
            below = pile[bottom - 1]
            value = 0
            if bottom == down:
                value += 60 - down
            elif fits_alternate_colour(pile[bottom], below):
                value -= 20  # leaves a proper build for an equal one
            if below in targets:
                value += 30
            return value - 15 if onto_empty else value

        return ranked(moves, score)

    def score(self, position: Position) -> int:
        return 10 * position.progress() - 5 * sum(position.face_down)
