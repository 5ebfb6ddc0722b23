"""Work done once per deployment, not once per node: of two ``solrace serve`` processes on
one Redis, one holds the ``timers`` and ``daily`` leases and only it certifies the day's
deals; kill it (-9) and the other takes both leases once they lapse (10 s) and does the
work. Real processes, a real Redis."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from nodes import node_of
from prometheus_client.parser import text_string_to_metric_families
from redis_server import free_port
from serve_process import ServeProcess

from server.duties import LEASE_TTL_MS
from server.store import Store, open_store

LEASES = ("timers", "daily")
SWEEP_EVERY_S = 2.0  # a node claims or renews the leases this often
CERTIFYING = ("--certify-budget-s", "1")  # Shady Lanes deals take the whole budget


async def within(seconds: float, check: Callable[[], Awaitable[bool]]) -> bool:
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def certified(server: ServeProcess) -> float:
    status, body = server.get("/metrics")
    assert status == 200
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            if sample.name == "solrace_daily_deals_certified":
                return sample.value
    raise AssertionError("no solrace_daily_deals_certified in /metrics")


def logged(server: ServeProcess, message: str) -> list[dict[str, object]]:
    return [line for line in server.log() if line.get("msg") == message]


async def holders(store: Store) -> dict[str, str | None]:
    redis = store._redis  # type: ignore[attr-defined]
    keys = [store._keys.key("lease", name) for name in LEASES]  # type: ignore[attr-defined]
    return dict(zip(LEASES, await redis.mget(keys), strict=True))


async def test_one_of_two_nodes_holds_the_leases_and_certifies_and_the_other_takes_over(
    redis_url: str, tmp_path: Path
) -> None:
    prefix = f"once-{uuid.uuid4().hex}:"
    store = open_store(redis_url, prefix=prefix)
    args = ("--redis", redis_url, "--redis-prefix", prefix, *CERTIFYING)
    try:
        with (
            ServeProcess(free_port(), tmp_path / "a", *args) as a,
            ServeProcess(free_port(), tmp_path / "b", *args) as b,
        ):
            await asyncio.to_thread(a.start)
            node_a = node_of(a)

            async def a_holds_both() -> bool:
                return set((await holders(store)).values()) == {node_a}

            assert await within(5, a_holds_both)
            await asyncio.to_thread(b.start)
            node_b = node_of(b)

            async def a_certified_today_and_tomorrow() -> bool:
                return len(logged(a, "daily deal certified")) >= 2

            assert await within(30, a_certified_today_and_tomorrow)
            await asyncio.sleep(2 * SWEEP_EVERY_S)  # B has tried the leases a few times
            assert set((await holders(store)).values()) == {node_a}
            assert {line["lease"] for line in logged(a, "lease taken")} == set(LEASES)
            assert logged(b, "lease taken") == []
            certifications = [
                (line["game"], line["day"]) for line in logged(a, "daily deal certified")
            ]
            assert len(certifications) == len(set(certifications))  # each day's deal once
            assert logged(b, "daily deal certified") == []
            assert certified(a) >= 2 and certified(b) == 0

            a.kill()
            killed = time.monotonic()

            async def b_holds_both() -> bool:
                return set((await holders(store)).values()) == {node_b}

            assert await within(LEASE_TTL_MS / 1000 + SWEEP_EVERY_S + 3, b_holds_both)
            # not before it lapsed: 10 s after A's last renewal, at most 2 s before the kill
            assert time.monotonic() - killed >= LEASE_TTL_MS / 1000 - SWEEP_EVERY_S - 0.5
            assert {line["lease"] for line in logged(b, "lease taken")} == set(LEASES)

            async def b_does_the_daily_work() -> bool:
                return await asyncio.to_thread(certified, b) >= 2

            assert await within(30, b_does_the_daily_work)
            assert logged(b, "daily deal certified") == []  # the deals stored by A are kept
    finally:
        await store.close()
