"""A run's moves put in the solver line's order where the rules let them (docs/fairness.md,
"Fair-play signals"): two adjacent moves commute when both orders are legal from where
they stand and leave the same position, so trading them changes nothing of the game. A
cheater who plays the solver's line with such moves traded plays the line; compared in
order, a trade costs the line one move, and enough trades hide it.

``toward_line`` takes each of the line's moves in turn and moves the run's next such move
left, trade by trade, while it commutes with the move before it, until it stands just after
the last one placed: the run then holds the line in order as far as commuting moves allow.
A move is its action and the cards it moves (``t1 1 f`` four times in a row sends four
cards home, each its own move). A card moved and moved straight back would stop the moves
that do not commute with it: such a pair did nothing. Met on the way, it is passed as a
block when both its moves are moves the line still plays (trades can bring two of the
line's own together), else taken out; found where the line's move is looked for (the
line's move played early and taken back), it is taken out unless the line plays the move
back and the run does not play the line's move again. The result is the same game: the
run's moves (less pairs that did nothing), legal, to the same position. Pure: the rules
decide every trade.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from protocol.cards import Card
from protocol.engine import GameState, Rules
from protocol.errors import IllegalAction
from protocol.fairplay_line import Order
from protocol.notation import parse_action

REORDER_WINDOW: Final = 24  # a line's move is looked for this far after the last placed

Key = tuple[str, tuple[Card, ...]]  # a move: its action and the cards it moves


def toward_line(
    rules: Rules, start: GameState, run: Sequence[str], line: Sequence[str]
) -> list[str]:
    """``run`` (standing moves, legal from ``start``, no undo) with each of ``line``'s moves
    in turn, the first found within ``REORDER_WINDOW`` moves that can be, traded left to
    just after the last placed (a pair of moves that did nothing taken out on the way);
    the run as it is if it or the line does not replay."""
    return line_order(rules, start, line)(list(run))


def line_order(rules: Rules, start: GameState, line: Sequence[str]) -> Order:
    """``toward_line`` for the runs of the deal whose start is ``start``, against ``line``
    (replayed once)."""
    played = _played(rules, start, line)
    wanted = played[1] if played is not None else []
    return lambda standing: _in_order(rules, start, standing, wanted)


def _in_order(rules: Rules, start: GameState, run: list[str], line: list[Key]) -> list[str]:
    """``toward_line`` with the line's moves known by their keys."""
    played = _played(rules, start, run)
    if played is None or not line:
        return list(run)
    moves, (states, keys) = list(run), played
    placed = -1  # where the last of the line's moves placed stands
    ahead = Counter(line)  # the line's moves not yet placed
    for wanted in line:
        ahead[wanted] -= 1
        found = placed + 1
        while found < min(len(moves), placed + 1 + REORDER_WINDOW):
            if keys[found] != wanted:
                found += 1
            elif _straight_back(states, found) and _played_early(keys, found, ahead):
                _take_out(moves, states, keys, found)
            else:
                at = _moved_left(rules, moves, states, keys, found, placed, ahead)
                if at == placed + 1:  # in the line's order now
                    placed = at
                    break
                found = max(found, at) + 1  # on past it (what it passed is behind)
    return moves


def _played_early(keys: list[Key], at: int, ahead: Counter[Key]) -> bool:
    """The line's move at ``at``, taken straight back by the next, was played early: the
    line does not play the move back, or the run plays the line's move again (within
    ``REORDER_WINDOW``) more often than the line still does."""
    again = keys[at + 2 : at + REORDER_WINDOW].count(keys[at])
    return not ahead[keys[at + 1]] or again > ahead[keys[at]]


def _played(
    rules: Rules, start: GameState, moves: Sequence[str]
) -> tuple[list[GameState], list[Key]] | None:
    """The states after each of ``moves`` (``start`` first) and each move's key; None when
    one is not legal."""
    states, keys = [start], []
    for move in moves:
        step = _step(rules, states[-1], move)
        if step is None:
            return None
        states.append(step[0])
        keys.append(step[1])
    return states, keys


def _moved_left(
    rules: Rules,
    moves: list[str],
    states: list[GameState],
    keys: list[Key],
    at: int,
    placed: int,
    ahead: Counter[Key],
) -> int:
    """Trade ``moves[at]`` left while it commutes with the move before it, to just after
    ``placed`` at most; a pair straight back before it (the two did nothing) it passes
    when the line has both moves ``ahead``, else the pair is taken out. Where it stops."""
    while at > placed + 1:
        if _traded(rules, moves, states, keys, at, 1):
            at -= 1
        elif at > placed + 2 and _straight_back(states, at - 2):
            line_s_own = all(ahead[key] > 0 for key in keys[at - 2 : at])
            if not (line_s_own and _traded(rules, moves, states, keys, at, 2)):
                _take_out(moves, states, keys, at - 2)
            at -= 2
        else:
            break
    return at


def _straight_back(states: list[GameState], at: int) -> bool:
    """The move at ``at`` and the next leave the position as it was before them."""
    return at + 2 < len(states) and states[at].position == states[at + 2].position


def _take_out(moves: list[str], states: list[GameState], keys: list[Key], at: int) -> None:
    """Take out the pair of moves at ``at``, which did nothing."""
    del moves[at : at + 2], keys[at : at + 2], states[at + 1 : at + 3]


def _traded(
    rules: Rules, moves: list[str], states: list[GameState], keys: list[Key], at: int, span: int
) -> bool:
    """Trade ``moves[at]`` with the ``span`` moves before it (``states``: after each move,
    the start first) when it commutes with them: from where they stood, it then they are
    legal and lead to the same position; whether it did."""
    before, mine, theirs = at - span, moves[at], moves[at - span : at]
    step = _step(rules, states[before], mine)
    trail, trail_keys = [], []  # the states after it and each of them but the last; keys
    for move in theirs:
        if step is None:
            return False
        trail.append(step[0])
        trail_keys.append(step[1])
        step = _step(rules, step[0], move)
    if step is None or step[0].position != states[at + 1].position:
        return False
    trail_keys.append(step[1])
    moves[before : at + 1] = [mine, *theirs]
    keys[before : at + 1] = trail_keys
    states[before + 1 : at + 1] = trail
    return True


def _step(rules: Rules, state: GameState, move: str) -> tuple[GameState, Key] | None:
    """The state after ``move`` and the move's key (the cards it moves first), or None when
    it is not legal there."""
    try:
        outcome = rules.apply(state, parse_action(move))
    except IllegalAction:
        return None
    first = outcome.events[0] if outcome.events else None
    return outcome.state, (move, getattr(first, "cards", ()))
