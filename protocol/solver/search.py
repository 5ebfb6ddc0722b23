"""``solve``: run the game's search strategies side by side on one node budget.

Each strategy is a generator that works for a slice of nodes, yields, and in the end
returns the winning actions or None. The strategies take turns (in proportion to their
weights) until one wins; when a *complete* strategy ends without a win, it has searched the
whole reachable space and the deal is unwinnable. When the budget runs out first, or
only incomplete strategies were left and they gave up, the answer is ``unknown``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from protocol.engine import Rules
from protocol.notation import Action
from protocol.position import Position
from protocol.solver.context import Budget, Context, OutOfBudget
from protocol.solver.profiles import Profile, profile_for
from protocol.solver.shorten import shorten
from protocol.solver.strategies import STRATEGIES, Steps, Strategy, beam_pass

WON: Final = "won"
UNWINNABLE: Final = "unwinnable"
UNKNOWN: Final = "unknown"
VERDICTS: Final = (WON, UNWINNABLE, UNKNOWN)
DEFAULT_MAX_NODES: Final = 1_000_000
SCREEN_NODES: Final = 4_000  # a screen's cap (Shady Lanes' greedy pass: 289 median, 1,814 most)


@dataclass(frozen=True, slots=True)
class Solution:
    """The verdict; the winning actions in the notation (empty unless won; never ``undo``
    or ``auto``); and ``nodes``, the positions the search generated (every applied move,
    including those that led to a position seen before)."""

    verdict: str
    actions: tuple[str, ...]
    nodes: int


def solve(
    rules: Rules,
    position: Position,
    max_nodes: int = DEFAULT_MAX_NODES,
    should_stop: Callable[[], bool] | None = None,
    shortened: bool = True,
    wins_only: bool = False,
) -> Solution:
    """Search for a win from ``position`` (every card known). At most ``max_nodes``
    positions are generated; ``should_stop`` is asked every STOP_CHECK_INTERVAL nodes and
    ends the search with ``unknown`` when it answers true. A win found is shortened (see
    ``shorten``; that pass is not counted in ``nodes``) unless ``shortened`` is false.
    ``wins_only`` runs the profile's ``win_strategies`` (certification: only a win counts),
    which may leave out the complete strategies: "unwinnable" is then never answered.
    BadGame for a game the solver does not know."""
    profile = profile_for(rules)
    mix = profile.strategies
    if wins_only and profile.win_strategies is not None:
        mix = profile.win_strategies
    budget = Budget(max_nodes, should_stop)
    context = Context(rules, profile, budget)
    try:
        verdict, actions = _race(context, position, mix)
    except OutOfBudget:
        return Solution(UNKNOWN, (), budget.nodes)
    texts = [str(action) for action in actions]
    if shortened and verdict == WON:
        texts = shorten(rules, position, texts)
    return Solution(verdict, tuple(texts), budget.nodes)


class _Watched(Context):
    """A context that notes the most cards home of any position it steps to."""

    def __init__(self, rules: Rules, profile: Profile, budget: Budget) -> None:
        super().__init__(rules, profile, budget)
        self.most_home = 0

    def step(self, position: Position, action: Action) -> tuple[Position, list[Action]]:
        after, taken = super().step(position, action)
        home = after.progress()
        if home > self.most_home:
            self.most_home = home
        return after, taken


def screen(rules: Rules, position: Position, max_nodes: int = SCREEN_NODES) -> tuple[int, int]:
    """A cheap look at ``position`` before searching it: the most cards home that one
    lone beam pass of the profile's ``screen_width`` reaches (ranked by its score), and
    the positions that pass generated (at most ``max_nodes``). (0, 0) for a game whose
    profile has no screen. Deterministic, like ``solve`` at a node budget: certification
    orders its candidates by it (on 1,382 candidate-range Shady Lanes deals, the half
    that the greedy pass took furthest held all 7 of the deals won; docs/solver.md)."""
    profile = profile_for(rules)
    width = profile.screen_width
    if width is None:
        return 0, 0
    context = _Watched(rules, profile, Budget(max_nodes, None))
    context.most_home = position.progress()
    steps = beam_pass(context, position, width, profile.score)
    try:
        while True:
            next(steps)
    except StopIteration as finished:
        if finished.value[0] is not None:
            context.most_home = context.card_total
    except OutOfBudget:
        pass
    return context.most_home, context.budget.nodes


@dataclass
class _Run:
    strategy: Strategy
    weight: int
    steps: Steps


def _race(
    context: Context, position: Position, mix: tuple[tuple[str, int], ...]
) -> tuple[str, list[Action]]:
    runs = []
    for name, weight in mix:
        strategy = STRATEGIES[name]
        runs.append(_Run(strategy, weight, strategy.run(context, position)))
    while runs:
        for run in list(runs):
            try:
                for _ in range(run.weight):
                    next(run.steps)
            except StopIteration as finished:
                if finished.value is not None:
                    return WON, finished.value
                if run.strategy.complete:
                    return UNWINNABLE, []
                runs.remove(run)
    return UNKNOWN, []
