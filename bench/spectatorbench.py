"""``solrace bench spectators``: how soon spectators see a racer's action, on the racer's
node and on another node.

Two real ``solrace serve`` nodes on one Redis (a redis-server of the command's own unless
``--redis URL``; ``--nodes 1``: one node). ``spectators`` spectators on node 2, in a
process of their own (so that reading a thousand feeds never delays the racers' process),
watch a race of two racers on a Sanibel deal, who play a random legal playout at ``rate``
actions per second in all, each at an even pace, for ``seconds``. Two phases, each with a
race of its own, watched by the same spectators' connections:

1. **same node**: the racers on node 2, with their spectators;
2. **across nodes**: the racers on node 1. Node 2 learns of each action from Redis (the
   log entry's publish on the race's channel, then its own read of the log), applies it to
   its replica and feeds its spectators.

An action's time is when its racer got the answer (the action accepted and stored); a
spectator's is when the ``watch`` item of that action reached the spectator's socket: the
kernel's receive time of the packet that completed its frame (``SO_TIMESTAMPNS``), so the
figure is the server's delivery, not how long one process takes to read a thousand feeds
(in Python, about as long as the node takes to write them). The time the spectators'
process read the item is reported beside it. All are CLOCK_REALTIME (the kernel's stamps
are): one clock for every process of a machine; a phase during which it was stepped is
refused. The k-th ``act`` item of a racer is their k-th action (the racers only start once
every spectator watches). Each spectator's items are checked: feed numbers without a gap,
every racer's actions in the order played. The report also gives the feed's pacing, from
the server's settings, and what the spectators' node says its fan-outs cost over the phase
(its /metrics: from an item's release to the last spectator's write, mean and largest, and
the node's CPU per fan-out).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import ClientConnection, connect
from websockets.frames import Frame, Opcode
from websockets.protocol import Event

from bench.benchplayer import (
    CONNECT_BATCH,
    Listener,
    Player,
    connect_many,
    own_cpu_seconds,
    playouts,
)
from bench.benchprocess import cpu_seconds, raise_open_files
from bench.nodebench import HELLO_BATCH, SUBPROTOCOL, Node, deployment
from bench.spectatorreport import received
from server.config import Settings

TARGET_MS = 20.0  # p99 from the racer's answer to each of 1,000 spectators on another node
SETTLE_S = 1.0  # after every spectator watches, before the racers start
DRAIN_S = 2.0  # after the last action, for the last items to reach every spectator
CLOCK_STEP_NS = 1_000_000  # a move of the wall clock against the monotonic one past this


# ---------------------------------------------------------------- the spectators' process


# Linux's option for a socket's receive times in ns (SOL_SOCKET level; Python names only
# some platforms' options), and the ancillary data one comes in: a struct timespec.
SO_TIMESTAMPNS = 35
TIMESPEC = struct.Struct("qq")
READ_SIZE = 1 << 16


class StampedConnection(ClientConnection):
    """A spectator's connection that times what it gets. Once ``read_stamped`` is called,
    its socket is read here (``recvmsg``, with the kernel's receive time of the last
    packet read) and each read is handed to websockets as its transport would hand it.
    While ``stamps`` is a list, every binary frame is kept there undecoded (decoding waits
    until the measurement is over) with the kernel's time of the read that completed it
    and the time this process read it (CLOCK_REALTIME, ns)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stamps: list[tuple[int, int, bytes]] | None = None
        self.raw: socket.socket | None = None
        self.read_at = (0, 0)  # (kernel's, this process's) of the read being handled
        self.unstamped = 0  # reads the kernel gave no time with (the read's time stands in)

    def read_stamped(self) -> None:
        """Read the socket here from now on (a second descriptor of it, registered with the
        event loop; the transport stops reading until the peer closes)."""
        transport = self.transport
        assert isinstance(transport, asyncio.Transport)
        raw = socket.socket(fileno=os.dup(transport.get_extra_info("socket").fileno()))
        raw.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        transport.pause_reading()
        self.raw = raw
        self.loop.add_reader(raw.fileno(), self._readable)

    def _readable(self) -> None:
        assert self.raw is not None
        try:
            data, ancillary, _, _ = self.raw.recvmsg(READ_SIZE, socket.CMSG_SPACE(TIMESPEC.size))
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data, ancillary = b"", []
        read = time.time_ns()
        arrived = 0
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                seconds, nanoseconds = TIMESPEC.unpack(value)
                arrived = seconds * 1_000_000_000 + nanoseconds
        if not data:  # the peer closed (or the socket failed): the transport sees to it
            self._stop_reading()
            self.transport.resume_reading()
            return
        if not arrived:
            self.unstamped += 1
        self.read_at = (arrived or read, read)
        self.data_received(data)

    def _stop_reading(self) -> None:
        if self.raw is not None:
            self.loop.remove_reader(self.raw.fileno())
            self.raw.close()
            self.raw = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_reading()
        super().connection_lost(exc)

    def process_event(self, event: Event) -> None:
        stamps = self.stamps
        if stamps is not None and isinstance(event, Frame) and event.opcode is Opcode.BINARY:
            stamps.append((*self.read_at, bytes(event.data)))
            return
        super().process_event(event)


async def open_stamped(
    url: str, kind: type[StampedConnection] = StampedConnection
) -> StampedConnection:
    """A spectator's connection (see ``StampedConnection``; a ``kind`` of it), never
    flow-controlled: events nobody reads between phases (spectator counts as the others
    come and go) would fill its queue, and a full queue stops reading, so the next phase
    would find it silent (100 of 1,000 spectators, on a loaded machine, before this)."""
    connection = await connect(
        url,
        subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
        compression=None,
        max_size=2**22,
        max_queue=None,
        open_timeout=60,
        ping_interval=None,
        create_connection=kind,
    )
    assert isinstance(connection, kind)
    connection.read_stamped()
    return connection


async def swarm(url: str, count: int) -> None:
    """``count`` spectators on ``url``, driven by lines on standard input: ``watch RACE``
    (stop watching the last race, watch RACE, answer "watching" once all of them do, and
    keep every item's time from then on), ``stop`` (answer one line of JSON: what they
    got, see ``received``, and this process's CPU meanwhile). The same connections serve
    every phase: spectators who left would have their sessions end, all at once, in the
    middle of the next phase."""
    connections: list[StampedConnection] = []
    for start in range(0, count, CONNECT_BATCH):
        connections += await asyncio.gather(
            *(open_stamped(url) for _ in range(min(CONNECT_BATCH, count - start)))
        )
    watchers = [Player(connection) for connection in connections]
    for start in range(0, count, HELLO_BATCH):  # each hello waits on Redis
        batch = watchers[start : start + HELLO_BATCH]
        await asyncio.gather(*(w.call("hello", protocol=1, name="fan") for w in batch))
    print("connected", flush=True)
    race = ""
    cpu0 = wall0 = 0.0
    while line := (await asyncio.to_thread(sys.stdin.readline)).split():
        if line[0] == "watch":
            for start in range(0, count, HELLO_BATCH):
                batch = watchers[start : start + HELLO_BATCH]
                if race:
                    await asyncio.gather(*(w.call("unspectate", race=race) for w in batch))
                await asyncio.gather(*(w.call("spectate", race=line[1]) for w in batch))
            race = line[1]
            for connection in connections:
                connection.stamps, connection.unstamped = [], 0
            cpu0, wall0 = own_cpu_seconds(), time.perf_counter()
            print("watching", flush=True)
        elif line[0] == "stop":
            cpu, wall = own_cpu_seconds() - cpu0, time.perf_counter() - wall0
            got = received(race, [c.stamps or [] for c in connections])
            for connection in connections:
                connection.stamps = None
            unstamped = sum(connection.unstamped for connection in connections)
            got |= {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "unstamped": unstamped}
            print(json.dumps(got), flush=True)


class Swarm:
    """The spectators' process, seen from the command."""

    def __init__(self, url: str, count: int) -> None:
        command = [sys.executable, "-m", "bench.spectatorbench", url, str(count)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    async def _ask(self, line: str | None, expected: str) -> str:
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        if line is not None:
            process.stdin.write(line + "\n")
            process.stdin.flush()
        answer = await asyncio.to_thread(process.stdout.readline)
        if expected not in answer:
            raise RuntimeError(f"the spectators' process answered {answer[:200]!r}")
        return answer

    async def connected(self) -> None:
        await self._ask(None, "connected")

    async def watch(self, race: str) -> None:
        await self._ask(f"watch {race}", "watching")

    async def stop(self) -> dict[str, Any]:
        got: dict[str, Any] = json.loads(await self._ask("stop", "{"))
        return got

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


# ---------------------------------------------------------------- the command


@dataclass
class Latency:
    setup: str  # "same node" or "across nodes"
    racers_on: int  # node number (from 1)
    spectators_on: int
    items: int  # actions the racers had answered
    deliveries: int  # (item, spectator) pairs received
    expected: int  # items x spectators
    p50_ms: float  # to the spectators' sockets (the kernel's receive times)
    p99_ms: float
    max_ms: float
    min_ms: float
    read_p50_ms: float  # to the spectators' process reading them
    read_p99_ms: float
    first_median_ms: float  # the first spectator to get an item, median over items
    last_median_ms: float  # the last spectator to get an item, median over items
    last_max_ms: float
    unstamped_reads: int  # reads without the kernel's time (their read's time stands in)
    in_order: bool  # every spectator: feed numbers without a gap
    actions_as_played: bool  # every spectator saw each racer's actions as played
    node_cpu_pct: list[float]
    spectators_cpu_pct: float
    fan_outs: int  # the spectators' node's fan-outs over the phase (its /metrics)
    fan_out_mean_ms: float  # from an item's release to its last spectator's write
    fan_out_max_ms: float  # the largest since the node started
    fan_out_cpu_ms: float  # the node's CPU per fan-out (building and writing the frames)


FAN_OUT_METRICS = {
    "solrace_feed_fan_outs_total": "fan_outs",
    "solrace_feed_frames_written_total": "frames",
    "solrace_feed_fan_out_seconds_total": "seconds",
    "solrace_feed_fan_out_seconds_max": "seconds_max",
    "solrace_feed_fan_out_cpu_seconds_total": "cpu_seconds",
}


def fan_out_metrics(port: int) -> dict[str, float]:
    """The node's fan-out counters (``solrace_feed_*`` in its /metrics)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in FAN_OUT_METRICS:
                found[FAN_OUT_METRICS[sample.name]] = sample.value
    return found


async def phase(
    setup: str,
    racers_node: Node,
    spectators_node: Node,
    nodes: list[Node],
    options: dict[str, Any],
    pool: dict[int, list[str]],
    spectators: Swarm,
) -> tuple[Latency, list[Listener]]:
    """A race on ``racers_node``, watched by ``spectators`` on ``spectators_node``; the
    figures, and the racers (left connected: their sessions would end mid-run)."""
    host, guest = await connect_many(racers_node.url, 2, SUBPROTOCOL, Listener)
    ids = [
        (await r.call("hello", protocol=1, name=f"racer{i}"))["player"]
        for i, r in enumerate((host, guest))
    ]
    deal = next(iter(pool))
    created = await host.call(
        "create_race", game="sanibel", deal=str(deal), max_players=2, countdown_ms=0
    )
    race = created["race"]["race"]
    await guest.call("join_race", race=race)
    for racer in (host, guest):
        racer.race, racer.actions = race, pool[deal]
        await asyncio.wait_for(racer.wait_started(race), 30)
    await spectators.watch(race)
    await asyncio.sleep(SETTLE_S)
    fan0 = fan_out_metrics(spectators_node.port)
    cpu0 = [cpu_seconds(node.process.pid) for node in nodes]
    wall0, offset0 = time.perf_counter(), wall_clock_offset_ns()
    acks = await race_paced(dict(zip(ids, (host, guest), strict=True)), options)
    await asyncio.sleep(DRAIN_S)
    wall = time.perf_counter() - wall0
    if abs(wall_clock_offset_ns() - offset0) > CLOCK_STEP_NS:
        raise RuntimeError(f"{setup}: the wall clock was stepped during the phase; run again")
    cpu = [cpu_seconds(node.process.pid) - c for node, c in zip(nodes, cpu0, strict=True)]
    got = await spectators.stop()
    fan1 = fan_out_metrics(spectators_node.port)
    fan = {key: fan1[key] - fan0[key] for key in fan1 if key != "seconds_max"}
    fan["seconds_max"] = fan1["seconds_max"]
    figures = measure(
        setup, racers_node, spectators_node, options, acks, got, wall, cpu, pool[deal], fan
    )
    return figures, [host, guest]


def wall_clock_offset_ns() -> int:
    """CLOCK_REALTIME less CLOCK_MONOTONIC: NTP slews both alike, so this moves only when
    the wall clock is stepped."""
    return time.time_ns() - time.monotonic_ns()


async def race_paced(racers: dict[str, Listener], options: dict[str, Any]) -> dict[str, list[int]]:
    """Each racer (by player id) acts every len(racers)/rate seconds, the racers evenly
    apart, for ``seconds``; the time (CLOCK_REALTIME, ns) each answer came, by player id."""
    seconds = options["seconds"]
    interval = len(racers) / options["rate"]
    acks: dict[str, list[int]] = {player: [] for player in racers}
    begin = time.perf_counter()

    async def pace(player: str, offset: float) -> None:
        racer, answered = racers[player], acks[player]
        next_at = begin + offset
        while next_at < begin + seconds:
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            await racer.act()
            answered.append(time.time_ns())
            next_at += interval

    await asyncio.gather(*(pace(p, i * interval / len(racers)) for i, p in enumerate(racers)))
    return acks


def measure(
    setup: str,
    racers_node: Node,
    spectators_node: Node,
    options: dict[str, Any],
    acks: dict[str, list[int]],
    got: dict[str, Any],
    wall: float,
    node_cpu: list[float],
    playout: list[str],
    fan: dict[str, float],
) -> Latency:
    latencies: list[float] = []
    read_latencies: list[float] = []
    firsts: list[float] = []
    lasts: list[float] = []
    deliveries = 0
    as_played = got["same_for_all"]
    for player, answered in acks.items():
        seen = got["actions"].get(player, [])
        as_played = as_played and seen == playout[: len(answered)]
        columns = got["times_ns"].get(player, [])
        read_columns = got["read_ns"].get(player, [])
        for k, acked in enumerate(answered):
            times = columns[k] if k < len(columns) else []
            deliveries += len(times)
            if times:
                read_latencies += [(t - acked) / 1e6 for t in read_columns[k]]
                delays = [(t - acked) / 1e6 for t in times]
                latencies += delays
                firsts.append(min(delays))
                lasts.append(max(delays))
    items = sum(len(a) for a in acks.values())
    ordered = sorted(latencies) or [0.0]
    read_ordered = sorted(read_latencies) or [0.0]
    return Latency(
        setup=setup,
        racers_on=racers_node.index + 1,
        spectators_on=spectators_node.index + 1,
        items=items,
        deliveries=deliveries,
        expected=items * got["spectators"],
        p50_ms=round(statistics.median(ordered), 2),
        p99_ms=percentile_99(ordered),
        max_ms=round(ordered[-1], 2),
        min_ms=round(ordered[0], 2),
        read_p50_ms=round(statistics.median(read_ordered), 2),
        read_p99_ms=percentile_99(read_ordered),
        first_median_ms=round(statistics.median(firsts or [0.0]), 2),
        last_median_ms=round(statistics.median(lasts or [0.0]), 2),
        last_max_ms=round(max(lasts or [0.0]), 2),
        unstamped_reads=got["unstamped"],
        in_order=got["in_order"],
        actions_as_played=as_played,
        node_cpu_pct=[round(100 * c / wall, 1) for c in node_cpu],
        spectators_cpu_pct=round(100 * got["cpu_s"] / max(got["wall_s"], 1e-9), 1),
        fan_outs=int(fan["fan_outs"]),
        fan_out_mean_ms=round(1000 * fan["seconds"] / max(fan["fan_outs"], 1), 2),
        fan_out_max_ms=round(1000 * fan["seconds_max"], 2),
        fan_out_cpu_ms=round(1000 * fan["cpu_seconds"] / max(fan["fan_outs"], 1), 2),
    )


def met(across: Latency) -> bool:
    """The target, read on the kernel's times only."""
    return across.p99_ms <= TARGET_MS and not across.unstamped_reads


def percentile_99(ordered: list[float]) -> float:
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 2)


async def run_spectators(options: dict[str, Any]) -> dict[str, Any]:
    raise_open_files(2 * options["spectators"] + 1024)
    pool = playouts("sanibel", 1, max(50, int(options["rate"] * options["seconds"]) + 10), seed=5)
    phases: list[Latency] = []
    async with deployment(options["nodes"], options.get("redis")) as world:
        watched = world.nodes[-1]
        plan = [("same node", watched)]
        if len(world.nodes) > 1:
            plan.append(("across nodes", world.nodes[0]))
        spectators = Swarm(watched.url, options["spectators"])
        racers: list[Listener] = []
        try:
            await spectators.connected()
            for setup, racing in plan:
                figures, pair = await phase(
                    setup, racing, watched, world.nodes, options, pool, spectators
                )
                phases.append(figures)
                racers += pair
        finally:
            spectators.close()
        for racer in racers:
            await racer.connection.close()
    across = phases[-1] if len(phases) > 1 else None
    served = Settings()  # the nodes run with the defaults, unless the environment says
    chunk = int(os.environ.get("SOLRACE_SPECTATOR_CHUNK", served.spectator_chunk))
    pause_ms = float(os.environ.get("SOLRACE_SPECTATOR_PAUSE_MS", served.spectator_pause_ms))
    return {
        "settings": {k: v for k, v in options.items() if k != "redis"}
        | {"redis": "own" if options.get("redis") in (None, "start") else "given"},
        "phases": [asdict(p) for p in phases],
        "feed": {
            "flushed_every_ms": served.feed_interval_ms,
            "spectators_at_a_time": chunk,
            "pause_ms": pause_ms,
        },
        "target_ms": TARGET_MS,
        "target_met": None if across is None else met(across),
    }


if __name__ == "__main__":
    asyncio.run(swarm(sys.argv[1], int(sys.argv[2])))
    os._exit(0)  # a thousand connections need no goodbye: the nodes are stopped next
