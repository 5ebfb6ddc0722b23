"""``solrace bench failover``'s options and its run (the benchmark is bench/failoverbench.py,
imported only when it runs)."""

from __future__ import annotations

import argparse
import asyncio

from bench.reporting import reported


def configure(parser: argparse.ArgumentParser) -> None:
    failover = parser.add_argument_group("failover")
    failover.add_argument("--runs", type=int, default=10, help="primaries killed, one a run")
    failover.add_argument("--pairs", type=int, default=5, help="races of two racers, one node")
    failover.add_argument(
        "--wait-replicas", type=int, default=1, help="the node's --redis-wait-replicas"
    )


def run_failover(args: argparse.Namespace) -> int:
    from bench.failoverbench import print_result, run_failover

    if args.runs < 1 or args.pairs < 1 or args.wait_replicas < 0:
        raise SystemExit("error: --runs and --pairs must be at least 1, --wait-replicas 0 or more")
    options = {"runs": args.runs, "racers": 2 * args.pairs, "wait_replicas": args.wait_replicas}
    return reported(asyncio.run(run_failover(options)), args.json, print_result)
