"""``solrace bench server [--nodes N] --redis-cluster [HOST:PORT,...]``: what Redis costs per
action on a Redis Cluster, against one Redis, and the ceiling of actions/s each can carry.

One ``solrace serve`` process (``--nodes N``: N of them, one deployment, player i on node
i mod N and every race across two nodes), its players racing in pairs on Sanibel deals as in
``bench server``'s saturation phase (``--saturation-clients`` flat out for
``--saturation-seconds``), first on one Redis of the benchmark's own, then on the cluster
(``--redis-cluster`` without addresses: three primaries of the benchmark's own,
``bench/clustergroup.py``). Redis's CPU is read from each primary's ``INFO cpu``
(``used_cpu_sys`` + ``used_cpu_user``) before and after, and over as long a time idle just
before (the players connected, nothing sent): a cluster node spends CPU on its cluster bus
and its cron whatever the load, and that is taken off, so what is left is what the actions
cost. Every action is written to one shard (a race's keys share one slot), so the CPU per
action per shard is the primaries' CPU summed over the actions; one shard then carries at
most 1 / that many actions a second (a core), and the cluster ``shards`` times as many: the
projected ceiling, printed beside one Redis's. Both Redis shapes keep an append-only file
fsynced every second, as production does.

``--saturation-rounds`` rounds (3 unless told) measure one Redis and the cluster in turns, both
kept up throughout; the figures printed are the round whose CPU ratio is the median, and each
round's ratios are listed with its start and the machine's load average.

Beside the CPU, which moves with the machine's load, the counts that do not: each command's
calls per action per shard (``INFO commandstats`` before and after the phase, the shards'
calls summed over the actions, a script's own commands counted besides its EVALSHA) and the
reads from client sockets per action per shard (``total_reads_processed``: about one per
round trip, the writer's batches and every other call).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.benchplayer import Player, playouts
from bench.benchprocess import (
    SERVE_BANNER,
    cpu_seconds,
    free_port,
    health,
    own_redis,
    raise_open_files,
    serve_command,
    spawn,
)
from bench.clustergroup import PRIMARIES, ClusterGroup
from bench.loadtest import DEALS, PLAYOUT_LENGTH, saturation_phase, solrace_target
from bench.nodebench import Node, connect_players, pair_up, stop_nodes
from bench.rediscli import RedisCli
from bench.reporting import reported

PERSIST = ("--appendonly", "yes", "--appendfsync", "everysec")


@contextmanager
def own_cluster() -> Iterator[str]:
    """Three primaries of the benchmark's own on free ports; their addresses."""
    with tempfile.TemporaryDirectory() as directory:
        ports = [free_port() for _ in range(PRIMARIES)]
        buses = [free_port() for _ in range(PRIMARIES)]
        with ClusterGroup(Path(directory), ports, buses, *PERSIST) as group:
            yield group.addresses


async def redis_cpu(urls: list[str]) -> list[float]:
    """Each Redis's CPU seconds so far (``INFO cpu``: system and user)."""
    infos = await asyncio.gather(*(RedisCli(url).info("cpu") for url in urls))
    return [float(info["used_cpu_sys"]) + float(info["used_cpu_user"]) for info in infos]


async def command_calls(urls: list[str]) -> list[dict[str, int]]:
    """Each Redis's commands so far, by name (``INFO commandstats``' ``calls``; a script's
    own commands are counted under their names besides its EVALSHA), with ``reads`` (its
    ``total_reads_processed``: reads from client sockets, one per round trip that arrives
    in one piece). Counts, unlike CPU, do not move with the machine's load."""
    stats = await asyncio.gather(*(RedisCli(url).info("commandstats") for url in urls))
    reads = await asyncio.gather(*(RedisCli(url).info("stats") for url in urls))
    counted: list[dict[str, int]] = []
    for commands, info in zip(stats, reads, strict=True):
        calls = {
            name.removeprefix("cmdstat_"): int(value.split("calls=", 1)[1].split(",", 1)[0])
            for name, value in commands.items()
            if name.startswith("cmdstat_")
        }
        calls["reads"] = int(info.get("total_reads_processed", 0))
        counted.append(calls)
    return counted


def per_action(
    before: list[dict[str, int]], after: list[dict[str, int]], actions: float
) -> dict[str, float]:
    """Each command's calls per action on the shard that carries it (every action is
    written to one shard: the shards' calls summed over the actions), the counting's own
    (INFO, redis-cli's COMMAND) left out; ``total`` all of them but ``reads``."""
    names = {name for counts in after for name in counts} - {"info", "command", "command|docs"}
    calls = {
        name: sum(a.get(name, 0) - b.get(name, 0) for a, b in zip(after, before, strict=True))
        for name in names
    }
    figures = {name: round(n / max(actions, 1.0), 3) for name, n in sorted(calls.items())}
    figures = {name: share for name, share in figures.items() if share}
    figures["total"] = round(
        sum(n for name, n in calls.items() if name != "reads") / max(actions, 1.0), 3
    )
    return figures


@asynccontextmanager
async def racing(
    options: dict[str, Any], extra: tuple[str, ...]
) -> AsyncIterator[tuple[list[Player], list[int], int]]:
    """``options["nodes"]`` serve processes with ``extra`` options (one deployment), and the
    saturation clients racing in pairs on Sanibel deals; the players, the nodes' process
    ids and how many races have their two racers on two nodes. One node: ``bench server``'s
    own target. Several: player i on node i mod N, players 2k and 2k+1 racing each other,
    so every race is across two nodes (its news heard by the other through Redis)."""
    pool = playouts("sanibel", DEALS, PLAYOUT_LENGTH, seed=7)
    clients, count = options["saturation_clients"], options.get("nodes", 1)
    if count == 1:
        target = {**options, "redis": None, "players": clients}
        async with solrace_target(target, pool, extra) as solrace:
            yield solrace.players, [solrace.process.pid], 0
        return
    raise_open_files(2 * clients + 1024)
    nodes: list[Node] = []
    try:
        for index in range(count):
            port = free_port()
            command = [*serve_command(port, "--rate", "1000000", "--burst", "1000000"), *extra]
            nodes.append(Node(index, port, spawn(command, SERVE_BANNER), ""))
            nodes[-1].name = (await asyncio.to_thread(health, port))["node"]
        players = await connect_players(nodes, clients, "bot")
        across = await pair_up(players, pool)
        await asyncio.sleep(0.5)
        yield list(players), [node.process.pid for node in nodes], across
        await asyncio.gather(*(player.connection.close() for player in players))
    finally:
        stop_nodes(nodes)


async def measured(
    options: dict[str, Any], urls: list[str], extra: tuple[str, ...]
) -> dict[str, Any]:
    """The serve processes on the Redis at ``urls`` (``extra``: their options), saturated."""
    async with racing(options, extra) as (players, pids, across):
        seconds = options["saturation_seconds"]
        idle = await redis_cpu(urls)
        await asyncio.sleep(seconds)
        counted = await command_calls(urls)
        before = await redis_cpu(urls)
        nodes_before = [cpu_seconds(pid) for pid in pids]
        figures = await saturation_phase(players, seconds, pids[0])
        nodes_cpu = [cpu_seconds(pid) - b for pid, b in zip(pids, nodes_before, strict=True)]
        after = await redis_cpu(urls)
        counted_after = await command_calls(urls)
    actions = figures.actions_per_s * seconds
    idle_s = [round(b - i, 3) for b, i in zip(before, idle, strict=True)]
    per_shard = [round(a - b, 3) for a, b in zip(after, before, strict=True)]
    cpu_us = 1e6 * max(sum(per_shard) - sum(idle_s), 0.0) / max(actions, 1.0)
    return {
        "saturation": asdict(figures),
        "redis_cpu_s_per_shard": per_shard,
        "redis_idle_cpu_s_per_shard": idle_s,
        "redis_cpu_us_per_action_per_shard": round(cpu_us, 2),
        "ceiling_actions_per_s": round(len(urls) * 1e6 / cpu_us) if cpu_us else None,
        "commands_per_action_per_shard": per_action(counted, counted_after, actions),
        "node_cpu_pct": [round(100 * cpu / seconds, 1) for cpu in nodes_cpu],
        "races_across_nodes": across,
    }


async def run_cluster(options: dict[str, Any]) -> dict[str, Any]:
    """One Redis, then the cluster (``options["cluster"]``: its addresses, or "start"), in
    turns for ``options["saturation_rounds"]`` rounds (1 when not given), both kept up
    throughout: the figures of the round whose CPU ratio is the median, and every round's
    ratios with its start (UTC) and the machine's load average then (a shared machine's
    load moves the CPU figures by a quarter between runs minutes apart)."""
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    rounds: list[dict[str, Any]] = []
    with own_redis() as redis, cluster_for(options["cluster"]) as addresses:
        urls = [f"redis://{address}/0" for address in addresses.split(",")]
        for index in range(options.get("saturation_rounds", 1)):
            started = time.strftime("%H:%M:%S", time.gmtime())
            load = round(os.getloadavg()[0], 2)
            extra = ("--redis", redis.url, "--redis-prefix", f"{prefix}-{index}:")
            single = await measured(options, [redis.url], extra)
            extra = ("--redis-cluster", addresses, "--redis-prefix", f"{prefix}-{index}:")
            cluster = await measured(options, urls, extra)
            rounds.append(
                {"started": started, "load": load, "one_redis": single, "cluster": cluster}
                | compared(single, cluster)
            )
    middle = sorted(rounds, key=lambda row: row["cpu_per_action_vs_one_redis"])[len(rounds) // 2]
    return {
        "settings": options,
        **middle,
        "rounds": [
            {
                "started": row["started"],
                "load": row["load"],
                "us_per_action_per_shard": [
                    row[shape]["redis_cpu_us_per_action_per_shard"]
                    for shape in ("one_redis", "cluster")
                ],
                "reads_per_action_per_shard": [
                    row[shape]["commands_per_action_per_shard"].get("reads", 0)
                    for shape in ("one_redis", "cluster")
                ],
                "cpu_per_action_vs_one_redis": row["cpu_per_action_vs_one_redis"],
                "ceiling_vs_one_redis": row["ceiling_vs_one_redis"],
            }
            for row in rounds
        ],
    }


def compared(single: dict[str, Any], cluster: dict[str, Any]) -> dict[str, Any]:
    """The cluster's ceiling and its CPU per action per shard against one Redis's."""
    ratio = None
    if single["ceiling_actions_per_s"] and cluster["ceiling_actions_per_s"]:
        ratio = round(cluster["ceiling_actions_per_s"] / single["ceiling_actions_per_s"], 2)
    cpu_ratio = round(
        cluster["redis_cpu_us_per_action_per_shard"]
        / max(single["redis_cpu_us_per_action_per_shard"], 1e-9),
        2,
    )
    return {"ceiling_vs_one_redis": ratio, "cpu_per_action_vs_one_redis": cpu_ratio}


@contextmanager
def cluster_for(given: str) -> Iterator[str]:
    if given != "start":
        yield given
        return
    with own_cluster() as addresses:
        yield addresses


def print_cluster(result: dict[str, Any]) -> None:
    settings = result["settings"]
    count = settings.get("nodes", 1)
    nodes = "one solrace node" if count == 1 else f"{count} solrace nodes, every race across two"
    print(
        f"{nodes}, {settings['saturation_clients']} clients flat out for "
        f"{settings['saturation_seconds']} s; Redis with an append-only file (everysec)"
    )
    print(
        f"{'':12} {'actions/s':>10} {'server CPU':>11} {'Redis CPU per shard, s (idle)':>42} "
        f"{'µs/action/shard':>16} {'ceiling/s':>10}"
    )
    for label, row in (("one Redis", result["one_redis"]), ("cluster", result["cluster"])):
        shards = ", ".join(
            f"{cpu:.2f} ({idle:.2f})"
            for cpu, idle in zip(
                row["redis_cpu_s_per_shard"], row["redis_idle_cpu_s_per_shard"], strict=True
            )
        )
        print(
            f"{label:12} {row['saturation']['actions_per_s']:>10} "
            f"{round(sum(row['node_cpu_pct']), 1):>10}% {shards:>42} "
            f"{row['redis_cpu_us_per_action_per_shard']:>16} "
            f"{row['ceiling_actions_per_s'] or '-':>10}"
        )
    if count > 1:
        for label, row in (("one Redis", result["one_redis"]), ("cluster", result["cluster"])):
            print(
                f"{label}: nodes' CPU {', '.join(f'{pct}%' for pct in row['node_cpu_pct'])}; "
                f"{row['races_across_nodes']} races across two nodes"
            )
    print(
        f"cluster's ceiling vs one Redis: {result['ceiling_vs_one_redis']}x; its CPU per "
        f"action per shard vs one Redis's: {result['cpu_per_action_vs_one_redis']}x"
    )
    print_commands(result["one_redis"], result["cluster"])
    if len(result["rounds"]) > 1:
        print(
            "rounds in turns (the figures above: the median's): start (UTC), load average, "
            "µs/action/shard one Redis / cluster, CPU ratio, ceiling ratio, reads per action "
            "per shard one Redis / cluster"
        )
        for row in result["rounds"]:
            one, many = row["us_per_action_per_shard"]
            reads = row["reads_per_action_per_shard"]
            print(
                f"  {row['started']}  {row['load']:>5}  {one:>6} / {many:<6}  "
                f"{row['cpu_per_action_vs_one_redis']}x  {row['ceiling_vs_one_redis']}x  "
                f"{reads[0]} / {reads[1]}"
            )


def print_commands(single: dict[str, Any], cluster: dict[str, Any]) -> None:
    """Commands per action per shard by name, one Redis beside the cluster (``reads``:
    reads from client sockets, about one per round trip)."""
    one, many = single["commands_per_action_per_shard"], cluster["commands_per_action_per_shard"]
    print(f"commands per action per shard {'one Redis':>12} {'cluster':>10}")
    names = sorted(set(one) | set(many), key=lambda name: (name in ("reads", "total"), name))
    for name in names:
        label = "reads (round trips)" if name == "reads" else name
        print(f"{label:29} {one.get(name, 0):>12} {many.get(name, 0):>10}")


def run_command(args: argparse.Namespace) -> int:
    """``solrace bench server --redis-cluster``: run, then print the figures."""
    if args.saturation_clients < 2 or args.saturation_clients % 2:
        raise SystemExit("error: --saturation-clients must be even and at least 2")
    nodes = 1 if args.nodes is None else args.nodes
    if nodes < 1 or nodes > args.saturation_clients:
        raise SystemExit("error: --nodes must be at least 1 and at most --saturation-clients")
    options = {
        "nodes": nodes,
        "saturation_clients": args.saturation_clients,
        "saturation_seconds": args.saturation_seconds,
        "saturation_rounds": args.saturation_rounds,
        "cluster": args.redis_cluster,
    }
    return reported(asyncio.run(run_cluster(options)), args.json, print_cluster)
