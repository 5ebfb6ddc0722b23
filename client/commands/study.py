"""``solrace study GAME``: solve a range of deals with one fixed budget each and print the
share won, proven unwinnable and unknown, with times and solution lengths.

Deals are solved in ``--jobs`` worker processes; each deal's time is measured in its
worker, from the layout to the verdict. ``--json`` adds one row per deal.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time
from collections.abc import Iterator
from typing import Any

from client.commands.common import add_game_arguments, deal_number, rules_from
from client.commands.solve import add_budget_arguments, positive_int, timed_solve
from protocol.games import rules_for
from protocol.solver import UNKNOWN, UNWINNABLE, VERDICTS, WON

DEFAULT_NODES = 200_000
DEFAULT_SECONDS = 30.0

Task = tuple[str, dict[str, Any], int, int, float]


def configure(parser: argparse.ArgumentParser) -> None:
    add_game_arguments(parser)
    parser.add_argument("--first", default="1", metavar="N", help="first deal number (default 1)")
    parser.add_argument(
        "--count", type=positive_int, default=200, metavar="C", help="deals (default 200)"
    )
    add_budget_arguments(parser, DEFAULT_NODES, DEFAULT_SECONDS)
    parser.add_argument(
        "--jobs", type=positive_int, default=2, metavar="J", help="worker processes (default 2)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON, with a row per deal")
    parser.add_argument(
        "--save", metavar="FILE", help="also write the JSON, with a row per deal, to FILE"
    )


def solve_deal(task: Task) -> dict[str, Any]:
    """One deal's row: number, verdict, solution length, nodes and seconds."""
    game, options, number, nodes, seconds = task
    solution, spent = timed_solve(rules_for(game, options), number, nodes, seconds)
    return {
        "number": number,
        "verdict": solution.verdict,
        "length": len(solution.actions),
        "nodes": solution.nodes,
        "seconds": round(spent, 4),
    }


def solve_all(tasks: list[Task], jobs: int) -> Iterator[dict[str, Any]]:
    if jobs == 1 or len(tasks) == 1:
        yield from map(solve_deal, tasks)
        return
    with multiprocessing.Pool(min(jobs, len(tasks))) as pool:
        yield from pool.imap(solve_deal, tasks, chunksize=1)


def percentile_95(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def tally(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The study's figures from its rows."""
    times = [row["seconds"] for row in rows]
    lengths = [row["length"] for row in rows if row["verdict"] == WON]
    counts = {verdict: sum(row["verdict"] == verdict for row in rows) for verdict in VERDICTS}
    return {
        "deals": len(rows),
        "counts": counts,
        "shares": {v: round(counts[v] / len(rows), 4) if rows else 0.0 for v in VERDICTS},
        "median_seconds": round(statistics.median(times), 3) if times else 0.0,
        "p95_seconds": round(percentile_95(times), 3),
        "median_length": statistics.median(lengths) if lengths else None,
        "nodes": sum(row["nodes"] for row in rows),
    }


def run(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    first = deal_number(args.first)
    last = deal_number(str(first + args.count - 1))
    tasks: list[Task] = [
        (rules.name, dict(rules.options), number, args.nodes, args.seconds)
        for number in range(first, last + 1)
    ]
    started = time.perf_counter()
    rows = list(solve_all(tasks, args.jobs))
    wall = time.perf_counter() - started
    figures = tally(rows)
    header = {
        "game": rules.name,
        "options": rules.options,
        "first": first,
        "last": last,
        "nodes_budget": args.nodes,
        "seconds_budget": args.seconds,
        "jobs": args.jobs,
        "wall_seconds": round(wall, 1),
    }
    report = json.dumps({**header, **figures, "rows": rows})
    if args.save:
        with open(args.save, "w", encoding="utf-8") as handle:
            handle.write(report + "\n")
    if args.json:
        print(report)
        return 0
    print(
        f"{rules.title} ({rules.describe_options()}), deals {first}..{last}, budget "
        f"{args.nodes:,} positions or {args.seconds:g} s per deal, {args.jobs} jobs"
    )
    print(f"{'verdict':<12}{'deals':>7}{'share':>9}")
    for verdict in (WON, UNWINNABLE, UNKNOWN):
        share = figures["shares"][verdict] * 100
        print(f"{verdict:<12}{figures['counts'][verdict]:>7}{share:>8.1f}%")
    print(
        f"seconds per deal: median {figures['median_seconds']:.2f}, "
        f"95th percentile {figures['p95_seconds']:.2f}; wall {wall:.0f} s"
    )
    length = figures["median_length"]
    print(f"median solution length: {'-' if length is None else f'{length:g} actions'}")
    return 0
