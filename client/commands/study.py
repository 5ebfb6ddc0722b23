"""``solrace study GAME``: solve a range of deals with one fixed budget each and print the
share won, proven unwinnable and unknown, with times and solution lengths.

Deals are solved in ``--jobs`` worker processes; each deal's time is measured in its
worker, from the layout to the verdict. ``--json`` adds one row per deal.

``solrace study --dailies D [--first-day YYYY-MM-DD] [--games ...]``: for D consecutive
days and each game, the server's own daily certification (``server.desks.daily``'s candidates,
function and budgets, with the fixed secret STUDY_SECRET), run in this process on one
core; per game: days certified, the median, 95th percentile and maximum seconds per day,
and the candidates tried (each day's row goes to standard error as it is done). The time
budget and the seconds are this process's CPU time (the server's budget is wall time in a
worker process of its own): on a shared machine, the figures are those of a core of its
own.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

from client.commands.common import deal_number, rules_from
from client.commands.solve import add_budget_arguments, positive_int, timed_solve
from protocol.daily import DAY_MS, candidate_deals, day_start_ms, parse_day
from protocol.daily_choice import (
    CERTIFY_BUDGET_S,
    SOLVER_NODES,
    certified_choice,
    max_candidates,
)
from protocol.errors import BadGame
from protocol.games import GAMES, rules_for
from protocol.solver import UNKNOWN, UNWINNABLE, VERDICTS, WON
from protocol.solver.certify import Certified

DEFAULT_NODES = 200_000
DEFAULT_SECONDS = 30.0

Task = tuple[str, dict[str, Any], int, int, float]


# The secret the daily study stands in for a deployment's (any fixed one gives a fair
# sample of days: the candidates are a hash of secret, game and day).
STUDY_SECRET = "solrace-study-dailies"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "game", metavar="GAME", nargs="?", help=f"one of: {', '.join(GAMES)} (not with --dailies)"
    )
    parser.add_argument(
        "--options",
        default="{}",
        metavar="JSON",
        help='game options as a JSON object, e.g. \'{"down": 0, "up": 10}\' for Sanibel',
    )
    parser.add_argument(
        "--dailies",
        type=positive_int,
        metavar="D",
        help="instead: certify D consecutive days' deals as the server does, on one core",
    )
    parser.add_argument(
        "--first-day", metavar="YYYY-MM-DD", help="with --dailies: the first day (default today)"
    )
    parser.add_argument(
        "--games",
        nargs="+",
        choices=list(GAMES),
        metavar="GAME",
        help="with --dailies: the games (default all)",
    )
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
    if args.dailies is not None:
        return run_dailies(args)
    if args.game is None:
        raise BadGame("study needs a GAME (or --dailies)", "bad_game")
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


def certify_day(game: str, day: str) -> dict[str, Any]:
    """One day's certification of ``game``, exactly as the server's worker runs it (its
    candidates, function and budgets), timed here: the day's row."""
    candidates = list(
        itertools.islice(candidate_deals(game, day, STUDY_SECRET), max_candidates(game))
    )
    started, cpu_started = time.perf_counter(), time.process_time()
    deadline = cpu_started + CERTIFY_BUDGET_S  # a core of its own, whatever else runs

    def out_of_time() -> bool:
        return time.process_time() >= deadline

    result = certified_choice(game, candidates, SOLVER_NODES, out_of_time)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    certified = isinstance(result, Certified)
    return {
        "day": day,
        "certified": certified,
        "deal": result.number if isinstance(result, Certified) else candidates[0],
        "round": result.round if isinstance(result, Certified) else None,
        "tried": result.tried,
        "nodes": result.nodes,
        "seconds": round(cpu, 3),
        "wall_seconds": round(seconds, 3),
    }


def daily_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per game: days certified, CPU seconds per day (median, 95th percentile, maximum;
    and the 95th percentile of the wall time) and candidates tried (median, maximum)."""
    times = [row["seconds"] for row in rows]
    wall = [row["wall_seconds"] for row in rows]
    tried = [row["tried"] for row in rows]
    return {
        "days": len(rows),
        "certified": sum(row["certified"] for row in rows),
        "median_seconds": round(statistics.median(times), 2),
        "p95_seconds": round(percentile_95(times), 2),
        "max_seconds": round(max(times), 2),
        "p95_wall_seconds": round(percentile_95(wall), 2),
        "median_tried": statistics.median(tried),
        "max_tried": max(tried),
    }


def run_dailies(args: argparse.Namespace) -> int:
    if args.game is not None:
        raise BadGame("--dailies takes --games, not a GAME", "bad_game")
    if args.first_day is None:
        first_ms = int(time.time() * 1000) // DAY_MS * DAY_MS
    else:
        first_ms = day_start_ms(parse_day(args.first_day))
    days = [
        dt.datetime.fromtimestamp((first_ms + i * DAY_MS) / 1000, dt.UTC).date().isoformat()
        for i in range(args.dailies)
    ]
    games = list(dict.fromkeys(args.games or GAMES))
    results = {}
    for game in games:
        rows = []
        for day in days:
            rows.append(certify_day(game, day))
            print(json.dumps({"game": game, **rows[-1]}), file=sys.stderr, flush=True)
        results[game] = {**daily_figures(rows), "rows": rows}
    report = {
        "first_day": days[0],
        "last_day": days[-1],
        "secret": STUDY_SECRET,
        "nodes_per_candidate": SOLVER_NODES,
        "budget_s": CERTIFY_BUDGET_S,
        "games": results,
    }
    if args.save:
        with open(args.save, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(report) + "\n")
    if args.json:
        print(json.dumps(report))
        return 0
    print(
        f"daily certification, {days[0]}..{days[-1]} ({len(days)} days), secret "
        f"{STUDY_SECRET!r}, up to {SOLVER_NODES:,} positions per candidate, "
        f"{CERTIFY_BUDGET_S:g} s of this process's CPU per day (seconds: CPU)"
    )
    print(
        f"{'game':<22}{'certified':>10}{'median s':>10}{'p95 s':>8}{'max s':>8}"
        f"{'wall p95':>10}{'tried: median':>15}{'max':>6}"
    )
    for game, figures in results.items():
        certified = f"{figures['certified']}/{figures['days']}"
        print(
            f"{game:<22}{certified:>10}{figures['median_seconds']:>10.2f}"
            f"{figures['p95_seconds']:>8.2f}{figures['max_seconds']:>8.2f}"
            f"{figures['p95_wall_seconds']:>10.2f}"
            f"{figures['median_tried']:>15g}{figures['max_tried']:>6}"
        )
    return 0
