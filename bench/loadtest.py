"""``solrace bench server``: simulated players on loopback against a real ``solrace serve``
process and, in the same command, against a bare websockets + msgpack echo server.

Phases, each run against both servers with the same load generator:
1. *rate*: ``--players`` connections send actions at ``--rate`` actions/s in total (each
   player at an even pace, starting at a random phase), closed loop per player; the round
   trip of every action is measured from send to answer. With ``--redis``, a third server
   takes its turn here: the echo storing every request in the same Redis before answering.
2. *saturation*: ``--saturation-clients`` connections send as fast as answers come back;
   actions answered per second. Both servers run side by side and this phase alternates
   between them for ``--saturation-rounds`` rounds; the round with the median ratio is
   reported, with every round's ratio.
3. *spectators* (solrace only): ``--spectators`` connections watch one of the races, then
   phase 1 again; twice, with the spectators' process at equal priority and niced.
Server CPU is read from the server process's CPU-time clock over each phase; beside it,
what the machine took: how long the server's event loop and the load generator's waited
ready to run (``/proc/PID/schedstat``) and the host's steal (``/proc/stat``). Players race
in pairs on Sanibel deals, replaying random playouts computed beforehand with the engine,
so every action is legal and does real work.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import asdict, astuple, dataclass
from typing import Any, TypeVar

from bench.benchplayer import (
    Player,
    connect_all,
    greet_all,
    own_cpu_seconds,
    playouts,
)
from bench.benchprocess import (
    cpu_seconds,
    free_port,
    machine_ticks,
    own_redis,
    run_queue_wait_s,
    serve_command,
    spawn,
)
from bench.serverreadings import answer_times, metrics_if_any, store_trips, ticker_holds

PLAYOUT_LENGTH = 4000  # no player reaches the end (then it would undo) in the default phases
DEALS = 24

P = TypeVar("P", bound=Player)
W = TypeVar("W")


@dataclass
class Figures:
    p50_ms: float
    p99_ms: float
    actions_per_s: float
    server_cpu_pct: float
    actions: int
    load_cpu_pct: float = 0.0  # the load generator's own CPU: near 100% means it limits
    # What the machine took: the share of the phase the server's event loop and the load
    # generator's were ready to run but not running (a busy core, or a virtual CPU the host
    # had not given back yet), and the share of the machine's CPU time the host took.
    server_waited_pct: float = 0.0
    load_waited_pct: float = 0.0
    steal_pct: float = 0.0


@dataclass(frozen=True)
class Reading:
    """What a phase's figures are the growth of, read at its start and at its end."""

    wall: float
    server_cpu: float
    own_cpu: float
    server_waited: float
    own_waited: float
    steal_ticks: int
    all_ticks: int

    @classmethod
    def of(cls, pid: int) -> Reading:
        """Now, for the server process ``pid`` and this load generator."""
        steal, ticks = machine_ticks()
        server_waited, own_waited = run_queue_wait_s(pid), run_queue_wait_s(os.getpid())
        cpu, own_cpu = cpu_seconds(pid), own_cpu_seconds()
        return cls(time.perf_counter(), cpu, own_cpu, server_waited, own_waited, steal, ticks)

    def since(self, earlier: Reading) -> Reading:
        """What each figure grew by from ``earlier`` to this reading."""
        return Reading(
            *(now - then for now, then in zip(astuple(self), astuple(earlier), strict=True))
        )


@contextmanager
def uncollected() -> Iterator[None]:
    """No garbage collection in this process meanwhile: what it holds is collected and
    frozen first, and collection runs again after. The load generator's own full
    collections (100 ms and more, seen in a paced phase, with its players and playouts)
    would otherwise be counted as the server's latency."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def paced(
    players: Sequence[P],
    rate: float,
    seconds: float,
    window: Callable[[], Awaitable[W]],
    answered: Callable[[P, bool], None] | None = None,
) -> tuple[list[float], W, W]:
    """Every player acts at rate/len(players) per second from a random phase, one request
    at a time, for ``seconds``: the round trips answered in the window after a warm-up, and
    ``window()`` read at the window's start and end. ``answered(player, measured)`` is told
    of every answer."""
    interval = len(players) / rate
    warmup = min(3.0, seconds / 4)
    latencies: list[float] = []
    begin = time.perf_counter()
    measure_from, measure_to = begin + warmup, begin + seconds

    async def pace(player: P) -> None:
        next_at = begin + random.random() * interval
        while True:
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            sent = time.perf_counter()
            if sent >= measure_to:
                return
            await player.act()
            measured = sent >= measure_from
            if measured:
                latencies.append(time.perf_counter() - sent)
            if answered is not None:
                answered(player, measured)
            next_at += interval

    with uncollected():
        tasks = [asyncio.create_task(pace(p)) for p in players]
        await asyncio.sleep(max(0.0, measure_from - time.perf_counter()))
        first = await window()
        await asyncio.sleep(max(0.0, measure_to - time.perf_counter()))
        last = await window()
        await asyncio.gather(*tasks)
    return latencies, first, last


async def rate_phase(players: list[Player], rate: float, seconds: float, pid: int) -> Figures:
    """Every player acts at rate/len(players) per second; round trips after a warm-up."""

    async def reading() -> Reading:
        return Reading.of(pid)

    latencies, first, last = await paced(players, rate, seconds, reading)
    return _figures(latencies, first, last)


async def saturation_phase(players: list[Player], seconds: float, pid: int) -> Figures:
    """Closed loop, no pauses: how many actions the server answers per second."""
    latencies: list[float] = []
    stop_at = 0.0

    async def run(player: Player) -> None:
        while time.perf_counter() < stop_at:
            sent = time.perf_counter()
            await player.act()
            latencies.append(time.perf_counter() - sent)

    with uncollected():
        first = Reading.of(pid)
        stop_at = first.wall + seconds
        await asyncio.gather(*(run(p) for p in players))
        last = Reading.of(pid)
    return _figures(latencies, first, last)


def _figures(latencies: list[float], first: Reading, last: Reading) -> Figures:
    ordered = sorted(latencies)
    if not ordered:
        return Figures(0, 0, 0, 0, 0)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    grown = last.since(first)

    def pct(value: float, of: float = grown.wall) -> float:
        return round(100 * value / of, 1)

    return Figures(
        p50_ms=round(statistics.median(ordered) * 1000, 2),
        p99_ms=round(p99 * 1000, 2),
        actions_per_s=round(len(ordered) / grown.wall),
        server_cpu_pct=pct(grown.server_cpu),
        actions=len(ordered),
        load_cpu_pct=pct(grown.own_cpu),
        server_waited_pct=pct(grown.server_waited),
        load_waited_pct=pct(grown.own_waited),
        steal_pct=pct(grown.steal_ticks, of=max(1, grown.all_ticks)),
    )


@dataclass
class Target:
    """A server process under test and its connected players."""

    process: subprocess.Popen[str]
    url: str
    players: list[Player]
    port: int = 0  # solrace's, for its /metrics


@asynccontextmanager
async def echo_target(
    options: dict[str, Any], pool: dict[int, list[str]], store: str | None = None
) -> AsyncIterator[Target]:
    """The echo baseline; with ``store`` (a Redis URL), the echo that stores every request
    there before answering it."""
    port = free_port()
    command = [sys.executable, "-m", "bench.echo_server", str(port), *([store] if store else [])]
    process = spawn(command, "echo serving")
    try:
        url = f"ws://127.0.0.1:{port}/"
        players = await connect_all(url, options["players"], None)
        deals = list(pool)
        for i, player in enumerate(players):
            player.race, player.actions = "echo", pool[deals[(i // 2) % len(deals)]]
        yield Target(process, url, players)
        await asyncio.gather(*(p.connection.close() for p in players))
    finally:
        process.terminate()
        process.wait(10)


@asynccontextmanager
async def solrace_target(
    options: dict[str, Any], pool: dict[int, list[str]], extra: tuple[str, ...] = ()
) -> AsyncIterator[Target]:
    port = free_port()
    command = serve_command(port, "--rate", "1000000", "--burst", "1000000", *extra)
    if options.get("redis"):
        command += ["--redis", options["redis"], "--redis-prefix", f"bench-{port}:"]
    process = spawn(command, "serving on")
    url = f"ws://127.0.0.1:{port}/ws"
    try:
        players = await connect_all(url, options["players"], "solrace.v1.msgpack")
        await greet_all(players, [f"bot{i}" for i in range(len(players))])
        deals = list(pool)
        for i in range(0, len(players) - 1, 2):
            host, guest = players[i], players[i + 1]
            deal = deals[(i // 2) % len(deals)]
            created = await host.call(
                "create_race", game="sanibel", deal=str(deal), max_players=2, countdown_ms=0
            )
            race = created["race"]["race"]
            await guest.call("join_race", race=race)
            for racer in (host, guest):
                racer.race, racer.actions = race, pool[deal]
        await asyncio.sleep(0.5)  # the races start
        yield Target(process, url, players, port)
        await asyncio.gather(*(p.connection.close() for p in players))
    finally:
        process.terminate()
        process.wait(20)


async def spectated_phases(options: dict[str, Any], solrace: Target) -> dict[str, Figures]:
    """Phase 1 again with spectators watching one race. The spectators live in a process of
    their own, so that reading their feed never delays this process's measurement of the
    players' round trips. On this one machine their process also takes CPU the server and
    the players need; spectators are on other machines in real use, so the phase runs
    twice: at equal priority, and with the spectators' process niced (what the target is
    judged on)."""
    figures: dict[str, Figures] = {}
    for label, niceness in (("spectated", 0), ("spectated_niced", 10)):
        watchers = spawn(
            [
                *(["nice", "-n", str(niceness)] if niceness else []),
                sys.executable,
                "-m",
                "bench.loadtest",
                solrace.url,
                solrace.players[0].race,
                str(options["spectators"]),
            ],
            "watching",
        )
        try:
            figures[label] = await rate_phase(
                solrace.players, options["rate"], options["seconds"], solrace.process.pid
            )
        finally:
            watchers.terminate()
            watchers.wait(20)
    return figures


@contextmanager
def redis_for(options: dict[str, Any]) -> Iterator[None]:
    """With ``redis`` = "start", a redis-server of this benchmark's own (append-only file
    fsynced every second, as in production) on a free port, for as long as it runs."""
    if options.get("redis") != "start":
        yield
        return
    with own_redis() as redis:
        options["redis"], options["redis_pid"] = redis.url, redis.pid
        yield


async def run_bench(options: dict[str, Any]) -> dict[str, Any]:
    """Both servers run side by side, each with its own players (idle while the other is
    measured). The paced phase alternates between them for ``rounds`` rounds, and
    saturation for ``saturation_rounds``, so that both are measured under the same
    conditions of a machine whose speed drifts; of each, the round with the median ratio
    is reported (a single paced phase's p99 is at the mercy of a moment's burst on a
    shared machine). With ``redis``, solrace keeps everything in Redis (an action is
    answered once stored), and a third server takes its turn in the paced rounds: the echo
    storing every request in the same Redis before answering it (the least answering only
    what is stored costs on this stack and machine)."""
    with redis_for(options):
        return await _run_bench(options)


async def _run_bench(options: dict[str, Any]) -> dict[str, Any]:
    pool = playouts("sanibel", DEALS, PLAYOUT_LENGTH, seed=7)
    async with AsyncExitStack() as targets:
        echo = await targets.enter_async_context(echo_target(options, pool))
        solrace = await targets.enter_async_context(solrace_target(options, pool))
        stored = None
        if options.get("redis"):
            stored = await targets.enter_async_context(echo_target(options, pool, options["redis"]))
        paced_rounds = []
        for _ in range(options["rounds"]):
            echo_paced = await rate_phase(
                echo.players, options["rate"], options["seconds"], echo.process.pid
            )
            before = await asyncio.to_thread(metrics_if_any, solrace.port)
            solrace_paced = await rate_phase(
                solrace.players, options["rate"], options["seconds"], solrace.process.pid
            )
            after = await asyncio.to_thread(metrics_if_any, solrace.port)
            own = {
                "ticker_paced": ticker_holds(before, after),
                "answered_paced": answer_times(before, after),
                "store_trips_paced": store_trips(before, after),
            }
            stored_paced = None
            if stored is not None:
                stored_paced = await rate_phase(
                    stored.players, options["rate"], options["seconds"], stored.process.pid
                )
            paced_rounds.append((echo_paced, solrace_paced, own, stored_paced))
        clients, seconds = options["saturation_clients"], options["saturation_seconds"]
        rounds = []
        for _ in range(options["saturation_rounds"]):
            echo_round = await saturation_phase(echo.players[:clients], seconds, echo.process.pid)
            solrace_round = await saturation_phase(
                solrace.players[:clients], seconds, solrace.process.pid
            )
            rounds.append((echo_round, solrace_round))
        spectated = await spectated_phases(options, solrace) if options["spectators"] else {}
    p99_ratios = [s.p99_ms / max(0.01, e.p99_ms) for e, s, *_ in paced_rounds]
    echo_rate, solrace_rate, own, stored_rate = median_round(paced_rounds, p99_ratios)
    ratios = [s.actions_per_s / max(1.0, e.actions_per_s) for e, s in rounds]
    echo_saturation, solrace_saturation = median_round(rounds, ratios)
    result: dict[str, Any] = {
        "settings": options,
        "echo": {"rate": asdict(echo_rate), "saturation": asdict(echo_saturation)},
        "solrace": {
            "rate": asdict(solrace_rate),
            "saturation": asdict(solrace_saturation),
            **{label: asdict(figures) for label, figures in spectated.items()},
        },
        **own,
    }
    result["ratios"] = {
        "p99_vs_echo": round(statistics.median_low(p99_ratios), 2),
        "p99_vs_echo_by_round": [round(r, 2) for r in p99_ratios],
        "saturation_vs_echo": round(statistics.median_low(ratios), 2),
        "saturation_vs_echo_by_round": [round(r, 2) for r in ratios],
    }
    for label, key in (
        ("spectated", "p99_increase_with_spectators_ms"),
        ("spectated_niced", "p99_increase_with_spectators_niced_ms"),
    ):
        if label in spectated:
            result["ratios"][key] = round(spectated[label].p99_ms - solrace_rate.p99_ms, 2)
    if stored_rate is not None:
        result["stored_echo"] = {"rate": asdict(stored_rate)}
        by_round = [s.p99_ms / max(0.01, floor.p99_ms) for _, s, _, floor in paced_rounds if floor]
        result["ratios"]["p99_vs_stored_echo"] = round(statistics.median_low(by_round), 2)
        result["ratios"]["p99_vs_stored_echo_by_round"] = [round(r, 2) for r in by_round]
    return result


def median_round(rounds: list[W], ratios: list[float]) -> W:
    """The round whose ratio is the median (the lower of the two middle ones)."""
    return rounds[ratios.index(statistics.median_low(ratios))]


async def watch_swarm(url: str, race: str, count: int) -> None:
    """``count`` spectators of ``race`` that read everything until the process is ended."""
    watchers = await connect_all(url, count, "solrace.v1.msgpack")
    await asyncio.gather(*(w.call("hello", protocol=1, name="fan") for w in watchers))
    await asyncio.gather(*(w.call("spectate", race=race) for w in watchers))
    print("watching", flush=True)
    await asyncio.gather(*(w.drain_events() for w in watchers))


if __name__ == "__main__":
    asyncio.run(watch_swarm(sys.argv[1], sys.argv[2], int(sys.argv[3])))
