"""Two real ``solrace serve`` processes on one Redis: one service of two nodes."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import TypeVar

from harness import SERVE_QUICKLY
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client
from protocol.daily import DAY_MS, day_of
from protocol.games import rules_for
from protocol.race import view_json
from protocol.replay import replay
from server.store import Store, open_store

GAME, DEAL = "mount_sunflower", 18
FAST = ("--countdown-ms", "300", "--rate", "10000", "--burst", "10000", *SERVE_QUICKLY)
FAST += ("--rank-new-accounts",)  # the tests register their accounts the same day

Answer = TypeVar("Answer")


@asynccontextmanager
async def started_nodes(tmp_path: Path, *args: str) -> AsyncIterator[tuple[ServeProcess, ...]]:
    """Two nodes serving with ``args``, each started (it waits for its port, in a thread)."""
    with ExitStack() as stack:
        nodes = [stack.enter_context(ServeProcess(free_port(), tmp_path / n, *args)) for n in "ab"]
        for node in nodes:
            await asyncio.to_thread(node.start)
        yield tuple(nodes)


@asynccontextmanager
async def nodes_dealing(
    redis_url: str, tmp_path: Path, *args: str
) -> AsyncIterator[tuple[Store, ServeProcess, ServeProcess]]:
    """Two nodes on a Redis prefix of their own whose daily deal of ``GAME`` is ``DEAL``
    today and tomorrow, serving with ``args``; and that store."""
    prefix = f"nodes-{uuid.uuid4().hex}:"
    store = open_store(redis_url, prefix=prefix)
    now = int(time.time() * 1000)
    for day in {day_of(now), day_of(now + DAY_MS)}:
        await store.days.set_daily_deal(GAME, day, DEAL)
    async with started_nodes(tmp_path, "--redis", redis_url, "--redis-prefix", prefix, *args) as (
        a,
        b,
    ):
        yield store, a, b
    await store.close()


async def racing_across(
    a: ServeProcess, b: ServeProcess
) -> tuple[str, Client, Client, Client, Client]:
    """A race of ``GAME`` on ``DEAL`` made by Ann on node ``a``, listed on node ``b`` and
    joined there by Bob, counted down to one start signal for both; the race, Ann, Bob, and
    Cy and Dee (connected to ``a`` and ``b``, not racing)."""
    ann, cy = await Client.connect(a.url, "Ann"), await Client.connect(a.url, "Cy")
    bob, dee = await Client.connect(b.url, "Bob"), await Client.connect(b.url, "Dee")
    race: str = (await ann.create_race(GAME, deal=DEAL))["race"]

    async def listed_on_b() -> bool:
        return race in [info["race"] for info in await bob.list_races()]

    assert await eventually(listed_on_b)  # the lobby lists every node's open races
    await bob.join_race(race)
    countdowns = [(await c.next_event("countdown")).data for c in (ann, bob)]
    assert countdowns[0]["start_at_ms"] == countdowns[1]["start_at_ms"]  # one start signal
    return race, ann, bob, cy, dee


async def eventually(check: Callable[[], Awaitable[Answer]], seconds: float = 10) -> Answer:
    """The first true answer of ``check()`` within ``seconds`` (else its last answer)."""
    deadline = time.monotonic() + seconds
    while True:
        answer = await check()
        if answer or time.monotonic() > deadline:
            return answer
        await asyncio.sleep(0.05)


def view_after(actions: list[str]) -> dict[str, object]:
    """A racer's view of ``DEAL`` after ``actions``."""
    rules = rules_for(GAME)
    return view_json(rules.view(replay(rules, DEAL, actions)))


def node_of(server: ServeProcess) -> str:
    """The node id a serving process gives in its /readyz."""
    status, body = server.get("/readyz")
    assert status == 200
    node: str = json.loads(body)["node"]
    return node


async def lease_holder(store: Store, name: str) -> str | None:
    """The node holding the deployment's lease ``name`` (read straight from Redis)."""
    holder = await store._redis.get(store._keys.key("lease", name))  # type: ignore[attr-defined]
    return None if holder is None else str(holder)
