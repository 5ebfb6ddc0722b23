"""``solrace bench arena``: one arena of ``players`` bots on ``nodes`` real ``solrace serve``
nodes sharing one Redis (a redis-server of the command's own unless ``--redis URL``),
watched by ``watchers`` more connections, for ``minutes`` (issue 35's figures).

The nodes run a trial arena of each game (``--arena-every-ms``: an arena that runs for the
whole bench, heats of 2), accounts need no age nor games (``--ranked-account-days 0
--ranked-account-games 0``), and flagged runs are not held (``--no-hold-flagged``): the
bots stand in for people, and a bot the review flagged would be removed from the arena.
They also play at a person's pace so that it should not: think times log-normal, median
700 ms, p90/p10 about 4.7 (``--quick``, for the command's test: a tenth of that, 3 to 5
actions a heat, countdowns of 0.3 s instead of the server's 3 s).

Each bot registers an account (spread round-robin over the nodes), enters the Sanibel
arena, and from then on races whatever heat it is paired in: after the countdown it plays
6 to 30 random legal actions (never undo) and resigns, unless it finished first. The
watchers (a process per node, ``bench/arenawatchers.py``) ``arena_watch`` the arena.
Measured, over the ``minutes`` after every bot entered (the bench then waits
``DRAIN_S`` for the last deliveries):

- pairing wave: from a bot becoming idle (its heat's ``result`` event, or its
  ``arena_join`` answer) to its next ``paired``; also less the breather (3 s), the
  issue's count (docs/arenas.md: a player on it is looking at their result);
- standings pushed: from a heat's end (the first of its racers to get its ``result``) to
  the first ``arena_standings`` of the log's version holding it, or a later one, at each
  participant (the bots' process reading it) and each watcher (the kernel's receive time);
- watchers held: those still connected at the end, and those of them that got the last
  heat's standings within the drain;
- CPU: every node's and Redis's over the window, per heat scored (every heat's result in
  the arena's log, read through the store's public face at the window's ends);
- the bots' own loop: how late it woke a sleep of 0.1 s, over the window (a busy process
  reads its events late: the participants' times are an upper bound by as much).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import time
import uuid
from array import array
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from bench.arenareport import (
    MS,
    PAIRING_P95_S,
    PUSH_P99_S,
    deliveries,
    histogram_of,
    merged,
    quantiles,
    summary,
)
from bench.arenawatchers import Watchers
from bench.benchplayer import HELLO_BATCH, HELLO_TRIES, connect_all, own_cpu_seconds
from bench.benchprocess import cpu_seconds, raise_open_files
from bench.nodebench import SUBPROTOCOL, Node, deployment, redis_cpu_seconds
from protocol.arena import HeatResult
from server.store import open_store

BREATHER_NS = 3_000 * MS  # docs/arenas.md, sentence 31
LAG_EVERY_S = 0.1  # the bots' process probes its own loop this often
DRAIN_S = 5.0  # after the window, for the last heats' standings to arrive (--quick: 2 s)
ONE_DAY_MS = 86_400_000
THINK_MEDIAN_S = 0.7
THINK_SIGMA = 0.6  # log-normal: p90/p10 = exp(2 x 1.2816 x 0.6), about 4.7
PASSWORD = "arena bench's pass"


def serve_options(every_ms: int, quick: bool) -> list[str]:
    """The nodes' options besides ``bench server``'s (``quick``: heats count down 0.3 s)."""
    return [
        *(("--countdown-ms", "300") if quick else ()),
        *("--arena-every-ms", str(every_ms), "--no-hold-flagged"),
        *("--ranked-account-days", "0", "--ranked-account-games", "0", "--rank-new-accounts"),
        *("--auth-per-address", "1000000", "--auth-per-username", "1000000"),
        *("--registrations-per-address", "1000000", "--fair-play-solver-nodes", "0"),
    ]


def arena_period_ms(minutes: float, now_ms: int) -> int:
    """Whole days (at most 7) whose current period (from the epoch) lasts the bench out."""
    needed = minutes * 60_000 + 600_000
    for days in range(1, 8):
        every = days * ONE_DAY_MS
        if every - now_ms % every > needed:
            return every
    raise SystemExit("error: no trial arena would last the bench out; run it later")


class ArenaBot:
    """One bot: a reader routing answers to their requests and events to their handlers."""

    def __init__(self, connection: ClientConnection, rng: random.Random, quick: bool) -> None:
        self.connection = connection
        self.rng = rng
        self.quick = quick
        self.ids = 0
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.heat = ""
        self.idle_at = 0  # ns: when it last became idle (0: in a heat, or not entered)
        self.idle_after = ""  # "join" or "heat"
        self.waits: list[tuple[str, int, int]] = []  # (after what, idle at, paired at)
        self.ends: dict[str, int] = {}  # heat -> when its result came
        self.versions: array[int] = array("q")
        self.times: array[int] = array("q")
        self.recording = False
        self.actions = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.read_all()

    async def read_all(self) -> None:
        async for raw in self.connection:
            now = time.time_ns()
            message = msgpack.unpackb(raw, raw=False)
            if message.get("type") == "event":
                self.on_event(message, now)
                continue
            future = self.pending.pop(message.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(message)

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[self.ids] = future
        await self.connection.send(msgpack.packb({"type": kind, "id": self.ids, **fields}))
        return await asyncio.wait_for(future, 120)

    async def asked(self, kind: str, **fields: Any) -> dict[str, Any]:
        """``call``, asked again while the store is too busy to answer (as a hello is:
        ``bench.benchplayer.Player.hello``); a refusal for another reason is RuntimeError."""
        for attempt in range(HELLO_TRIES):
            answer = await self.call(kind, **fields)
            if answer["type"] != "error":
                return answer
            if answer["code"] != "store_unavailable":
                break
            await asyncio.sleep(0.1 * 2**attempt)
        raise RuntimeError(f"{kind} was refused: {answer}")

    def on_event(self, message: dict[str, Any], now: int) -> None:
        kind = message.get("kind")
        if kind == "paired":
            if self.idle_at:
                self.waits.append((self.idle_after, self.idle_at, now))
            self.heat, self.idle_at = message["race"]["race"], 0
        elif kind == "started" and message["race"] == self.heat:
            task = asyncio.create_task(self.play(self.heat, message["you"]["legal"]))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        elif kind == "result":
            self.ends.setdefault(message["race"], now)
            if message["race"] == self.heat:
                self.heat, self.idle_at, self.idle_after = "", now, "heat"
        elif kind == "arena_standings" and self.recording:
            self.versions.append(message["version"])
            self.times.append(now)

    def think_s(self) -> float:
        median = THINK_MEDIAN_S / (10 if self.quick else 1)
        return median * math.exp(self.rng.gauss(0.0, THINK_SIGMA))

    async def play(self, race: str, legal: list[str]) -> None:
        """Random legal actions at a person's pace, then resign (unless finished)."""
        actions = self.rng.randint(3, 5) if self.quick else self.rng.randint(6, 30)
        for seq in range(1, actions + 1):
            moves = [action for action in legal if action != "undo"]
            if not moves:
                break
            await asyncio.sleep(self.think_s())
            answer = await self.call(
                "act", race=race, seq=seq, action=self.rng.choice(moves), legal=True
            )
            if answer["type"] == "error":
                break
            self.actions += 1
            if answer.get("outcome") == "finished":
                return
            legal = answer.get("legal", [])
        await self.call("resign", race=race)


async def entered(nodes: list[Node], count: int, seed: int, quick: bool) -> list[ArenaBot]:
    """``count`` bots, bot i on node i mod N, each reading and registered."""
    rng = random.Random(seed)
    per_node = [
        await connect_all(node.url, len(range(i, count, len(nodes))), SUBPROTOCOL)
        for i, node in enumerate(nodes)
    ]
    bots = [
        ArenaBot(
            per_node[i % len(nodes)][i // len(nodes)].connection, random.Random(rng.random()), quick
        )
        for i in range(count)
    ]
    for bot in bots:
        bot.reader = asyncio.create_task(bot.read())
    tag = uuid.uuid4().hex[:6]
    for first in range(0, count, HELLO_BATCH):
        batch = list(enumerate(bots[first : first + HELLO_BATCH], first))
        await asyncio.gather(*(b.asked("hello", protocol=1, name=f"ar{tag}x{i}") for i, b in batch))
        await asyncio.gather(
            *(b.asked("register", username=f"ar{tag}x{i}", password=PASSWORD) for i, b in batch)
        )
    return bots


async def join_all(bots: list[ArenaBot], arena: str) -> None:
    async def join(bot: ArenaBot) -> None:
        await bot.asked("arena_join", arena=arena)
        bot.idle_at, bot.idle_after = time.time_ns(), "join"

    for first in range(0, len(bots), HELLO_BATCH):
        await asyncio.gather(*(join(bot) for bot in bots[first : first + HELLO_BATCH]))


async def heat_versions(redis_url: str, prefix: str, arena: str) -> dict[str, int]:
    """Each scored heat's version: the length of the arena's log up to its result."""
    store = open_store(redis_url, prefix=prefix)
    try:
        log = await store.arenas.log(arena)
    finally:
        await store.close()
    return {e.heat: i for i, e in enumerate(log, 1) if isinstance(e, HeatResult)}


async def run_arena(options: dict[str, Any]) -> dict[str, Any]:
    players, watchers, minutes = options["players"], options["watchers"], options["minutes"]
    raise_open_files(players + watchers + 1024)
    every_ms = arena_period_ms(minutes, int(time.time() * 1000))
    serving = serve_options(every_ms, options["quick"])
    async with deployment(options["nodes"], options.get("redis"), *serving) as world:
        bots = await entered(world.nodes, players, options["seed"], options["quick"])
        listed = await bots[0].call("arena_list", game="sanibel")
        arena = next(a["id"] for a in listed["arenas"] if a["status"] == "running")
        swarms = [
            Watchers(node.url, share, arena)
            for node, share in zip(world.nodes, split(watchers, len(world.nodes)), strict=True)
            if share
        ]
        try:
            for swarm in swarms:
                await swarm.watching()
            await join_all(bots, arena)
            for bot in bots:
                bot.recording = True
            before = await window_reading(world.nodes, world.redis_url, world.prefix, arena)
            start = time.time_ns()
            lags: list[int] = []
            probing = asyncio.ensure_future(loop_lags(lags))
            await asyncio.sleep(minutes * 60)
            probing.cancel()
            end = time.time_ns()
            after = await window_reading(world.nodes, world.redis_url, world.prefix, arena)
            await asyncio.sleep(2.0 if options["quick"] else DRAIN_S)
            versions = await heat_versions(world.redis_url, world.prefix, arena)
            heats = heats_ended(bots, versions, start, end)
            watched = [await swarm.stop(heats) for swarm in swarms]
        finally:
            for swarm in swarms:
                swarm.close()
            for bot in bots:
                for task in list(bot.tasks):
                    task.cancel()
    result = report(options, serving, arena, bots, heats, watched, before, after, (start, end))
    p50, p99, top = quantiles(histogram_of(lags), 0.5, 0.99, 1.0)
    return result | {
        "bots_loop_lag": {"count": len(lags), "p50_ms": p50, "p99_ms": p99, "max_ms": top}
    }


async def loop_lags(lags: list[int], every_s: float = LAG_EVERY_S) -> None:
    """How late this process's loop wakes a sleep of ``every_s``, again and again (ns): the
    bots read their events as late (the participants' times are this process's reading)."""
    while True:
        asked = time.perf_counter_ns()
        await asyncio.sleep(every_s)
        lags.append(max(0, time.perf_counter_ns() - asked - int(every_s * 1e9)))


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


async def window_reading(
    nodes: list[Node], redis_url: str, prefix: str, arena: str
) -> dict[str, Any]:
    versions = await heat_versions(redis_url, prefix, arena)
    return {
        "nodes_s": sum(cpu_seconds(node.process.pid) for node in nodes),
        "redis_s": await redis_cpu_seconds(redis_url),
        "own_s": own_cpu_seconds(),
        "heats": len(versions),
        "wall": time.perf_counter(),
    }


def heats_ended(
    bots: list[ArenaBot], versions: dict[str, int], start: int, end: int
) -> list[tuple[int, int]]:
    """(version, end) of every scored heat that ended within the window."""
    ends: dict[str, int] = {}
    for bot in bots:
        for heat, at in bot.ends.items():
            ends[heat] = min(at, ends.get(heat, at))
    return sorted(
        (versions[heat], at) for heat, at in ends.items() if heat in versions and start <= at < end
    )


def report(
    options: dict[str, Any],
    serving: list[str],
    arena: str,
    bots: list[ArenaBot],
    heats: list[tuple[int, int]],
    watched: list[dict[str, Any]],
    before: dict[str, Any],
    after: dict[str, Any],
    window: tuple[int, int],
) -> dict[str, Any]:
    start, end = window
    waits = [(after_what, idle, paired) for b in bots for after_what, idle, paired in b.waits]
    joined = [paired - idle for what, idle, paired in waits if what == "join"]
    back = [paired - idle for what, idle, paired in waits if what == "heat" and start <= idle < end]
    breathed = [max(0, wait - BREATHER_NS) for wait in back]
    pairing = {
        "first wave (arena_join -> paired)": summary(histogram_of(joined), PAIRING_P95_S, 0.95),
        "after a heat (result -> paired)": summary(histogram_of(back), PAIRING_P95_S, 0.95),
        "after the breather (result + 3 s -> paired)": summary(
            histogram_of(breathed), PAIRING_P95_S, 0.95
        ),
    }
    told, told_missed = deliveries([(b.versions, b.times) for b in bots], heats)
    watchers_histogram = merged(w["histogram"] for w in watched)
    standings = {
        "participants (bots' process reading)": summary(told, PUSH_P99_S, 0.99)
        | {"missed": told_missed},
        "watchers (kernel's receive time)": summary(watchers_histogram, PUSH_P99_S, 0.99)
        | {"missed": sum(w["missed"] for w in watched)},
    }
    wall = after["wall"] - before["wall"]
    scored = max(1, after["heats"] - before["heats"])
    nodes_s, redis_s = after["nodes_s"] - before["nodes_s"], after["redis_s"] - before["redis_s"]
    cpu = {
        "wall_s": round(wall, 1),
        "nodes_s": round(nodes_s, 1),
        "nodes_pct": round(100 * nodes_s / wall / options["nodes"], 1),
        "redis_s": round(redis_s, 1),
        "nodes_ms_per_heat": round(1000 * nodes_s / scored, 2),
        "redis_ms_per_heat": round(1000 * redis_s / scored, 2),
        "bots_pct": round(100 * (after["own_s"] - before["own_s"]) / wall, 1),
        "watchers_pct": round(100 * sum(w["cpu_s"] for w in watched) / max(wall, 1e-9), 1),
    }
    watch_summary = standings["watchers (kernel's receive time)"]
    return {
        "settings": {k: v for k, v in options.items() if k != "redis"}
        | {"redis": "own" if options.get("redis") in (None, "start") else "given"},
        "serve_options": serving,
        "arena": arena,
        "heats_scored": after["heats"] - before["heats"],
        "heats_measured": len(heats),
        "actions": sum(bot.actions for bot in bots),
        "waiting_at_end": sum(1 for bot in bots if bot.idle_at),
        "pairing": pairing,
        "standings": standings,
        "watchers_held": {
            "connected": sum(w["connected"] for w in watched),
            "alive": sum(w["alive"] for w in watched),
            "held": sum(w["held"] for w in watched),
            "unstamped_reads": sum(w["unstamped"] for w in watched),
        },
        "cpu": cpu,
        "targets": {
            "pairing p95 after the breather": pairing[
                "after the breather (result + 3 s -> paired)"
            ]["met"],
            "standings p99 to participants": standings["participants (bots' process reading)"][
                "met"
            ],
            "watchers p99": watch_summary["met"] and watch_summary["count"] > 0,
        },
    }


def run_from_args(args: Any) -> int:
    """The command line's ``bench arena`` (bench/command.py)."""
    from bench.arenareport import print_arena

    options = {
        "players": 1000 if args.players is None else args.players,
        "nodes": 2 if args.nodes is None else args.nodes,
        "minutes": args.minutes,
        "watchers": args.watchers,
        "redis": args.redis,
        "quick": args.quick,
        "seed": args.seed,
    }
    if options["players"] < 4 or options["nodes"] < 1 or args.watchers < 0 or args.minutes <= 0:
        raise SystemExit("error: --players at least 4, --nodes at least 1, --minutes above 0")
    result = asyncio.run(run_arena(options))
    print(json.dumps(result)) if args.json else print_arena(result)
    return 0
