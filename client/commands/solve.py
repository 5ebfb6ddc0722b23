"""``solrace solve GAME NUMBER``: find a win for a deal, prove it has none, or give up when
the budget runs out.

The winning actions go to standard output one per line, ready for ``solrace replay``; a
one-line summary goes to standard error. Exit status: 0 won, 1 proven unwinnable,
3 unknown (budget spent), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from client.commands.common import add_game_arguments, deal_number, rules_from
from protocol.engine import Rules
from protocol.solver import UNWINNABLE, WON, Solution, solve

DEFAULT_NODES = 1_000_000
DEFAULT_SECONDS = 60.0
EXIT_STATUS = {WON: 0, UNWINNABLE: 1}
UNKNOWN_STATUS = 3


def add_budget_arguments(parser: argparse.ArgumentParser, nodes: int, seconds: float) -> None:
    parser.add_argument(
        "--nodes",
        type=positive_int,
        default=nodes,
        metavar="N",
        help=f"give up after generating N positions (default {nodes:,})",
    )
    parser.add_argument(
        "--seconds",
        type=positive_float,
        default=seconds,
        metavar="S",
        help=f"give up after S seconds (default {seconds:g})",
    )


def configure(parser: argparse.ArgumentParser) -> None:
    add_game_arguments(parser)
    parser.add_argument("number", metavar="NUMBER", help="the deal number")
    add_budget_arguments(parser, DEFAULT_NODES, DEFAULT_SECONDS)
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"verdict", "actions", "nodes", "seconds"} instead of the actions',
    )


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:24]!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:24]!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def deadline(seconds: float) -> Callable[[], bool]:
    """A ``should_stop`` for the solver: true once ``seconds`` have passed."""
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


def timed_solve(rules: Rules, number: int, nodes: int, seconds: float) -> tuple[Solution, float]:
    """Solve deal ``number`` within the budget; the solution and the seconds it took."""
    start = time.perf_counter()
    solution = solve(rules, rules.deal(number), max_nodes=nodes, should_stop=deadline(seconds))
    return solution, time.perf_counter() - start


def run(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    number = deal_number(args.number)
    solution, seconds = timed_solve(rules, number, args.nodes, args.seconds)
    if args.json:
        print(
            json.dumps(
                {
                    "verdict": solution.verdict,
                    "actions": list(solution.actions),
                    "nodes": solution.nodes,
                    "seconds": round(seconds, 3),
                }
            )
        )
    else:
        for action in solution.actions:
            print(action)
        print(summary(solution, seconds), file=sys.stderr)
    return EXIT_STATUS.get(solution.verdict, UNKNOWN_STATUS)


def summary(solution: Solution, seconds: float) -> str:
    spent = f"{solution.nodes:,} positions, {seconds:.2f} s"
    if solution.verdict == WON:
        return f"won in {len(solution.actions)} actions ({spent})"
    if solution.verdict == UNWINNABLE:
        return f"unwinnable: every reachable position searched ({spent})"
    return f"unknown: the budget ran out before a win or a proof ({spent})"
