"""``solrace bench engine|solver|server|memory|soak|recovery|failover|storage|idle|pairing|
arena-pairing|arena|argon2|signin|spectators|farm|fairplay|redis-clients``: benchmarks that print
figures (never timed tests). The server benchmark lives in bench/loadtest.py (its run in
bench/servercommand.py; ``--nodes``: bench/nodebench.py), the engine and solver ones in
bench/enginebench.py, the memory one in bench/memorybench.py; soak, recovery, failover, idle,
pairing, arena-pairing, arena, spectators, farm and fairplay in
bench/{soak,recovery,failover,...}bench.py; storage and argon2 (the server's parts through
their public faces) in bench/{storage,argon2}bench.py; redis-clients (the store's own
hiredis client against redis-py) in server/store/redis_clients_bench.py."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable

from bench.enginebench import measure_engine, measure_solver
from bench.failoveroptions import configure as failover_options
from bench.failoveroptions import run_failover
from bench.fairplaycommand import fairplay_options, run_fairplay
from bench.servercommand import run_server
from protocol.games import GAMES, rules_for


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        choices=["engine", "solver", *RUNNERS],
        help="what to measure",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="time per game (engine, solver: 3), per paced phase (server: 15), of the "
        "players' arrivals (pairing: 60) or of the racing watched (spectators: 15)",
    )
    server = parser.add_argument_group("server, soak, pairing")
    server.add_argument(
        "--players",
        type=int,
        default=None,
        help="connected players (server: 2000, soak: 200), players arriving (pairing: 2000), "
        "or honest players (fairplay: 100)",
    )
    server.add_argument(
        "--redis",
        nargs="?",
        const="start",
        default=None,
        metavar="URL",
        help="keep solrace's state in Redis (at URL; without one, a redis-server of the "
        "benchmark's own, append-only file fsynced every second); server: the paced rounds "
        "also time an echo that stores every request there before answering it",
    )
    server.add_argument(
        "--redis-cluster",
        nargs="?",
        const="start",
        default=None,
        metavar="HOST:PORT,...",
        help="server: Redis CPU per action per shard and the projected ceiling on a Redis "
        "Cluster (these nodes; none: 3 primaries of its own) against one Redis (clusterbench)",
    )
    server.add_argument(
        "--rate",
        type=float,
        default=None,
        help="actions per second in all (server: 4000, soak: 450, spectators: 4 in the race)",
    )
    server.add_argument(
        "--saturation-clients",
        type=int,
        default=200,
        help="clients sending flat out in the saturation phase",
    )
    server.add_argument(
        "--saturation-seconds", type=float, default=5.0, help="each round, for each server"
    )
    server.add_argument(
        "--saturation-rounds",
        type=int,
        default=3,
        help="rounds of saturation, alternating between the echo and solrace "
        "(--redis-cluster: between one Redis and the cluster)",
    )
    server.add_argument(
        "--spectators",
        type=int,
        default=1000,
        help="spectators on one race in the last phase (0: skip it), or watching (spectators)",
    )
    nodes = parser.add_argument_group("server --nodes, spectators")
    nodes.add_argument(
        "--nodes",
        type=int,
        default=None,
        help="server: N >= 2 nodes on one Redis, every race across two of them, against one "
        "node in the same run (the other phases are not run); with --redis-cluster: N >= 1 "
        "nodes saturated, every race across two (1 by default); spectators: 1 or 2 (2)",
    )
    nodes.add_argument(
        "--cores",
        type=int,
        nargs="+",
        default=[2, 4, 8, 16],
        help="server --nodes: cores to project the measured CPU per action to",
    )
    soak = parser.add_argument_group("soak, arena")
    soak.add_argument("--minutes", type=float, default=10.0, help="how long the players race")
    soak.add_argument("--watchers", type=int, default=5000, help="arena: its watchers")
    soak.add_argument(
        "--race-actions",
        type=int,
        default=200,
        help="actions a racer plays before resigning, on average (half the racers play a win)",
    )
    soak.add_argument("--every", type=float, default=30.0, help="seconds between RSS readings")
    soak.add_argument(
        "--mix",
        action="store_true",
        help="also short-lived guests playing the daily, spectators and rematches",
    )
    recovery = parser.add_argument_group("recovery")
    recovery.add_argument("--racers", type=int, default=1000, help="racers, in races of two")
    recovery.add_argument(
        "--actions-before", type=int, default=20, help="actions each racer plays before the kill"
    )
    recovery.add_argument(
        "--concurrency", type=int, default=100, help="connections opened at a time"
    )
    failover_options(parser)
    idle = parser.add_argument_group("idle")
    idle.add_argument("--connections", type=int, default=10_000, help="idle connected players")
    idle.add_argument(
        "--wait", type=float, default=10.0, help="seconds between the last hello and the reading"
    )
    memory = parser.add_argument_group("memory, storage")
    memory.add_argument(
        "--races",
        type=int,
        default=None,
        help="memory: live races of two racers, per game (10); storage: races, identities and "
        "board entries of each kind (1000)",
    )
    memory.add_argument("--actions", type=int, default=1000, help="actions tried per racer")
    memory.add_argument(
        "--settle-s",
        type=float,
        default=3.0,
        help="storage: seconds Redis is left idle before each memory reading (3: Redis frees "
        "a query buffer idle for 2 s; 0 when only the keys matter)",
    )
    memory.add_argument(
        "--undo-share",
        type=float,
        default=0.1,
        help="how often a racer undoes when it may (always when nothing else is legal)",
    )
    pairing = parser.add_argument_group("pairing")
    pairing.add_argument(
        "--tick-ms", type=int, default=250, help="simulated ms between pairings of the pools"
    )
    signin = parser.add_argument_group("signin")
    signin.add_argument("--sign-ins", type=float, default=20.0, help="sign-ins per second")
    signin.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="signin: phases alone and with sign-ins; server: paced phases, alternating "
        "between the echo and solrace (the median round reported); server --nodes: 1 node "
        "then N nodes",
    )
    argon2 = parser.add_argument_group("argon2")
    argon2.add_argument("--repeat", type=int, default=10, help="verifies (arena-pairing: waves)")
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--seed", type=int, default=1, help="seed of the random playouts")
    clients = parser.add_argument_group("redis-clients")
    clients.add_argument("--batches", type=int, default=2000, help="batches per size and client")
    clients.add_argument(
        "--messages", type=int, default=100_000, help="messages published per client"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fairplay: a few players at a fiftieth of a person's pace (for its test); "
        "farm: a smaller search and honest field; arena-pairing: no one-graph waves",
    )
    fairplay_options(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    if args.target in RUNNERS:
        return RUNNERS[args.target](args)
    if args.seconds is None:
        args.seconds = 3.0
    if args.target == "solver":
        return run_solver(args)
    figures = {
        game: measure_engine(rules_for(game), args.seconds, args.seed) for game in args.games
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{'game':22} {'actions applied/s':>18} {'enumerations/s':>15}")
        for game, row in figures.items():
            print(f"{game:22} {row['apply_per_s']:>18,} {row['enumerate_per_s']:>15,}")
    return 0


def run_solver(args: argparse.Namespace) -> int:
    figures = {game: measure_solver(rules_for(game), args.seconds) for game in args.games}
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{'game':22} {'positions/s':>12} {'deals won/tried':>16}")
        for game, row in figures.items():
            tried = f"{row['won']}/{row['deals']}"
            print(f"{game:22} {row['positions_per_s']:>12,} {tried:>16}")
    return 0


def run_memory(args: argparse.Namespace) -> int:
    from bench.memorybench import measure, print_table

    args.races = 10 if args.races is None else args.races
    if args.races < 1 or args.actions < 1 or not 0 <= args.undo_share <= 1:
        raise SystemExit("error: --races and --actions must be at least 1, --undo-share 0 to 1")
    figures = [
        measure(game, args.races, args.actions, args.seed, args.undo_share) for game in args.games
    ]
    if args.json:
        print(json.dumps({row.game: row.as_dict() for row in figures}))
    else:
        print_table(figures)
    return 0


def run_soak(args: argparse.Namespace) -> int:
    from bench.soakbench import print_summary, run_soak

    options = {
        "minutes": args.minutes,
        "rate": 450.0 if args.rate is None else args.rate,
        "players": 200 if args.players is None else args.players,
        "race_actions": args.race_actions,
        "every_s": args.every,
        "mix": args.mix,
        "redis": args.redis,
        "seed": args.seed,
        "json": args.json,
    }
    if options["players"] < 2 or options["players"] % 2 or options["rate"] <= 0:
        raise SystemExit("error: --players must be even and at least 2, --rate above 0")
    if args.minutes <= 0 or args.every <= 0 or args.race_actions < 2:
        raise SystemExit("error: --minutes and --every above 0, --race-actions at least 2")
    result = asyncio.run(run_soak(options))
    if args.json:
        print(json.dumps(result))
    else:
        print_summary(result)
    return 0


def run_recovery(args: argparse.Namespace) -> int:
    from bench.recoverybench import print_result, run_recovery

    if args.racers < 2 or args.racers % 2 or args.actions_before < 1 or args.concurrency < 1:
        raise SystemExit(
            "error: --racers must be even and at least 2, --actions-before and "
            "--concurrency at least 1"
        )
    options = {
        "racers": args.racers,
        "actions_before": args.actions_before,
        "concurrency": args.concurrency,
    }
    result = asyncio.run(run_recovery(options))
    if args.json:
        print(json.dumps(result))
    else:
        print_result(result)
    return 0


def run_storage(args: argparse.Namespace) -> int:
    from bench.benchprocess import own_redis
    from bench.storagebench import print_table, run_storage

    races = 1000 if args.races is None else args.races
    if races < 1:
        raise SystemExit("error: --races must be at least 1")
    with own_redis(persist=False) as redis:  # a fresh redis-server, nothing on disk
        options = {"races": races, "seed": args.seed, "settle_s": max(0.0, args.settle_s)}
        result = asyncio.run(run_storage(options, redis.url))
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


def run_redis_clients(args: argparse.Namespace) -> int:
    """The store's own hiredis connections against redis-py, side by side."""
    from bench.benchprocess import own_redis
    from server.store.redis_clients_bench import print_table, run_clients

    if args.batches < 10 or args.messages < 1:
        raise SystemExit("error: --batches must be at least 10, --messages at least 1")
    with own_redis(persist=False) as redis:
        result = asyncio.run(run_clients(redis.url, args.batches, args.messages))
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


def run_idle(args: argparse.Namespace) -> int:
    from bench.idlebench import print_result, run_idle

    if args.connections < 1 or args.wait < 0:
        raise SystemExit("error: --connections must be at least 1, --wait at least 0")
    result = asyncio.run(run_idle({"connections": args.connections, "wait_s": args.wait}))
    print(json.dumps(result)) if args.json else print_result(result)
    return 0


def run_pairing(args: argparse.Namespace) -> int:
    from bench.pairingbench import print_table, run_pairing

    options = {
        "players": 2000 if args.players is None else args.players,
        "seconds": 60.0 if args.seconds is None else args.seconds,
        "tick_ms": args.tick_ms,
        "games": args.games,
        "seed": args.seed,
    }
    if options["players"] < 1 or options["seconds"] <= 0 or args.tick_ms < 1:
        raise SystemExit("error: --players and --tick-ms must be at least 1, --seconds above 0")
    result = run_pairing(options)
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


def run_arena_pairing(args: argparse.Namespace) -> int:
    """Arena pairing waves of a whole field idle at once (``--players``, 1,000), pure."""
    from bench.arenapairingbench import print_table, run_arena_pairing

    players = 1000 if args.players is None else args.players
    if players < 8 or args.repeat < 1:
        raise SystemExit("error: --players must be at least 8, --repeat at least 1")
    rows = run_arena_pairing(players, args.repeat, 0 if args.quick else 2, args.seed)
    print(json.dumps(rows)) if args.json else print_table(rows)
    return 0


def run_arena(args: argparse.Namespace) -> int:
    """One arena on real nodes: pairing waves, standings pushed, watchers, CPU per heat."""
    from bench.arenabench import run_from_args

    return run_from_args(args)


def run_argon2(args: argparse.Namespace) -> int:
    from bench.argon2bench import print_table, run_argon2

    if args.repeat < 1:
        raise SystemExit("error: --repeat must be at least 1")
    rows = run_argon2(args.repeat)
    print(json.dumps(rows)) if args.json else print_table(rows)
    return 0


def run_signin(args: argparse.Namespace) -> int:
    from bench.signinbench import print_signin, run_signin_bench

    options = {
        "players": 2000 if args.players is None else args.players,
        "rate": 4000 if args.rate is None else args.rate,
        "seconds": args.seconds or 15.0,
        "sign_ins": args.sign_ins,
        "rounds": args.rounds,
    }
    result = asyncio.run(run_signin_bench(options))
    if args.json:
        print(json.dumps(result))
    else:
        print_signin(result)
    return 0


def run_spectators(args: argparse.Namespace) -> int:
    from bench.spectatorbench import run_spectators
    from bench.spectatorreport import print_spectators

    options = {
        "nodes": 2 if args.nodes is None else args.nodes,
        "spectators": args.spectators,
        "rate": 4.0 if args.rate is None else args.rate,
        "seconds": 15.0 if args.seconds is None else args.seconds,
        "redis": args.redis,
    }
    if options["nodes"] not in (1, 2) or args.spectators < 1:
        raise SystemExit("error: --nodes must be 1 or 2, --spectators at least 1")
    if options["rate"] <= 0 or options["seconds"] <= 0:
        raise SystemExit("error: --rate and --seconds must be above 0")
    result = asyncio.run(run_spectators(options))
    if args.json:
        print(json.dumps(result))
    else:
        print_spectators(result)
    return 0


def run_farm(args: argparse.Namespace) -> int:
    """Rating farms for a day and day by day (one main account and second accounts), and
    what the farming guards cost a field of honest players."""
    from bench.farmbench import print_farm

    print_farm(args.quick, args.seed)
    return 0


RUNNERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "server": run_server,
    "memory": run_memory,
    "soak": run_soak,
    "recovery": run_recovery,
    "failover": run_failover,
    "storage": run_storage,
    "redis-clients": run_redis_clients,
    "idle": run_idle,
    "pairing": run_pairing,
    "arena-pairing": run_arena_pairing,
    "arena": run_arena,
    "argon2": run_argon2,
    "signin": run_signin,
    "spectators": run_spectators,
    "farm": run_farm,
    "fairplay": run_fairplay,
}
