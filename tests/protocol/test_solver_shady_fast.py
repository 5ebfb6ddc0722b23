"""The Shady Lanes profile's fast paths (its own move, move ranking and key) give exactly
what the engine and the generic profile code give: the search they drive is the same
search, only faster."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.games import rules_for
from protocol.notation import TABLEAU, Action, Move
from protocol.position import Position
from protocol.solver.profile import out_of_order, ranked
from protocol.solver.profiles import profile_for
from protocol.solver.shady_profile import ShadyLanesProfile

RULES = rules_for("shady_lanes")


def reference_ranked(profile: ShadyLanesProfile, position: Position) -> list[Action]:
    """The move order as the generic code gave it: the engine's moves, the leftmost empty
    pile only, sorted (stably) by the per-move score."""
    moves = profile._first_empty_only(RULES.moves(position), position)
    tableau = position.tableau
    targets = RULES.foundation_targets(position)

    def score(action: Action) -> int:
        if type(action) is not Move:
            return 0
        src, dst = action.src, action.dst
        if dst.kind != TABLEAU:
            return 100
        if src.kind == "r":
            return 15 if not tableau[dst.index] else 30  # type: ignore[index]
        if src.kind != TABLEAU:
            return 20
        pile = tableau[src.index]  # type: ignore[index]
        if len(pile) == 1:
            return 25
        return 40 if pile[-2] in targets else -10

    return ranked(moves, score)


def walk(seed: int, steps: int) -> list[Position]:
    """Positions of a random game of deal ``seed``: foundation moves taken more often."""
    rng = random.Random(seed)
    position = RULES.deal(1 + seed % 100_000)
    seen = [position]
    for _ in range(steps):
        moves = RULES.moves(position)
        if not moves:
            break
        home = [m for m in moves if type(m) is Move and m.dst.kind != TABLEAU]
        action = rng.choice(home) if home and rng.random() < 0.8 else rng.choice(moves)
        position = RULES.play(position, action)[0]
        seen.append(position)
    return seen


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_fast_shady_lanes_paths_equal_the_engine_and_the_generic_code(seed: int) -> None:
    profile = profile_for(RULES)
    assert isinstance(profile, ShadyLanesProfile)
    positions = walk(seed, 150)
    for position in positions:
        ranked = reference_ranked(profile, position)
        assert profile.ordered_moves(position) == ranked
        beam = [
            m
            for m in ranked
            if not (
                type(m) is Move
                and m.src.kind == TABLEAU
                and m.dst.kind == TABLEAU
                and len(position.tableau[m.src.index]) > 1  # type: ignore[index]
                and position.tableau[m.src.index][-2]  # type: ignore[index]
                not in RULES.foundation_targets(position)
            )
        ]
        assert profile.beam_moves(position) == beam
        for action in ranked:
            if type(action) is Move:
                assert profile.play(position, action) == RULES.play_move(position, action)[0]
        waste = position.waste
        assert profile.score(position) == (
            10 * position.progress()
            - 2 * len(waste)
            - out_of_order(waste)
            + 5 * sum(1 for pile in position.tableau if not pile)
        )
    # The key tells positions apart exactly as the generic parts of the old key did.
    keys: dict[bytes, tuple] = {}
    for position in positions:
        canonical = (
            tuple(sorted(position.tableau)),
            tuple(sorted(r[-1] if r else 0 for r in position.reserves)),
            position.waste,
            len(position.stock),
        )
        assert keys.setdefault(profile.key(position), canonical) == canonical
    assert len(set(keys.values())) == len(keys)
