"""Replay: (game, options, deal number, actions) gives the position, or the first illegal
action. This is how results are re-checked, resumes rebuilt and spectators caught up."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from protocol.engine import GameState, Rules
from protocol.errors import SolraceError
from protocol.notation import Action, parse_action


class ReplayFailure(SolraceError):
    """Action number ``index`` (from 0) could not be read or applied; ``cause`` says why."""

    def __init__(self, index: int, action: str, cause: SolraceError) -> None:
        super().__init__(cause.message, cause.code)
        self.index = index
        self.action = action
        self.cause = cause

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "action": self.action, **self.cause.as_dict()}


def replay_steps(rules: Rules, number: int, actions: Iterable[str | Action]) -> Iterator[GameState]:
    """The starting state, then the state after each action; ReplayFailure at the first
    action that is malformed or illegal."""
    state = rules.start(number)
    yield state
    for index, given in enumerate(actions):
        text = given if isinstance(given, str) else str(given)
        try:
            action = parse_action(given) if isinstance(given, str) else given
            state = rules.apply(state, action).state
        except SolraceError as error:
            raise ReplayFailure(index, text[:64], error) from None
        yield state


def replay(rules: Rules, number: int, actions: Iterable[str | Action]) -> GameState:
    """The state after every action; ReplayFailure at the first bad one."""
    *_, last = replay_steps(rules, number, actions)
    return last
