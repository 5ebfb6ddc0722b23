"""Shady Lanes' solver profile (``protocol/solver/profile.py``; docs/solver.md argues its rules)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import ClassVar

from protocol.cards import ACE, Card
from protocol.engine import Rules
from protocol.notation import (
    ANY_FOUNDATION,
    DEAL,
    RESERVE,
    RESERVE_PILES,
    TABLEAU,
    TABLEAU_PILES,
    WASTE,
    WASTE_PILE,
    Action,
    Move,
    Pile,
)
from protocol.position import Position
from protocol.solver.profile import (
    ACES,
    LOWEST_KING,
    PART_END,
    PILE_END,
    Draws,
    Profile,
    out_of_order,
    sorted_piles,
)


def _moves_from(src: Pile) -> tuple[Move, ...]:
    """Shady Lanes' moves of one card from ``src``: onto t0..t3, then to a foundation."""
    return tuple(Move(src, 1, dst) for dst in TABLEAU_PILES[:4]) + (Move(src, 1, ANY_FOUNDATION),)


_TABLEAU_MOVES = tuple(_moves_from(pile) for pile in TABLEAU_PILES[:4])
_RESERVE_MOVES = tuple(_moves_from(pile) for pile in RESERVE_PILES[:4])
_WASTE_MOVES = _moves_from(WASTE_PILE)


class ShadyLanesProfile(Profile):
    """Four interchangeable tableau piles and four interchangeable one-card reserves.

    Safe: only a tableau top to a foundation, on Sanibel's terms. A reserve or waste card
    is never moved without branching: the reserve it leaves (now or later) refills, and
    which card a refill takes can matter.
    """

    strategies = (("depth_first", 1), ("beam", 7))
    # Only the beam has ever won a Shady Lanes deal, and no proof fits a certification
    # budget ("Why proofs are out of reach"): where only a win counts, the beam gets the
    # depth-first share too.
    win_strategies = (("beam", 1),)
    # The solver wins about one Shady Lanes candidate in 170 within 32,000 positions and
    # none within 8,000, so its certification starts at 32,000 and has candidates for
    # longer than 60 s (docs/solver.md, "The certification study").
    certify_first_nodes = 32_000
    certify_candidates = 1024
    # Restarts: one beam pass of this width after another, each later one ranking by its
    # own drawn weights (``varied_score``). On 200 deals at 32,000 positions this won more
    # than one widening beam (16, 64, 256, ...); see docs/solver.md.
    RESTART_WIDTH: ClassVar[int] = 16
    RESTART_NOISE: ClassVar[int] = 4
    screen_width = 1  # a greedy pass: a few hundred positions (docs/solver.md)

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        self.foundation_count = rules.foundation_piles
        # ``out_of_order`` of each waste seen (many positions share a waste), per solve.
        self._disorder: dict[tuple[Card, ...], int] = {}

    def key(self, position: Position) -> bytes:
        tableau, face_down, _, reserves, waste, stock = position
        if any(face_down):  # never in a Shady Lanes deal; kept exact for any position
            piles = sorted_piles(position)
        else:
            piles = PILE_END.join(sorted(map(bytes, tableau)))
        return (
            piles
            + PART_END
            + bytes(sorted([reserve[-1] if reserve else 0 for reserve in reserves]))
            + PART_END
            + bytes(waste)
            + PART_END
            + bytes((len(stock),))
        )

    def play(self, position: Position, move: Move) -> Position:
        """``rules.play_move`` for a legal move, without its checks and events: the card
        moves, a tableau pile left with only face-down cards turns one, and an emptied
        reserve takes the waste top, else the stock's (as ``ShadyLanes.after_move``)."""
        tableau, face_down, foundations, reserves, waste, stock = position
        src, dst = move.src, move.dst
        kind, i = src.kind, src.index
        if kind == TABLEAU:
            pile = tableau[i]  # type: ignore[index]
            card = pile[-1]
        elif kind == WASTE:
            card = waste[-1]
            waste = waste[:-1]
        else:
            card = reserves[i][-1]  # type: ignore[index]
        if dst.kind == TABLEAU:
            j = dst.index
            assert j is not None
            tableau = tableau[:j] + (tableau[j] + (card,),) + tableau[j + 1 :]
        else:
            f = dst.index
            if f is None:
                want = card - 4
                f = 0
                for f, home in enumerate(foundations):  # noqa: B007 - the first that takes it
                    if (home[-1] == want) if home else (card >> 2 == ACE):
                        break
            foundations = foundations[:f] + (foundations[f] + (card,),) + foundations[f + 1 :]
        if kind == TABLEAU:
            assert i is not None
            rest = pile[:-1]
            tableau = tableau[:i] + (rest,) + tableau[i + 1 :]
            if rest and len(rest) == face_down[i]:
                face_down = face_down[:i] + (face_down[i] - 1,) + face_down[i + 1 :]
        elif kind == RESERVE:
            assert i is not None
            left = reserves[i][:-1]
            if not left:
                if waste:
                    left = waste[-1:]
                    waste = waste[:-1]
                elif stock:
                    left = stock[:1]
                    stock = stock[1:]
            reserves = reserves[:i] + (left,) + reserves[i + 1 :]
        return Position(tableau, face_down, foundations, reserves, waste, stock)

    def ordered_moves(self, position: Position) -> list[Action]:
        """The legal moves (one to the leftmost empty pile only), ranked: to a foundation
        100; a tableau top that uncovers a card a foundation takes 40; a reserve card onto
        a card 30; a tableau card that empties its pile 25; the waste top onto a card 20;
        a reserve card to an empty pile 15; the deal 0; other tableau moves -10. Ties in
        the engine's order of ``moves``."""
        return self._ranked_moves(position, True)

    def beam_moves(self, position: Position) -> list[Action]:
        """Without moving a tableau card onto another pile, unless that empties its pile or
        uncovers a card a foundation takes (``ordered_moves`` without its -10 moves)."""
        return self._ranked_moves(position, False)

    def _ranked_moves(self, position: Position, all_moves: bool) -> list[Action]:
        tableau, _, foundations, reserves, waste, stock = position
        targets = {home[-1] + 4 for home in foundations if home and home[-1] < LOWEST_KING}
        if () in foundations:
            targets.update(ACES)
        tops = [(j, pile[-1]) for j, pile in enumerate(tableau) if pile]
        empty = next((j for j, pile in enumerate(tableau) if not pile), None)
        home: list[Action] = []
        uncover: list[Action] = []
        from_reserve: list[Action] = []
        emptying: list[Action] = []
        from_waste: list[Action] = []
        fill: list[Action] = []
        other: list[Action] = []
        for i, reserve in enumerate(reserves):
            if reserve:
                card = reserve[-1]
                moves = _RESERVE_MOVES[i]
                fits = card >> 1
                for j, top in tops:
                    if ((top >> 1) ^ 1) - 2 == fits:
                        from_reserve.append(moves[j])
                if empty is not None:
                    fill.append(moves[empty])
                if card in targets:
                    home.append(moves[-1])
        for i, card in tops:
            moves = _TABLEAU_MOVES[i]
            fits = card >> 1
            pile = tableau[i]
            bucket = emptying if len(pile) == 1 else uncover if pile[-2] in targets else other
            for j, top in tops:
                if j != i and ((top >> 1) ^ 1) - 2 == fits:
                    bucket.append(moves[j])
            if card in targets:
                home.append(moves[-1])
        if waste:
            card = waste[-1]
            fits = card >> 1
            for j, top in tops:
                if ((top >> 1) ^ 1) - 2 == fits:
                    from_waste.append(_WASTE_MOVES[j])
            if card in targets:
                home.append(_WASTE_MOVES[-1])
        ranked = home + uncover + from_reserve + emptying + from_waste + fill
        if stock:
            ranked.append(DEAL)
        if all_moves:
            ranked += other
        return ranked

    def _out_of_order(self, waste: tuple[Card, ...]) -> int:
        cache = self._disorder
        count = cache.get(waste)
        if count is None:
            if len(cache) > 200_000:
                cache.clear()
            count = cache[waste] = out_of_order(waste)
        return count

    def score(self, position: Position) -> int:
        waste = position.waste
        empty = sum(1 for pile in position.tableau if not pile)
        return (
            10 * sum(map(len, position.foundations))
            - 2 * len(waste)
            - self._out_of_order(waste)
            + 5 * empty
        )

    def beam_passes(self) -> Iterable[int]:
        return itertools.repeat(self.RESTART_WIDTH)

    def varied_score(self, rng: Draws) -> Callable[[Position], int]:
        """``score`` with weights drawn for the pass (waste cards, those above a lower card
        of their suit, empty piles) and a small random amount per position (ties broken
        otherwise), all from ``rng``."""
        waste_weight = rng.choice((1, 2, 2, 3, 4))
        order_weight = rng.choice((0, 1, 1, 2, 3))
        empty_weight = rng.choice((0, 3, 5, 5, 8))
        noise = rng.below
        spread = self.RESTART_NOISE
        disorder = self._out_of_order

        def score(position: Position) -> int:
            waste = position.waste
            empty = sum(1 for pile in position.tableau if not pile)
            return (
                10 * position.progress()
                - waste_weight * len(waste)
                - order_weight * disorder(waste)
                + empty_weight * empty
                + noise(spread)
            )

        return score

    def beam_signature(self, position: Position) -> bytes | None:
        """The waste and the reserves: positions that differ only in their tableau."""
        reserves = sorted(reserve[-1] if reserve else 0 for reserve in position.reserves)
        return bytes(position.waste) + PART_END + bytes(reserves)
