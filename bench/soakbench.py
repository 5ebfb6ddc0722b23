"""``solrace bench soak``: does a server that runs for a long time keep its memory flat?

A real ``solrace serve`` process (with ``redis``: on Redis, a redis-server of the command's
own when no URL is given) and ``players`` simulated players racing without pause at
``rate`` actions/s in all, in pairs on Sanibel deals. In each race each racer either plays
a win the solver found (and finishes; only wins of at most 1.5 x ``race_actions``
actions) or a random legal playout of 0.5 to 1.5 x ``race_actions`` actions and resigns at
its end, so races keep ending; the pair then
starts a new one (create + join) on the next deal. Every ``every_s`` seconds the server
process's resident memory (VmRSS) is read, with the races it keeps in memory (/healthz);
the drift is the RSS at the end against the RSS after a warm-up (the first 2 minutes, or
20% of a shorter run). The rate limits are the server's defaults. With ``mix``, what a real
server also sees runs beside the pairs (``bench/soakmix.py``): a new short-lived guest
every ``1 / GUESTS_PER_S`` seconds playing the daily challenge, ``SPECTATORS`` spectators
going from live race to live race, and a share of the pairs' races followed by a rematch.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.benchplayer import Listener, connect_many, greet_all, wander
from bench.benchprocess import (
    SERVE_BANNER,
    free_port,
    health,
    redis_choice,
    rss_kib,
    serve_command,
    spawn,
)
from bench.soakmix import guests, rematch, spectators
from protocol.games import rules_for
from protocol.solver import WON, solve

WARMUP_S = 120.0  # the first 2 minutes...
WARMUP_SHARE = 0.2  # ...or this share of a shorter run
TARGET_DRIFT_PCT = 5.0  # RSS flat within this after the warm-up
DEALS = 16
SOLVER_NODES = 100_000
WIN_SHARE = 0.5  # of racers, in each race, who play a win
MIB = 1024.0
GUESTS_PER_S = 1.2  # with --mix: about 700 short-lived guests in 10 minutes
SPECTATORS = 10
REMATCH_SHARE = 0.3  # of the pairs' races, followed by a rematch


@dataclass(frozen=True)
class Book:
    """What racers play on one deal: a win the solver found, and random legal playouts
    (no undo) of up to 1.5 x ``race_actions`` actions."""

    deal: int
    win: tuple[str, ...]
    wanders: tuple[tuple[str, ...], ...]


def books(count: int, longest: int, seed: int) -> list[Book]:
    rules = rules_for("sanibel")
    rng = random.Random(seed)
    found: list[Book] = []
    deal = 0
    while len(found) < count:
        deal += 1
        solution = solve(rules, rules.deal(deal), max_nodes=SOLVER_NODES)
        if solution.verdict == WON:
            wanders = tuple(wander(rules, deal, longest, rng) for _ in range(2))
            found.append(Book(deal, solution.actions, wanders))
    return found


@dataclass
class Tally:
    races: int = 0  # ended: both racers finished or resigned
    finished: int = 0  # racers who finished
    resigned: int = 0
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    mix: Counter[str] = field(default_factory=Counter)  # guests, watched, rematches, errors


@dataclass
class Sample:
    at_s: float
    rss_kib: int
    races_in_memory: int
    races_ended: int
    actions: int
    redis_rss_kib: int | None


class Pace:
    """One player's clock: an action every ``interval`` seconds (never a burst to catch
    up), from a random phase."""

    def __init__(self, interval: float, rng: random.Random) -> None:
        self.interval = interval
        self.next_at = time.perf_counter() + rng.random() * interval

    async def wait(self, stop_at: float) -> bool:
        """Wait for this player's next turn; False once the run is over."""
        delay = self.next_at - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        moment = time.perf_counter()
        self.next_at = max(self.next_at + self.interval, moment)
        return moment < stop_at


async def play(
    racer: Listener, race: str, plan: Sequence[str], pace: Pace, tally: Tally, stop_at: float
) -> bool:
    """Play ``plan`` at the racer's pace, then resign unless it finished; False if the run
    ended first."""
    outcome = None
    for seq, action in enumerate(plan, 1):
        if not await pace.wait(stop_at):
            return False
        outcome = (await racer.call("act", race=race, seq=seq, action=action))["outcome"]
        tally.actions += 1
        if outcome is not None:
            break
    if outcome is None:
        await racer.call("resign", race=race)
        outcome = "resigned"
    tally.finished += outcome == "finished"
    tally.resigned += outcome == "resigned"
    return True


async def race_on(
    pair: tuple[Listener, Listener],
    index: int,
    library: list[Book],
    race_actions: int,
    interval: float,
    tally: Tally,
    stop_at: float,
    rematches: bool = False,
) -> None:
    """One pair races deal after deal until ``stop_at``."""
    rng = random.Random(index)
    paces = [Pace(interval, rng) for _ in pair]
    host, guest = pair
    longest = race_actions * 3 // 2
    turn = index
    while time.perf_counter() < stop_at:
        book = library[turn % len(library)]
        turn += 1
        race = ""
        try:
            created = await host.call(
                "create_race", game="sanibel", deal=str(book.deal), max_players=2, countdown_ms=0
            )
            race = created["race"]["race"]
            await guest.call("join_race", race=race)
            await asyncio.gather(host.wait_started(race), guest.wait_started(race))
            plans = [
                book.win
                if len(book.win) <= longest and rng.random() < WIN_SHARE
                else book.wanders[i][: rng.randint(race_actions // 2, longest)]
                for i in range(2)
            ]
            done = await asyncio.gather(
                *(
                    play(r, race, p, c, tally, stop_at)
                    for r, p, c in zip(pair, plans, paces, strict=True)
                )
            )
            tally.races += all(done)
            if rematches and all(done) and rng.random() < REMATCH_SHARE:
                await rematch(pair, race, tally.mix)
        except RuntimeError as error:  # an error answer: counted, and the pair moves on
            tally.errors[str(error).split(": ")[1] if ": " in str(error) else str(error)] += 1
            for racer in pair:
                with contextlib.suppress(RuntimeError):
                    await racer.call("resign", race=race)


def sample_times(seconds: float, every_s: float, warmup_s: float) -> list[float]:
    ticks = {round(i * every_s, 3) for i in range(int(seconds // every_s) + 1)}
    return sorted(ticks | {warmup_s, seconds})


async def run_soak(options: dict[str, Any]) -> dict[str, Any]:
    seconds = options["minutes"] * 60.0
    warmup_s = round(min(WARMUP_S, seconds * WARMUP_SHARE), 3)
    library = books(DEALS, options["race_actions"] * 3 // 2, options["seed"])
    with redis_choice(options["redis"]) as (redis_url, redis_pid):
        port = free_port()
        command = serve_command(port)
        if redis_url:
            command += ["--redis", redis_url, "--redis-prefix", f"soak-{port}:"]
        server = spawn(command, SERVE_BANNER)
        try:
            url = f"ws://127.0.0.1:{port}/ws"
            players = await connect_many(url, options["players"], "solrace.v1.msgpack", Listener)
            await greet_all(players, [f"soak{i}" for i in range(len(players))])
            tally, samples = Tally(), list[Sample]()
            begin = time.perf_counter()
            stop_at = begin + seconds
            interval = options["players"] / options["rate"]
            pairs = [(players[i], players[i + 1]) for i in range(0, len(players) - 1, 2)]
            mix = options.get("mix", False)
            racing = [
                asyncio.create_task(
                    race_on(
                        pair, i, library, options["race_actions"], interval, tally, stop_at, mix
                    )
                )
                for i, pair in enumerate(pairs)
            ]
            if mix:
                racing.append(asyncio.create_task(guests(url, GUESTS_PER_S, stop_at, tally.mix)))
                racing.append(asyncio.create_task(spectators(url, SPECTATORS, stop_at, tally.mix)))
            if not options["json"]:
                print_header(options, warmup_s)
            for at in sample_times(seconds, options["every_s"], warmup_s):
                await asyncio.sleep(max(0.0, begin + at - time.perf_counter()))
                taken_at, rss = round(time.perf_counter() - begin, 1), rss_kib(server.pid)
                in_memory = (await asyncio.to_thread(health, port))["races"]  # after: an HTTP call
                samples.append(
                    Sample(
                        taken_at,
                        rss,
                        in_memory,
                        tally.races,
                        tally.actions,
                        rss_kib(redis_pid) if redis_pid else None,
                    )
                )
                if not options["json"]:
                    print_sample(samples[-1])
            await asyncio.gather(*racing)
            await asyncio.gather(*(p.connection.close() for p in players))
        finally:
            server.terminate()
            server.wait(30)
    return summary(options, warmup_s, samples, tally, seconds)


def summary(
    options: dict[str, Any], warmup_s: float, samples: list[Sample], tally: Tally, wall: float
) -> dict[str, Any]:
    warm = next(s for s in samples if s.at_s >= warmup_s - 0.05)
    end = samples[-1]
    drift_kib = end.rss_kib - warm.rss_kib
    after = [s for s in samples if s.at_s >= warm.at_s]
    slope = (
        statistics.linear_regression([s.at_s / 60 for s in after], [s.rss_kib for s in after])[0]
        if len(after) > 1
        else 0.0
    )
    drift_pct = 100.0 * drift_kib / warm.rss_kib
    return {
        "settings": {k: v for k, v in options.items() if k != "json"},
        "warmup_s": warmup_s,
        "samples": [asdict(s) for s in samples],
        "rss_after_warmup_mib": round(warm.rss_kib / MIB, 1),
        "rss_end_mib": round(end.rss_kib / MIB, 1),
        "drift_mib": round(drift_kib / MIB, 1),
        "drift_pct": round(drift_pct, 1),
        "slope_mib_per_min": round(slope / MIB, 2),
        "target_met": abs(drift_pct) <= TARGET_DRIFT_PCT,
        "races_ended": tally.races,
        "racers_finished": tally.finished,
        "racers_resigned": tally.resigned,
        "actions": tally.actions,
        "actions_per_s": round(tally.actions / wall, 1),
        "errors": dict(tally.errors),
        "mix": dict(tally.mix),
    }


def print_header(options: dict[str, Any], warmup_s: float) -> None:
    store = {None: "memory", "start": "Redis (a redis-server of its own, append-only file)"}.get(
        options["redis"], f"Redis at {options['redis']}"
    )
    print(
        f"soak: {options['players']} players racing in pairs at {options['rate']:g} actions/s "
        f"in all, about {options['race_actions']} actions per racer and race; store: {store}; "
        f"{options['minutes']:g} min, warm-up {warmup_s:g} s",
        flush=True,
    )
    print(
        f"{'t s':>7} {'server RSS MiB':>15} {'races in memory':>16} {'races ended':>12} "
        f"{'actions':>9} {'redis RSS MiB':>14}",
        flush=True,
    )


def print_sample(sample: Sample) -> None:
    redis = "" if sample.redis_rss_kib is None else f"{sample.redis_rss_kib / MIB:.1f}"
    print(
        f"{sample.at_s:>7.1f} {sample.rss_kib / MIB:>15.1f} {sample.races_in_memory:>16} "
        f"{sample.races_ended:>12} {sample.actions:>9} {redis:>14}",
        flush=True,
    )


def print_summary(result: dict[str, Any]) -> None:
    verdict = "met" if result["target_met"] else "NOT met"
    print(
        f"RSS after the warm-up ({result['warmup_s']:g} s): {result['rss_after_warmup_mib']} MiB; "
        f"at the end: {result['rss_end_mib']} MiB; drift {result['drift_mib']:+} MiB "
        f"({result['drift_pct']:+}%), {result['slope_mib_per_min']:+} MiB/min after the warm-up "
        f"(least squares); target: flat within +-{TARGET_DRIFT_PCT:g}%: {verdict}"
    )
    print(
        f"races ended: {result['races_ended']} ({result['racers_finished']} racers finished, "
        f"{result['racers_resigned']} resigned); actions played: {result['actions']} "
        f"({result['actions_per_s']}/s); errors: {result['errors'] or 'none'}"
    )
    if result["mix"]:
        print(f"mixed load: {result['mix']}")
