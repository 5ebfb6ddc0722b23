"""Shared by the tests of every package: a real race server in the test's event loop on a
real socket of 127.0.0.1, the settings tests run it with, and the winning action lists kept
as test data."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from client.api import Client
from server.app import RaceServer
from server.config import Settings
from server.store import MemoryStore, Store

WINS = Path(__file__).resolve().parents[1] / "data" / "wins"

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
    connections_per_address=0,  # likewise
)


@asynccontextmanager
async def running_server(store: Store | None = None, **changes: Any) -> AsyncIterator[RaceServer]:
    server = RaceServer(dataclasses.replace(TEST_SETTINGS, **changes), store or MemoryStore())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


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
