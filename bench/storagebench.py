"""``solrace bench storage``: the Redis memory a deployment keeps for what it stores.

A fresh redis-server of the command's own (nothing on disk) and the server's own store,
opened by its public face (``server.store.open_store``) and written to with the server's
typed jobs (exported by ``server.store``), one unit at a time as the server would write
them:

- a finished race of 2 racers x 200 actions (``record_of(race)`` when created, joined,
  counting down and started: each one step ``save_race_if`` on the record's version, as
  the server's director does; every accepted action: ``AppendActions``; both resign:
  ``EndRace`` with the final record and result, kept 30 days);
- a daily-like attempt: 1 racer x 150 actions, the same way (mode "daily");
- an identity (``SaveIdentity``: a resume token's hash, kept 365 days);
- a daily board entry (the day's claim, then ``RecordDaily``), of a run that did not
  finish, and of one that finished (also on the game's all-time board).

Races are the pure core's (``protocol.race.Race``): random legal Sanibel playouts, a
racer's actions about 1.5 s apart. For each kind the store is emptied (FLUSHALL), Redis's
``used_memory`` (INFO memory) is read before and after, less any change in its clients'
buffers; then ``MEMORY USAGE`` (every nested value sampled) of every key, grouped by kind.
Redis's own figures are read with ``redis-cli`` (this package imports no ``redis``:
``tests/server/test_server_boundary.py``).
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bench.benchplayer import wander
from bench.rediscli import RedisCli
from protocol.daily import day_of
from protocol.games import rules_for
from protocol.race import Ending, Now, Race, RaceSettings
from protocol.race_record import record_of
from protocol.race_views import race_result
from protocol.ranking import Run
from server.store import (
    AppendActions,
    EndRace,
    Job,
    Listed,
    RecordDaily,
    SaveIdentity,
    Store,
    open_store,
    token_hash,
)

KEEP_RACE_S = 30 * 86_400  # --keep-race-logs-days 30
KEEP_IDENTITY_S = 365 * 86_400  # --keep-identities-days 365
STEP_MS = 1500  # between a racer's actions, on average
GAME = "sanibel"
MIB = 1024 * 1024
PREFIX = "solrace:"


@dataclass
class Kind:
    label: str
    unit: str
    actions: int  # per unit (0: not a race)
    bytes_per_unit: float = 0.0
    clients_change: int = 0
    keys: dict[str, tuple[int, int]] | None = None  # key kind -> (keys, MEMORY USAGE sum)


def player_id(rng: random.Random) -> str:
    return f"p{rng.getrandbits(48):012x}"


async def race_jobs(
    store: Store, racers: int, actions: int, mode: str, rng: random.Random
) -> list[Job]:
    """What the server writes for one race from its creation to its end: its steps
    (stored here, each on the record's version), then its actions and its end, in order."""
    rules = rules_for(GAME)
    deal, first = playout(actions, rng)
    daily = mode == "daily"
    settings = RaceSettings(
        GAME,
        dict(rules.options),
        deal,
        max_players=racers,
        countdown_ms=0 if daily else 3000,
        mode=mode,
        day=day_of(int(time.time() * 1000)) if daily else None,
        nonce=secrets.token_hex(16),
    )
    players = [player_id(rng) for _ in range(racers)]
    race = Race(secrets.token_hex(8), settings, rules, host=players[0])
    jobs: list[Job] = []
    version = 0

    async def step() -> None:
        nonlocal version
        assert await store.races.save_race_if(race.id, record_of(race), version, Listed.of(race))
        version += 1

    for player in players:
        race.join(player, f"Player {rng.randrange(10_000)}")
        await step()
    start = Now(10**9, int(time.time() * 1000))
    race.schedule_start(None, start)
    await step()
    race.begin()
    await step()
    late = 0
    for index, player in enumerate(players):
        t_ms = settings.countdown_ms
        actions_played = first if index == 0 else wander(rules, deal, actions, rng)
        for seq, action in enumerate(actions_played, 1):
            t_ms += rng.randint(STEP_MS // 2, STEP_MS * 3 // 2)
            answer = race.act(player, seq, action, Now(start.mono_ms + t_ms, start.wall_ms + t_ms))
            assert answer.ok and answer.entry is not None, answer.reply
            jobs.append(AppendActions(race.id, (answer.entry,)))
        late = max(late, t_ms)
    end = Now(start.mono_ms + late + 1000, start.wall_ms + late + 1000)
    for player in players:
        race.retire(player, Ending.RESIGNED, end)
    jobs.append(EndRace(race.id, record_of(race), race_result(race), KEEP_RACE_S, version))
    return jobs


def playout(actions: int, rng: random.Random) -> tuple[int, tuple[str, ...]]:
    """A random deal number (as the server draws them) with a random legal playout of
    ``actions`` actions on it (a deal whose playout gets stuck sooner is skipped)."""
    rules = rules_for(GAME)
    while True:
        deal = rng.randrange(1, 10**20)
        actions_played = wander(rules, deal, actions, rng)
        if len(actions_played) == actions:
            return deal, actions_played


def identity_jobs(rng: random.Random) -> list[Job]:
    token = secrets.token_urlsafe(24)
    name = f"Player {rng.randrange(10_000)}"
    return [SaveIdentity(token_hash(token), player_id(rng), name, KEEP_IDENTITY_S)]


def daily_run(finished: bool, rng: random.Random) -> Run:
    at_ms = int(time.time() * 1000)
    return Run(
        player=player_id(rng),
        name=f"Player {rng.randrange(10_000)}",
        race=secrets.token_hex(8),
        game=GAME,
        deal=rng.randrange(1, 10**20),
        finished=finished,
        time_ms=rng.randrange(60_000, 900_000),
        actions=rng.randrange(100, 300),
        progress=rules_for(GAME).card_total if finished else rng.randrange(0, 40),
        at_ms=at_ms,
    )


async def board_entry(store: Store, finished: bool, rng: random.Random) -> list[Job]:
    """A ranked daily run: its claim is made here (as ``daily_start`` does); its job."""
    run = daily_run(finished, rng)
    day = day_of(run.at_ms)
    assert await store.days.claim_daily(GAME, day, run.player, run.race)
    return [RecordDaily(GAME, day, run)]


async def memory(probe: RedisCli) -> tuple[int, int]:
    """Redis's ``used_memory`` and the part of it its clients' buffers take."""
    info = await probe.info("memory")
    return int(info["used_memory"]), int(info["mem_clients_normal"])


async def settled(probe: RedisCli, clients: int, settle_s: float) -> tuple[int, int]:
    """Redis's memory once its clients' buffers are back to ``clients`` bytes (Redis
    shrinks a query buffer idle for 2 s), or after ``settle_s``."""
    deadline = time.monotonic() + settle_s
    used, now_clients = await memory(probe)
    while now_clients != clients and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        used, now_clients = await memory(probe)
    return used, now_clients


def key_kind(key: str) -> str:
    key = key.removeprefix(PREFIX)
    key = re.sub(r"\{[0-9a-f]{16}\}", "{RACE}", key)
    key = re.sub(r"p[0-9a-f]{12}", "PLAYER", key)
    key = re.sub(r"[0-9a-f]{64}", "HASH", key)
    return re.sub(r"\d{4}-\d\d-\d\d", "DAY", key)


async def key_usage(probe: RedisCli) -> dict[str, tuple[int, int]]:
    counted: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    keys = await probe.keys()
    sizes = await probe.calls([("MEMORY", "USAGE", key, "SAMPLES", "0") for key in keys])
    for key, size in zip(keys, sizes, strict=True):
        row = counted[key_kind(key)]
        row[0] += 1
        row[1] += int(size or 0)
    return {kind: (row[0], row[1]) for kind, row in sorted(counted.items())}


async def measure(
    store: Store,
    probe: RedisCli,
    kind: Kind,
    count: int,
    unit_jobs: Callable[[], Awaitable[list[Job]]],
    settle_s: float,
) -> None:
    await store.write(await unit_jobs())  # warm-up: connections opened, scripts loaded
    await probe.call("FLUSHALL", "SYNC")
    await asyncio.sleep(settle_s)
    before, clients = await memory(probe)
    for _ in range(count):
        for error in await store.write(await unit_jobs()):
            if error is not None:
                raise error
    after, clients_after = await settled(probe, clients, settle_s)
    kind.clients_change = clients_after - clients
    kind.bytes_per_unit = (after - before - kind.clients_change) / count
    kind.keys = await key_usage(probe)


async def run_storage(options: dict[str, Any], url: str) -> dict[str, Any]:
    """The figures, measured on the fresh Redis at ``url`` (the caller's: nothing else
    may use it)."""
    count = options["races"]
    rng = random.Random(options["seed"])
    store = open_store(url, prefix=PREFIX)
    probe = RedisCli(url)

    async def race() -> list[Job]:
        return await race_jobs(store, 2, 200, "race", rng)

    async def attempt() -> list[Job]:
        return await race_jobs(store, 1, 150, "daily", rng)

    async def identity() -> list[Job]:
        return identity_jobs(rng)

    async def unfinished() -> list[Job]:
        return await board_entry(store, False, rng)

    async def finished() -> list[Job]:
        return await board_entry(store, True, rng)

    kinds = [
        (Kind("finished race, 2 racers x 200 actions", "race", 400), race),
        (Kind("daily-like attempt, 1 racer x 150 actions", "race", 150), attempt),
        (Kind("identity (resume token)", "identity", 0), identity),
        (Kind("daily board entry, did not finish", "entry", 0), unfinished),
        (Kind("daily board entry, finished (+ all-time board)", "entry", 0), finished),
    ]
    try:
        version = (await probe.info("server"))["redis_version"]
        for kind, unit_jobs in kinds:
            await measure(store, probe, kind, count, unit_jobs, options["settle_s"])
    finally:
        await store.close()
    return {"settings": options, "redis_version": version, "kinds": [vars(k) for k, _ in kinds]}


def print_table(result: dict[str, Any]) -> None:
    count = result["settings"]["races"]
    print(
        f"storage: Redis {result['redis_version']}, the server's Redis store and jobs, "
        f"{count:,} units of each kind; used_memory (INFO memory) after - before, per unit"
    )
    print(f"{'what':58} {'bytes/unit':>11} {'bytes/action':>13} {'MiB per 1,000':>14}")
    for kind in result["kinds"]:
        per_action = f"{kind['bytes_per_unit'] / kind['actions']:.1f}" if kind["actions"] else ""
        mib = kind["bytes_per_unit"] * 1000 / MIB
        print(f"{kind['label']:58} {kind['bytes_per_unit']:>11.0f} {per_action:>13} {mib:>14.2f}")
    for kind in result["kinds"]:
        if kind["actions"]:
            logs = sum(total for key, (_, total) in kind["keys"].items() if ":log:" in key)
            print(
                f"{kind['label']}: the action logs (streams) alone, by MEMORY USAGE: "
                f"{logs / count / kind['actions']:.1f} bytes per action"
            )
    print("MEMORY USAGE (samples 0) of every key, by kind of key: keys in all, bytes per unit")
    for kind in result["kinds"]:
        print(f"  {kind['label']}:")
        for key, (keys, total) in kind["keys"].items():
            print(f"    {key:44} {keys:>7,} keys {total / count:>9.0f} bytes")
        if kind["clients_change"]:
            print(f"    (clients' buffers changed by {kind['clients_change']} bytes: left out)")
