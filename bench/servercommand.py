"""``solrace bench server``'s run: one node (bench/loadtest.py), ``--nodes N``
(bench/nodebench.py) or ``--redis-cluster`` (bench/clusterbench.py), after the options'
checks."""

from __future__ import annotations

import argparse
import asyncio

from bench.reporting import reported


def run_server(args: argparse.Namespace) -> int:
    from bench.loadtest import run_bench
    from bench.serverreport import print_table

    args.players = 2000 if args.players is None else args.players
    args.rate = 4000 if args.rate is None else args.rate
    if args.redis_cluster is not None:
        from bench.clusterbench import run_command

        return run_command(args)
    if args.nodes is not None:
        return run_server_nodes(args)
    options = {
        "players": args.players,
        "rate": args.rate,
        "seconds": args.seconds or 15.0,
        "saturation_clients": args.saturation_clients,
        "saturation_seconds": args.saturation_seconds,
        "rounds": args.rounds,
        "saturation_rounds": args.saturation_rounds,
        "spectators": args.spectators,
        "redis": args.redis,
    }
    if args.players < 2 or args.players % 2 or args.saturation_clients > args.players:
        raise SystemExit("error: --players must be even, and at least --saturation-clients")
    if args.saturation_rounds < 1 or args.rounds < 1:
        raise SystemExit("error: --rounds and --saturation-rounds must be at least 1")
    return reported(asyncio.run(run_bench(options)), args.json, print_table)


def run_server_nodes(args: argparse.Namespace) -> int:
    from bench.nodebench import run_nodes
    from bench.nodereport import print_nodes

    if args.nodes < 2:
        raise SystemExit("error: --nodes must be at least 2 (one node is measured in the run)")
    if args.players < 2 or args.players % 2 or args.rate <= 0 or args.rounds < 1:
        raise SystemExit("error: --players even and at least 2, --rate above 0, --rounds >= 1")
    if not args.cores or min(args.cores) < 1:
        raise SystemExit("error: --cores must be at least 1")
    options = {
        "nodes": args.nodes,
        "players": args.players,
        "rate": args.rate,
        "seconds": args.seconds or 15.0,
        "rounds": args.rounds,
        "cores": args.cores,
        "redis": args.redis,
    }
    return reported(asyncio.run(run_nodes(options)), args.json, print_nodes)
