"""What every search strategy shares: the rules, the game's profile and a node budget that
stops the search when spent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from protocol.engine import Rules
from protocol.errors import SolraceError
from protocol.notation import Action, Move
from protocol.position import Position
from protocol.solver.profiles import Profile, profile_for

STOP_CHECK_INTERVAL: Final = 1024


class OutOfBudget(SolraceError):
    """The node budget is spent, or ``should_stop`` said to stop (caught by the search)."""

    code = "out_of_budget"

    def __init__(self) -> None:
        super().__init__("the solver's node budget is spent")


class Budget:
    """Counts generated positions; ``spend`` raises OutOfBudget past ``max_nodes`` or when
    ``should_stop`` (asked every STOP_CHECK_INTERVAL nodes) answers true."""

    def __init__(self, max_nodes: int, should_stop: Callable[[], bool] | None) -> None:
        self.max_nodes = max_nodes
        self.should_stop = should_stop
        self.nodes = 0

    def spend(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self.nodes = self.max_nodes
            raise OutOfBudget
        if self.nodes % STOP_CHECK_INTERVAL == 0 and self.should_stop and self.should_stop():
            raise OutOfBudget


class Context:
    """What every strategy shares: the rules, the game's profile and the budget."""

    def __init__(self, rules: Rules, profile: Profile, budget: Budget) -> None:
        self.rules = rules
        self.profile = profile
        self.budget = budget
        self.card_total = rules.card_total

    def settle(self, position: Position, actions: list[Action]) -> Position:
        """Make every safe foundation move, appending each to ``actions``."""
        safe_move, play = self.profile.safe_move, self.profile.play
        move = safe_move(position)
        while move is not None:
            position = play(position, move)
            actions.append(move)
            move = safe_move(position)
        return position

    def step(self, position: Position, action: Action) -> tuple[Position, list[Action]]:
        """The settled position after ``action`` (a legal move or deal), and the actions
        taken: ``action`` then the safe moves. Counts one node."""
        self.budget.spend()
        if type(action) is Move:
            after = self.profile.play(position, action)
        else:
            after = self.rules.play_deal(position)[0]
        taken = [action]
        return self.settle(after, taken), taken

    def is_won(self, position: Position) -> bool:
        return position.progress() == self.card_total

    def stricter(self) -> Context | None:
        """The same search under the profile's stricter game (same options, same budget),
        or None when it has none."""
        game = self.profile.stricter_game
        if game is None:
            return None
        from protocol.games import rules_for  # the registry loads the solver: asked when needed

        rules = rules_for(game, self.rules.options)
        return Context(rules, profile_for(rules), self.budget)
