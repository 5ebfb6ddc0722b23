"""Shorter winning action lists: skip the detours a search leaves in its path."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.engine import GameState, Rules
from protocol.notation import Action, Move, parse_action
from protocol.position import Position


def shorten(rules: Rules, start: Position, actions: Sequence[str]) -> list[str]:
    """An action list that reaches the same final position as ``actions`` from ``start``,
    never longer: from each position on the way, the one move that lands furthest along
    the original path (on a position equal to one the path passes) is taken. Each position
    reached is a position of the original path, so the result is as legal as the input;
    IllegalAction or MalformedAction if ``actions`` is not a legal list from ``start``."""
    positions = [start]
    state = GameState(start)
    for text in actions:
        state = rules.apply(state, parse_action(text)).state
        positions.append(state.position)
    last_seen = {position: index for index, position in enumerate(positions)}
    out: list[str] = []
    index = 0
    while True:
        index = last_seen[positions[index]]  # a loop back to this position is skipped
        if index == len(actions):
            return out
        here = positions[index]
        best, best_action = index + 1, actions[index]
        for move in rules.moves(here):
            after = _after(rules, here, move)
            reach = last_seen.get(after, -1)
            if reach > best:
                best, best_action = reach, str(move)
        out.append(best_action)
        index = best


def _after(rules: Rules, position: Position, action: Action) -> Position:
    if type(action) is Move:
        return rules.play_move(position, action)[0]
    return rules.play_deal(position)[0]
