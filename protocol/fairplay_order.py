"""A run's moves put in the solver line's order where the rules let them (docs/fairness.md,
"Fair-play signals"): two adjacent moves commute when both orders are legal from where
they stand and leave the same position, so trading them changes nothing of the game. A
cheater who plays the solver's line with such moves traded plays the line; compared in
order, a trade costs the line one move, and enough trades hide it. ``toward_line`` takes
each of the line's moves in turn and moves the run's next such move left, trade by trade,
while it commutes with the move before it, up to just after the last one placed: the run
then holds the line in order as far as commuting moves allow. It stays the same run: the
same moves, legal, to the same position. Pure: the rules decide every trade.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from protocol.engine import GameState, Rules
from protocol.errors import IllegalAction
from protocol.fairplay_line import Order
from protocol.notation import parse_action

REORDER_WINDOW: Final = 24  # a line's move is looked for this far ahead of the last placed


def toward_line(
    rules: Rules, start: GameState, run: Sequence[str], line: Sequence[str]
) -> list[str]:
    """``run`` (standing moves, legal from ``start``, no undo) with each of ``line``'s moves
    moved left toward its place in the line's order, as far as the moves it passes commute
    with it; the run as it is if it does not replay."""
    moves = list(run)
    states = [start]
    for move in moves:
        after = _after(rules, states[-1], move)
        if after is None:
            return list(run)
        states.append(after)
    placed = -1  # where the last of the line's moves placed stands
    for wanted in line:
        window = range(placed + 1, min(len(moves), placed + 1 + REORDER_WINDOW))
        at = next((index for index in window if moves[index] == wanted), None)
        if at is None:
            continue
        while at > placed + 1:
            first = _after(rules, states[at - 1], moves[at])
            second = _after(rules, first, moves[at - 1]) if first is not None else None
            if first is None or second is None or second.position != states[at + 1].position:
                break  # it does not commute with the move before it
            moves[at - 1], moves[at], states[at] = moves[at], moves[at - 1], first
            at -= 1
        placed = at
    return moves


def line_order(rules: Rules, start: GameState, line: Sequence[str]) -> Order:
    """``toward_line`` for the runs of the deal whose start is ``start``, against ``line``."""
    return lambda standing: toward_line(rules, start, standing, line)


def _after(rules: Rules, state: GameState, move: str) -> GameState | None:
    """The state after ``move``, or None when it is not legal there."""
    try:
        return rules.apply(state, parse_action(move)).state
    except IllegalAction:
        return None
