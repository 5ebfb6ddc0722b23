"""``first_certified``: pick, among candidate deals, one the solver proves winnable, by
iterative widening: every candidate gets a small node budget first, then the budget grows
(x``growth`` per round, up to ``max_nodes``) for those still undecided.

Deterministic: the answer is the first candidate won in the order (round, position in
``candidates``), whatever the speed of the machine. A time budget (``should_stop``) can only
turn an answer into ``None``: as soon as it has cut a search short, nothing later is tried,
so no candidate is ever skipped because of the clock. Pure, like the rest of the solver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from protocol.engine import Rules
from protocol.solver.search import UNWINNABLE, WON, Solution, solve

FIRST_NODES: Final = 8_000
GROWTH: Final = 4

# (deal number, node budget, should_stop) -> the solver's Solution for that deal
Attempt = Callable[[int, int, Callable[[], bool] | None], Solution]
# deal number -> (how promising, higher first; positions spent looking)
Screen = Callable[[int], tuple[int, int]]


@dataclass(frozen=True, slots=True)
class Certified:
    """The deal proven winnable, its solution (replays to a win), and what it took:
    ``round`` (0 for the first), ``tried`` (attempts made, the winning one included) and
    ``nodes`` (positions generated over all attempts)."""

    number: int
    solution: Solution
    round: int
    tried: int
    nodes: int


@dataclass(frozen=True, slots=True)
class Uncertified:
    """No candidate was proven winnable: ``stopped`` when the time budget ended it (else
    the node budgets were all spent), with the attempts made and positions generated."""

    stopped: bool
    tried: int
    nodes: int


def round_budgets(first_nodes: int, growth: int, max_nodes: int) -> list[int]:
    """The node budget per candidate of each round: ``first_nodes`` x ``growth``**r,
    capped at ``max_nodes`` (the last round)."""
    if first_nodes < 1 or growth < 2 or max_nodes < 1:
        raise ValueError("first_nodes >= 1, growth >= 2 and max_nodes >= 1")
    budgets = []
    nodes = min(first_nodes, max_nodes)
    while True:
        budgets.append(nodes)
        if nodes >= max_nodes:
            return budgets
        nodes = min(nodes * growth, max_nodes)


def first_certified(
    rules: Rules,
    candidates: Sequence[int],
    first_nodes: int = FIRST_NODES,
    growth: int = GROWTH,
    max_nodes: int = 200_000,
    total_nodes: int | None = None,
    should_stop: Callable[[], bool] | None = None,
    attempt: Attempt | None = None,
    screen: Screen | None = None,
) -> Certified | Uncertified:
    """The first of ``candidates`` (deal numbers of ``rules``' game) proven winnable, in
    the order (round, position in ``candidates``). Round r gives each candidate not yet
    decided ``round_budgets(...)[r]`` positions; a candidate proven unwinnable is dropped.
    ``total_nodes`` caps the positions of all attempts together (an attempt is not started
    when its budget would pass it, and nothing after it is tried: the answer stays
    deterministic). ``should_stop`` (the time budget) is asked before each attempt and
    passed to the solver; once it has answered true, the answer is ``Uncertified``.
    The solver runs with ``wins_only`` (the game's strategies for finding wins; a game
    that keeps a complete one there still drops the candidates it proves unwinnable).
    ``attempt`` replaces the solver (tests). With a ``screen``, every candidate is looked
    at first, and the rounds take them most promising first (ties in the given order); its
    positions count in ``nodes`` and ``total_nodes`` like an attempt's, and the order
    stays deterministic (it depends on node counts only)."""
    if attempt is None:

        def attempt(number: int, nodes: int, stop: Callable[[], bool] | None) -> Solution:
            return solve(
                rules, rules.deal(number), max_nodes=nodes, should_stop=stop, wins_only=True
            )

    stopped = False

    def stop() -> bool:
        nonlocal stopped
        if should_stop is not None and should_stop():
            stopped = True
        return stopped

    open_candidates = list(dict.fromkeys(candidates))  # each deal once, in order
    tried = spent = 0
    if screen is not None:
        promise: dict[int, int] = {}
        for number in open_candidates:
            if stop():
                return Uncertified(True, tried, spent)
            promise[number], nodes = screen(number)
            spent += nodes
            if total_nodes is not None and spent > total_nodes:
                return Uncertified(False, tried, spent)
        open_candidates.sort(key=lambda number: -promise[number])  # stable: ties in order
    for index, nodes in enumerate(round_budgets(first_nodes, growth, max_nodes)):
        still_open = []
        for number in open_candidates:
            if stop():
                return Uncertified(True, tried, spent)
            if total_nodes is not None and spent + nodes > total_nodes:
                return Uncertified(False, tried, spent)
            solution = attempt(number, nodes, stop)
            tried += 1
            spent += solution.nodes
            if solution.verdict == WON:
                return Certified(number, solution, index, tried, spent)
            if stopped:
                return Uncertified(True, tried, spent)
            if solution.verdict != UNWINNABLE:
                still_open.append(number)
        open_candidates = still_open
    return Uncertified(False, tried, spent)
