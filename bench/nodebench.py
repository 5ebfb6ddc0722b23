"""``solrace bench server --nodes N``: what it costs to spread races over N nodes.

N real ``solrace serve`` processes share one Redis (a redis-server of the command's own,
append-only file fsynced every second as in production, unless ``--redis URL``), all with
one key prefix: one deployment. Three sets of ``players`` players stay connected for the
whole run, each idle while another is measured:

- **one node**: every player on node 1, raced in pairs there;
- **N nodes**: players dealt round-robin over the nodes, raced in pairs of neighbours,
  so each race's two racers are on two different nodes (checked by the node each
  ``welcome`` names). Every action is then applied on two nodes: its racer's, which stores
  it and answers, and the other racer's, which hears of it on the race's channel, reads it
  from the log and applies it (standings, spectators);
- **N nodes, within**: a third set dealt round-robin like the second, but raced in pairs
  of players on the same node: the same load on the same N processes, no traffic between
  nodes. It splits the N-node cost in two: spreading the load over N processes (each at
  1/N of it: fewer actions per loop turn and per Redis round trip, one more process's own
  upkeep), and races across nodes on top of that.

All sets play the paced load of ``solrace bench server``'s first phase (each player acts
every players/rate seconds at a random phase, waiting for each answer; Sanibel playouts
computed beforehand, every action legal), one node, N nodes, then N nodes within, for
``rounds`` rounds, so a machine whose speed drifts weighs on all alike. Over each phase,
after a warm-up: the act round trips, the actions answered by each node, every node
process's CPU (its CPU-time clock), Redis's own CPU (``INFO cpu``: used_cpu_sys +
used_cpu_user) and the load generator's. Before each round, every node's CPU with every
player idle (its upkeep: the ticker over the races it holds, its connections' pings, its
duties), over as long as the warm-up: beside each phase's CPU, what is above what its
serving nodes would have spent idle meanwhile (as ``bench server --redis-cluster`` takes
Redis's idle CPU off), and its ratio; the target stays on the whole CPU. Then one more
phase with only node 1's racers of the N-node set acting (at the same pace): node 1's CPU
is what acting costs, the other nodes' what following costs. After the run each node's
own count of answered actions (its /metrics ``solrace_act_seconds_count``) is compared
with what the players counted.

The projection to more cores is arithmetic on these measurements, not a measurement.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict, dataclass
from operator import attrgetter
from typing import Any

from bench.benchplayer import Listener, connect_many, own_cpu_seconds, playouts
from bench.benchprocess import (
    SERVE_BANNER,
    cpu_seconds,
    free_port,
    health,
    metric_samples,
    own_redis,
    raise_open_files,
    serve_command,
    spawn,
)
from bench.loadtest import DEALS, PLAYOUT_LENGTH, paced
from bench.rediscli import RedisCli

SUBPROTOCOL = "solrace.v1.msgpack"
CPU_TARGET = 1.2  # CPU per 1,000 actions with 2 nodes, at most this times one node's
P99_TARGET = 1.5  # paced p99 with 2 nodes, at most this times one node's
# Requests sent at a time while setting up: each waits on Redis, and a node keeps at most
# 100 connections to it (more requests wait for one)
HELLO_BATCH = 50
IDLE_SETTLE_S = 0.5  # before each idle reading: the last phase's answers and writes land
SETUP_BATCH = 25  # races created (and joined) at a time


@dataclass
class Node:
    index: int  # 0-based; printed from 1
    port: int
    process: subprocess.Popen[str]
    name: str  # the node id its /healthz and its players' welcome give

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


class NodePlayer(Listener):
    """A lean player (``bench.benchplayer.Listener``) that knows its node."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.node = 0
        self.answered = 0  # actions answered over the whole run


@dataclass
class Phase:
    setup: str  # "1 node" or "N nodes"
    p50_ms: float
    p99_ms: float
    actions: int  # answered within the measured window
    actions_per_s: float
    actions_by_node: list[int]
    node_cpu_s: list[float]  # each node process's CPU over the window
    server_cpu_s: float  # the nodes that serve this set: node 1 alone, or all of them
    server_cpu_pct: float
    server_cpu_ms_per_1000: float
    redis_cpu_ms_per_1000: float
    idle_nodes_cpu_pct: float  # one node: the other nodes' CPU meanwhile (not counted)
    serving_idle_cpu_s: float  # what the serving nodes spend over as long idle (upkeep)
    server_cpu_above_idle_ms_per_1000: float
    load_cpu_pct: float
    wall_s: float


@dataclass
class Deployment:
    redis_url: str
    nodes: list[Node]
    prefix: str = ""  # every key of the deployment's under it


@contextmanager
def redis_server(choice: str | None) -> Iterator[str]:
    """The URL of ``--redis URL``, or of a redis-server of this command's own."""
    if choice and choice != "start":
        yield choice
        return
    with own_redis() as redis:
        yield redis.url


@asynccontextmanager
async def deployment(
    count: int, redis_choice: str | None, *options: str
) -> AsyncIterator[Deployment]:
    """``count`` nodes on one Redis, one key prefix (rate limits lifted, as in
    ``bench server``), each serving with ``options`` besides."""
    with redis_server(redis_choice) as url:
        prefix = f"bench-nodes-{uuid.uuid4().hex[:8]}:"
        nodes: list[Node] = []
        try:
            for index in range(count):
                port = free_port()
                command = serve_command(port, "--rate", "1000000", "--burst", "1000000")
                command += ["--redis", url, "--redis-prefix", prefix, *options]
                process = spawn(command, SERVE_BANNER)
                nodes.append(Node(index, port, process, ""))
                nodes[-1].name = (await asyncio.to_thread(health, port))["node"]
            yield Deployment(url, nodes, prefix)
        finally:
            stop_nodes(nodes)


def stop_nodes(nodes: list[Node]) -> None:
    """Each node told to stop, then killed if it has not within 20 s."""
    for node in nodes:
        node.process.terminate()
    for node in nodes:
        try:
            node.process.wait(20)
        except subprocess.TimeoutExpired:
            node.process.kill()


async def redis_cpu_seconds(url: str) -> float:
    """Redis's own CPU seconds (``INFO cpu``: system and user), asked with ``redis-cli``
    (installed with redis-server): the bench speaks to Redis through no client library."""
    info = await RedisCli(url).info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


async def connect_players(nodes: list[Node], count: int, label: str) -> list[NodePlayer]:
    """``count`` players, player i on ``nodes[i % len(nodes)]``, each said hello; the node
    its welcome names must be that node."""
    players: list[NodePlayer] = []
    per_node = [range(i, count, len(nodes)) for i in range(len(nodes))]
    connected = [
        await connect_many(node.url, len(indexes), SUBPROTOCOL, NodePlayer)
        for node, indexes in zip(nodes, per_node, strict=True)
    ]
    players = [connected[i % len(nodes)][i // len(nodes)] for i in range(count)]
    for first in range(0, count, HELLO_BATCH):
        batch = players[first : first + HELLO_BATCH]
        welcomes = await asyncio.gather(
            *(p.call("hello", protocol=1, name=f"{label}{first + i}") for i, p in enumerate(batch))
        )
        for offset, (player, welcome) in enumerate(zip(batch, welcomes, strict=True)):
            node = nodes[(first + offset) % len(nodes)]
            if welcome["node"] != node.name:
                raise RuntimeError(f"a player of {node.url} was welcomed by {welcome['node']}")
            player.node = node.index
    return players


async def pair_up(players: list[NodePlayer], pool: dict[int, list[str]]) -> int:
    """Race players 2k and 2k+1 (host and guest) on a Sanibel deal; once every race has
    started, the number of races whose two racers are on different nodes."""
    deals = list(pool)

    async def race(host: NodePlayer, guest: NodePlayer, deal: int) -> None:
        created = await host.call(
            "create_race", game="sanibel", deal=str(deal), max_players=2, countdown_ms=0
        )
        race_id = created["race"]["race"]
        await guest.call("join_race", race=race_id)
        for racer in (host, guest):
            racer.race, racer.actions = race_id, pool[deal]
            await asyncio.wait_for(racer.wait_started(race_id), 30)

    pairs = [(players[i], players[i + 1]) for i in range(0, len(players) - 1, 2)]
    for first in range(0, len(pairs), SETUP_BATCH):
        await asyncio.gather(
            *(
                race(host, guest, deals[(first + k) % len(deals)])
                for k, (host, guest) in enumerate(pairs[first : first + SETUP_BATCH])
            )
        )
    return sum(1 for host, guest in pairs if host.node != guest.node)


async def paced_phase(
    setup: str,
    players: list[NodePlayer],
    serving: list[Node],
    every: list[Node],
    options: dict[str, Any],
    redis_url: str,
    idle_rates: list[float] | None = None,
) -> Phase:
    """``bench server``'s paced phase: every player acts every len(players)/rate seconds
    from a random phase, one request at a time; figures over the window after a warm-up.
    ``serving``: the nodes whose CPU counts for this set; ``every``: all the nodes;
    ``idle_rates``: each node's CPU seconds a second with every player idle (none: 0)."""
    by_node = [0] * len(every)

    def answered(player: NodePlayer, measured: bool) -> None:
        player.answered += 1
        if measured:
            by_node[player.node] += 1

    async def readings() -> tuple[list[float], float, float, float]:
        cpu = [cpu_seconds(n.process.pid) for n in every]
        return cpu, await redis_cpu_seconds(redis_url), own_cpu_seconds(), time.perf_counter()

    latencies, (cpu0, redis0, own0, wall0), (cpu1, redis1, own1, wall1) = await paced(
        players, options["rate"], options["seconds"], readings, answered
    )
    wall = wall1 - wall0
    node_cpu = [b - a for a, b in zip(cpu0, cpu1, strict=True)]
    serving_ids = {n.index for n in serving}
    server_cpu = sum(node_cpu[n.index] for n in serving)
    idle_cpu = sum(c for i, c in enumerate(node_cpu) if i not in serving_ids)
    upkeep = sum((idle_rates or [0.0] * len(every))[n.index] for n in serving) * wall
    ordered = sorted(latencies)
    actions = len(ordered)
    if not actions:
        raise RuntimeError(f"{setup}: no action was answered in the measured window")
    return Phase(
        setup=setup,
        p50_ms=round(statistics.median(ordered) * 1000, 2),
        p99_ms=round(ordered[min(actions - 1, int(actions * 0.99))] * 1000, 2),
        actions=actions,
        actions_per_s=round(actions / wall),
        actions_by_node=by_node,
        node_cpu_s=[round(c, 6) for c in node_cpu],
        server_cpu_s=round(server_cpu, 6),
        server_cpu_pct=round(100 * server_cpu / wall, 1),
        server_cpu_ms_per_1000=round(1e6 * server_cpu / actions, 1),
        redis_cpu_ms_per_1000=round(1e6 * (redis1 - redis0) / actions, 1),
        idle_nodes_cpu_pct=round(100 * idle_cpu / wall, 1),
        serving_idle_cpu_s=round(upkeep, 6),
        server_cpu_above_idle_ms_per_1000=round(1e6 * (server_cpu - upkeep) / actions, 1),
        load_cpu_pct=round(100 * (own1 - own0) / wall, 1),
        wall_s=round(wall, 2),
    )


async def idle_cpu_rates(nodes: list[Node], seconds: float) -> list[float]:
    """Each node's CPU seconds a second over ``seconds`` with nobody acting (after a
    moment for what the last phase left to settle)."""
    await asyncio.sleep(IDLE_SETTLE_S)
    before, start = [cpu_seconds(n.process.pid) for n in nodes], time.perf_counter()
    await asyncio.sleep(seconds)
    after, wall = [cpu_seconds(n.process.pid) for n in nodes], time.perf_counter() - start
    return [(b - a) / wall for a, b in zip(before, after, strict=True)]


def acts_answered(port: int) -> int:
    """The node's own count of act answers (``solrace_act_seconds_count`` in /metrics)."""
    return int(metric_samples(port)[("solrace_act_seconds_count", ())])


def projection(phases: list[Phase], cores: list[int]) -> dict[str, Any]:
    """Not a measurement: the N-node phases' CPU per action (nodes, and Redis), pooled over
    the rounds, turned into actions/s for ``cores`` cores, assuming the nodes' work grows
    linearly with cores (one single-threaded node per core) and Redis, single-threaded,
    tops out at one core."""
    actions = sum(p.actions for p in phases)
    node_s = sum(p.server_cpu_s for p in phases) / actions
    redis_s = sum(p.redis_cpu_ms_per_1000 * p.actions for p in phases) / 1e6 / actions
    redis_cap = 1 / redis_s if redis_s > 0 else float("inf")
    rows = []
    for k in cores:
        shared = min(k / (node_s + redis_s), redis_cap)
        apart = min(k / node_s, redis_cap)
        rows.append(
            {
                "cores": k,
                "actions_per_s_redis_on_these_cores": round(shared),
                "actions_per_s_redis_elsewhere": round(apart),
            }
        )
    return {
        "node_cpu_us_per_action": round(node_s * 1e6, 1),
        "redis_cpu_us_per_action": round(redis_s * 1e6, 1),
        "actions_per_s_per_node_core": round(1 / node_s),
        "redis_ceiling_actions_per_s": round(redis_cap) if redis_s > 0 else None,
        "rows": rows,
    }


async def run_nodes(options: dict[str, Any]) -> dict[str, Any]:
    count, players_per_set = options["nodes"], options["players"]
    raise_open_files(4 * players_per_set + 1024)
    pool = playouts("sanibel", DEALS, PLAYOUT_LENGTH, seed=7)
    async with deployment(count, options.get("redis")) as world:
        nodes = world.nodes
        alone = await connect_players(nodes[:1], players_per_set, "one")
        spread = await connect_players(nodes, players_per_set, "spread")
        within = await connect_players(nodes, players_per_set, "within")
        # stably by node: neighbours share a node (a node's odd one out races across)
        within.sort(key=attrgetter("node"))
        across_one = await pair_up(alone, pool)
        across = await pair_up(spread, pool)
        across_within = await pair_up(within, pool)
        await asyncio.sleep(0.5)
        rounds: list[tuple[Phase, Phase, Phase]] = []
        idles: list[list[float]] = []
        for _ in range(options["rounds"]):
            idle = await idle_cpu_rates(nodes, min(3.0, options["seconds"] / 4))
            idles.append(idle)
            one = await paced_phase(
                "1 node", alone, nodes[:1], nodes, options, world.redis_url, idle
            )
            many = await paced_phase(
                f"{count} nodes", spread, nodes, nodes, options, world.redis_url, idle
            )
            inner = await paced_phase(
                f"{count} within", within, nodes, nodes, options, world.redis_url, idle
            )
            rounds.append((one, many, inner))
        acting = [p for p in spread if p.node == 0]
        alone_pace = options | {"rate": options["rate"] * len(acting) / len(spread)}
        split = await paced_phase("split", acting, nodes[:1], nodes, alone_pace, world.redis_url)
        counted = [0] * count
        for player in alone + spread + within:
            counted[player.node] += player.answered
        answered = [await asyncio.to_thread(acts_answered, node.port) for node in nodes]
        races_followed = [(await asyncio.to_thread(health, n.port))["races"] for n in nodes]
    if any(phase.server_cpu_s <= 0 for phases in rounds for phase in phases):
        raise RuntimeError("a phase used no measurable CPU: run it longer")
    cpu_ratios = [cpu_ratio_of(m, o) for o, m, _ in rounds]
    within_ratios = [cpu_ratio_of(i, o) for o, _, i in rounds]
    traffic_ratios = [cpu_ratio_of(m, i) for _, m, i in rounds]
    above_ratios = [
        m.server_cpu_above_idle_ms_per_1000 / o.server_cpu_above_idle_ms_per_1000
        for o, m, _ in rounds
    ]
    p99_ratios = [m.p99_ms / o.p99_ms for o, m, _ in rounds]
    cpu_ratio, p99_ratio = statistics.median(cpu_ratios), statistics.median(p99_ratios)
    races = players_per_set // 2
    return {
        "settings": {k: v for k, v in options.items() if k != "redis"}
        | {"redis": "own" if options.get("redis") in (None, "start") else "given"},
        "nodes": [{"node": n.index + 1, "name": n.name, "port": n.port} for n in nodes],
        "races": {
            "one_node": races,
            "one_node_across_nodes": across_one,
            "n_nodes": races,
            "n_nodes_across_nodes": across,
            "n_nodes_within": races,
            "n_nodes_within_across_nodes": across_within,
            "followed_by_node": races_followed,
        },
        "rounds": [
            {
                "idle_cpu_pct_by_node": [round(100 * rate, 2) for rate in idle],
                "one_node": asdict(o),
                "n_nodes": asdict(m),
                "n_nodes_within": asdict(i),
            }
            for (o, m, i), idle in zip(rounds, idles, strict=True)
        ],
        "actions_answered": {"counted_by_players": counted, "counted_by_nodes": answered},
        "ratios": {
            "cpu_per_1000_vs_one_node": round(cpu_ratio, 2),
            "cpu_per_1000_vs_one_node_by_round": [round(r, 2) for r in cpu_ratios],
            "cpu_within_vs_one_node": round(statistics.median(within_ratios), 2),
            "cpu_within_vs_one_node_by_round": [round(r, 2) for r in within_ratios],
            "cpu_across_vs_within": round(statistics.median(traffic_ratios), 2),
            "cpu_across_vs_within_by_round": [round(r, 2) for r in traffic_ratios],
            "cpu_above_idle_vs_one_node": round(statistics.median(above_ratios), 2),
            "cpu_above_idle_vs_one_node_by_round": [round(r, 2) for r in above_ratios],
            "p99_vs_one_node": round(p99_ratio, 2),
            "p99_vs_one_node_by_round": [round(r, 2) for r in p99_ratios],
        },
        "targets": {
            "applies": count == 2,
            "cpu_met": cpu_ratio <= CPU_TARGET,
            "p99_met": p99_ratio <= P99_TARGET,
        },
        "redis_cpu_us_per_action": {
            "one_node": _pooled_redis([o for o, _, _ in rounds]),
            "n_nodes": _pooled_redis([m for _, m, _ in rounds]),
        },
        "projection": projection([m for _, m, _ in rounds], options["cores"]),
        "split": split_of(split),
    }


def cpu_ratio_of(phase: Phase, base: Phase) -> float:
    """``phase``'s server CPU per 1,000 actions over ``base``'s."""
    return phase.server_cpu_ms_per_1000 / base.server_cpu_ms_per_1000


def split_of(phase: Phase) -> dict[str, Any]:
    """Where an N-node action's CPU goes: in a phase where only node 1's racers act (at
    the same pace), node 1 does what the racer's node does (apply, store, answer) and the
    other nodes what following nodes do (hear, read the log, apply, standings)."""
    following = sum(phase.node_cpu_s[1:])
    return {
        "actions": phase.actions,
        "actions_by_node": phase.actions_by_node,
        "p99_ms": phase.p99_ms,
        "racer_node_ms_per_1000": phase.server_cpu_ms_per_1000,
        "following_nodes_ms_per_1000": round(1e6 * following / phase.actions, 1),
        "redis_ms_per_1000": phase.redis_cpu_ms_per_1000,
    }


def _pooled_redis(phases: list[Phase]) -> float:
    actions = sum(p.actions for p in phases)
    return round(sum(p.redis_cpu_ms_per_1000 * p.actions for p in phases) / actions, 1)
