"""The daily deal's choice, as the server makes it and anyone can re-run it: of the day's
candidates (``protocol.daily.candidate_deals``), the first that the certification proves
winnable by iterative widening (``protocol.solver.certify.first_certified``: every
candidate gets ``first_nodes(game)`` positions, then ``GROWTH`` times more per round, up
to the node budget). Node budgets only, no clock: the same candidates give the same deal
on every machine. The server adds a time budget around it (``server/desks/daily.py``); a day
whose budget ran out is served with its first candidate and ``certified: false``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol.games import game_entry, rules_for
from protocol.solver import WON, Solution, solve
from protocol.solver.certify import (
    GROWTH,
    Attempt,
    Certified,
    Uncertified,
    first_certified,
)
from protocol.solver.profiles import profile_for
from protocol.solver.search import screen

SOLVER_NODES = 200_000  # the node budget per candidate (the server's --certify default)
CERTIFY_BUDGET_S = 300.0  # the server's default time budget for a day's choice, in seconds


def max_candidates(game: str) -> int:
    """How many of the day's candidates ``game`` tries before an uncertified deal."""
    return game_entry(game).profile.certify_candidates


def first_nodes(game: str) -> int:
    """The node budget per candidate of ``game``'s first widening round."""
    return game_entry(game).profile.certify_first_nodes


def solve_deal(
    game: str, number: int, nodes: int, stop: Callable[[], bool] | None = None
) -> Solution:
    """The solver's verdict on deal ``number`` of ``game`` (standard options, wins only)."""
    rules = rules_for(game)
    return solve(rules, rules.deal(number), max_nodes=nodes, should_stop=stop, wins_only=True)


def solver_line(game: str, number: int, nodes: int) -> tuple[str, ...] | None:
    """The solver's winning line for deal ``number`` within ``nodes`` positions (the same
    on every machine: no time limit), or None."""
    solution = solve_deal(game, number, nodes)
    return solution.actions if solution.verdict == WON else None


def certified_choice(
    game: str,
    candidates: Sequence[int],
    nodes: int = SOLVER_NODES,
    should_stop: Callable[[], bool] | None = None,
    attempt: Attempt | None = None,
) -> Certified | Uncertified:
    """The first of ``candidates`` the certification proves winnable within ``nodes``
    positions each (``Certified``), or ``Uncertified``; ``should_stop`` ends the search
    early (the server's time budget), ``attempt`` stands in for the solver (tests)."""
    rules = rules_for(game)

    def real(number: int, budget: int, stop: Callable[[], bool] | None) -> Solution:
        return solve_deal(game, number, budget, should_stop)

    def look(number: int) -> tuple[int, int]:
        return screen(rules, rules.deal(number))

    screened = attempt is None and profile_for(rules).screen_width is not None
    return first_certified(
        rules,
        candidates,
        first_nodes=min(first_nodes(game), nodes),
        growth=GROWTH,
        max_nodes=nodes,
        should_stop=should_stop,
        attempt=attempt or real,
        screen=look if screened else None,
    )
