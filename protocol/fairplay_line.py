"""How much of the solver's line a run played, whatever its detours (docs/fairness.md,
"Fair-play signals"): the run's actions with every undo and the action it took back
removed (what stands at the end), compared with the line as a longest common subsequence,
so moves added anywhere, or taken back, do not hide the line; nor, once the moves that
commute are put in the line's order (``protocol/fairplay_order.py``), do trades. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

UNDO = "undo"


@dataclass(frozen=True, slots=True)
class LineMatch:
    """``kept``: the line's moves the run played in the line's order (its longest common
    subsequence with the run's standing actions); ``standing``: the run's actions left
    once every undo and what it took back are removed; ``taken_back``: the actions undone."""

    kept: int
    standing: int
    taken_back: int


def standing_actions(actions: Sequence[str]) -> tuple[list[str], int]:
    """The actions that stand at the end (each ``undo`` removes itself and the last
    standing action, as the engine does), and how many were taken back."""
    standing: list[str] = []
    taken_back = 0
    for action in actions:
        if action != UNDO:
            standing.append(action)
        elif standing:
            standing.pop()
            taken_back += 1
    return standing, taken_back


def common_length(line: Sequence[str], run: Sequence[str]) -> int:
    """The length of the longest common subsequence of ``line`` and ``run``, by the
    bit-parallel method (Allison and Dix; Hyyrö): one pass over ``run``, a few integer
    operations on ``len(line)``-bit numbers per action, so a long run costs little."""
    if not line or not run:
        return 0
    where: dict[str, int] = {}
    for index, action in enumerate(line):
        where[action] = where.get(action, 0) | (1 << index)
    full = (1 << len(line)) - 1
    row = full
    for action in run:
        matched = row & where.get(action, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(line) - row.bit_count()


Order = Callable[[list[str]], list[str]]  # a run's standing moves in the line's order


def line_match(
    actions: Sequence[str], line: Sequence[str], order: Order | None = None
) -> LineMatch:
    """How much of ``line`` the run of ``actions`` played once its detours are out (and,
    with ``order``, its moves put in the line's order where they commute:
    ``protocol/fairplay_order.py``)."""
    standing, taken_back = standing_actions(actions)
    compared = order(standing) if order is not None and line else standing
    return LineMatch(common_length(line, compared), len(standing), taken_back)
