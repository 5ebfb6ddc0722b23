"""A run's moves put in the solver line's order where the rules let them (docs/fairness.md,
"Fair-play signals"): two adjacent moves commute when both orders are legal from where
they stand and leave the same position, so trading them changes nothing of the game. A
cheater who plays the solver's line with such moves traded plays the line; compared in
order, a trade costs the line one move, and enough trades hide it.

``toward_line`` takes each of the line's moves in turn and moves the run's next such move
left, trade by trade, while it commutes with the move before it, until it stands just after
the last one placed: the run then holds the line in order as far as commuting moves allow.
A card moved and moved straight back would stop the moves that do not commute with it:
such a pair, met on the way, did nothing; it is passed as a block when both its moves are
moves the line still plays (trades can bring two of the line's own together), else taken
out. The result is the same game: the run's moves (less pairs that did nothing), legal,
to the same position. Pure: the rules decide every trade.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from protocol.engine import GameState, Rules
from protocol.errors import IllegalAction
from protocol.fairplay_line import Order
from protocol.notation import parse_action

REORDER_WINDOW: Final = 24  # a line's move is looked for this far after the last placed


def toward_line(
    rules: Rules, start: GameState, run: Sequence[str], line: Sequence[str]
) -> list[str]:
    """``run`` (standing moves, legal from ``start``, no undo) with each of ``line``'s moves
    in turn, the first found within ``REORDER_WINDOW`` moves that can be, traded left to
    just after the last placed (a pair of moves that did nothing taken out on the way);
    the run as it is if it does not replay."""
    moves, states = list(run), [start]
    for move in moves:
        after = _after(rules, states[-1], move)
        if after is None:
            return list(run)
        states.append(after)
    placed = -1  # where the last of the line's moves placed stands
    ahead = Counter(line)  # the line's moves not yet placed
    for wanted in line:
        ahead[wanted] -= 1
        found = placed + 1
        while found < min(len(moves), placed + 1 + REORDER_WINDOW):
            if moves[found] != wanted:
                found += 1
                continue
            at = _moved_left(rules, moves, states, found, placed, ahead)
            if at == placed + 1:  # in the line's order now
                placed = at
                break
            found = max(found, at) + 1  # on past it (what it passed is behind)
    return moves


def line_order(rules: Rules, start: GameState, line: Sequence[str]) -> Order:
    """``toward_line`` for the runs of the deal whose start is ``start``, against ``line``."""
    return lambda standing: toward_line(rules, start, standing, line)


def _moved_left(
    rules: Rules,
    moves: list[str],
    states: list[GameState],
    at: int,
    placed: int,
    ahead: Counter[str],
) -> int:
    """Trade ``moves[at]`` left while it commutes with the move before it, to just after
    ``placed`` at most; a pair straight back before it (the two did nothing) it passes
    when the line has both moves ``ahead``, else the pair is taken out. Where it stops."""
    while at > placed + 1:
        if _traded(rules, moves, states, at, 1):
            at -= 1
        elif at > placed + 2 and states[at - 2].position == states[at].position:
            pair = moves[at - 2 : at]
            line_s_own = all(ahead[move] > 0 for move in pair)
            if not (line_s_own and _traded(rules, moves, states, at, 2)):
                del moves[at - 2 : at], states[at - 1 : at + 1]
            at -= 2
        else:
            break
    return at


def _traded(rules: Rules, moves: list[str], states: list[GameState], at: int, span: int) -> bool:
    """Trade ``moves[at]`` with the ``span`` moves before it (``states``: after each move,
    the start first) when it commutes with them: from where they stood, it then they are
    legal and lead to the same position; whether it did."""
    before, mine, theirs = at - span, moves[at], moves[at - span : at]
    state = _after(rules, states[before], mine)
    trail = []  # the states after it and each of them but the last
    for move in theirs:
        if state is None:
            return False
        trail.append(state)
        state = _after(rules, state, move)
    if state is None or state.position != states[at + 1].position:
        return False
    moves[before : at + 1] = [mine, *theirs]
    states[before + 1 : at + 1] = trail
    return True


def _after(rules: Rules, state: GameState, move: str) -> GameState | None:
    """The state after ``move``, or None when it is not legal there."""
    try:
        return rules.apply(state, parse_action(move)).state
    except IllegalAction:
        return None
