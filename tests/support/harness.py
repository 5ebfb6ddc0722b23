"""Shared by the tests of every package: a real race server in the test's event loop on a
real socket of 127.0.0.1, the settings tests run it with, and the winning action lists kept
as test data."""

from __future__ import annotations

import dataclasses
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from client.api import Client
from server.app import RaceServer
from server.config import Settings
from server.store import MemoryStore, Store

WINS = Path(__file__).resolve().parents[1] / "data" / "wins"

# ``solrace serve`` as tests run it: no certification worker, and runs played at a
# machine's pace count at once (holding flagged runs has its own tests), as TEST_SETTINGS
SERVE_QUICKLY = (
    *("--no-certify", "--no-hold-flagged", "--fair-play-solver-nodes", "0"),
    *("--ranked-account-days", "0", "--ranked-account-games", "0"),
)

TEST_SETTINGS = Settings(
    host="127.0.0.1",
    port=0,
    countdown_ms=100,
    grace_ms=2_000,
    daily_certify=False,
    ping_interval_s=5,
    ping_timeout_s=5,
    feed_interval_ms=10,
    standings_interval_ms=50,
    shutdown_grace_s=2,
    rate_per_s=1000,  # the tests play fast; the rate limit has its own test
    burst=1000,
    auth_per_address=100_000,  # every test player comes from 127.0.0.1; tested on its own
    auth_per_username=100_000,  # likewise
    registrations_per_address_day=100_000,  # likewise
    new_accounts_ranked_today=True,  # tests register their accounts; tested on its own
    ranked_account_days=0,  # likewise: good standing has its own tests
    ranked_account_games=0,
    connections_per_address=0,  # likewise
    hold_flagged=False,  # tests play at a machine's pace; holding is tested on its own
    fair_play_solver_nodes=0,  # no solver line (a worker process each); likewise
)


@asynccontextmanager
async def running_server(store: Store | None = None, **changes: Any) -> AsyncIterator[RaceServer]:
    server = RaceServer(dataclasses.replace(TEST_SETTINGS, **changes), store or MemoryStore())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@asynccontextmanager
async def two_servers(
    redis_url: str, **changes: Any
) -> AsyncIterator[tuple[RaceServer, RaceServer]]:
    """Two servers in the test's event loop on one real Redis, under a fresh prefix (purged
    afterwards): one service of two nodes."""
    from server.store.redis_store import RedisStore  # only the tests of two nodes need redis

    prefix = f"two-{uuid.uuid4().hex}:"
    stores = [RedisStore(redis_url, prefix=prefix) for _ in range(2)]
    try:
        async with (
            running_server(stores[0], **changes) as a,
            running_server(stores[1], **changes) as b,
        ):
            yield a, b
    finally:
        await stores[0].purge()
        for store in stores:
            await store.close()


def url(server: RaceServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


async def player(server: RaceServer, name: str, **options: Any) -> Client:
    return await Client.connect(url(server), name, **options)


async def member(server: RaceServer | str, name: str) -> Client:
    """A player with an account named ``name`` (registered as a new player would)."""
    client = await Client.connect(server if isinstance(server, str) else url(server), name)
    await client.register(name, password_for(name))
    return client


def password_for(name: str) -> str:
    return f"{name}'s secret pass"


def winning_actions(game: str, deal: int) -> list[str]:
    """A winning action list kept as test data (proven by the solver, checked by replay)."""
    lines = (WINS / f"{game}-{deal}.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


# A rated race needs what a real one has (protocol/rated.py): accounts on addresses of
# their own (the balancer's X-Forwarded-For, trusted from 127.0.0.1), paired by the server,
# a few actions each, and an end by a finish or the time limit (short here).
RATED = {"trusted_proxies": ("127.0.0.1",), "max_race_ms": 1_500, "countdown_ms": 0}


async def member_at(server: RaceServer, name: str, address: str) -> Client:
    """A member, as ``member``, connecting from ``address`` (behind the trusted proxy)."""
    client = await Client.connect(url(server), name, headers={"X-Forwarded-For": address})
    await client.register(name, password_for(name))
    return client


async def quick_race_played(
    first: Client, second: Client, game: str, actions: int = 3, bots: bool = False
) -> str:
    """``first`` and ``second`` are paired by the server, each plays ``actions`` legal
    actions (the first legal each time; ``second`` one more, so the two do not tie), and
    the race's time limit ends it: its id."""
    await first.quick_race(game, bots=bots)  # ``bots``: a person who asked to meet a bot
    await second.quick_race(game)
    race: str = (await first.next_event("paired")).data["race"]["race"]
    for extra, client in enumerate((first, second)):
        await client.next_event("started")
        legal = (await client.snapshot(race))["you"]["legal"]
        for _ in range(actions + extra if actions else 0):
            answer = await client.act(race, legal[0], legal=True)
            legal = answer["legal"]
    await first.next_event("result", timeout=10)
    return race


async def daily_run_resigned(client: Client, game: str) -> str:
    """``client`` starts today's ranked daily of ``game`` and resigns it: the race's id."""
    started = await client.daily_start(game)
    assert started["ranked"] is True
    race: str = started["race"]["race"]
    await client.resign(race)
    await client.next_event("result", timeout=10)
    return race


async def race_alone_resigned(client: Client, game: str, deal: int, actions: int = 1) -> str:
    """A race for ``client`` alone on ``deal``: its first ``actions`` winning actions
    played, then resigned (the race is over); its id."""
    race: str = (await client.create_race(game, deal=deal, max_players=1))["race"]
    await client.next_event("started")
    for action in winning_actions(game, deal)[:actions]:
        await client.act(race, action)
    await client.resign(race)
    return race


def health(port: int) -> dict[str, object]:
    """The /healthz answer of the server on ``port`` (a 503 "degraded" one too)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            return json.loads(answer.read())  # type: ignore[no-any-return]
    except urllib.error.HTTPError as error:
        return json.loads(error.read())  # type: ignore[no-any-return]


async def racing_alone(server: RaceServer, name: str, actions: list[str]) -> tuple[Client, str]:
    """``name`` races alone on the Mount Sunflower deal the wins are kept for, and plays
    ``actions``: the client and the race's id."""
    client = await player(server, name)
    race = (await client.create_race("mount_sunflower", deal=18, max_players=1))["race"]
    await client.next_event("started")
    for action in actions:
        await client.act(race, action)
    return client, race
