"""A node whose clock is off the store's (Redis TIME) by more than the bound takes no
lease and no new connection, and says why (log, /healthz, /readyz, /metrics): it would
decide days and stamp times on its own wrong day. The clock is put off for real, with
libfaketime (Debian's ``faketime``) around a real ``solrace serve``; the monotonic clock,
which times races, is left alone."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from harness import SERVE_QUICKLY
from redis.asyncio import Redis
from redis_server import free_port
from serve_process import ServeProcess
from websockets.exceptions import InvalidStatus

from client.api import Client


def off_by(offset: str, directory: Path) -> dict[str, str]:
    """The environment that runs a process with its wall clock ``offset`` off (``-1d``,
    ``+0``), read again at every call from a file the test may rewrite meanwhile."""
    libraries = sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1"))
    assert libraries, "libfaketime is not installed (.ci/system-packages installs faketime)"
    clock = directory / "clock"
    clock.write_text(offset)
    return {
        "LD_PRELOAD": str(libraries[0]),
        "FAKETIME_TIMESTAMP_FILE": str(clock),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }


def health(server: ServeProcess) -> tuple[int, dict[str, object]]:
    status, body = server.get("/healthz")
    return status, json.loads(body)


async def leases_of(redis_url: str, prefix: str) -> dict[str, str | None]:
    redis = Redis.from_url(redis_url, decode_responses=True)
    try:
        return {name: await redis.get(f"{prefix}lease:{name}") for name in ("timers", "daily")}
    finally:
        await redis.aclose()


async def eventually(check, seconds: float = 15):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not (answer := await check()) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return answer


@asynccontextmanager
async def node_off_by(
    offset: str, redis_url: str, tmp_path: Path
) -> AsyncIterator[tuple[ServeProcess, str]]:
    """A node serving on its own key prefix of Redis (also given), its clock ``offset`` off."""
    prefix = f"clock-{uuid.uuid4().hex}:"
    args = ("--redis", redis_url, "--redis-prefix", prefix, *SERVE_QUICKLY)
    with ServeProcess(free_port(), tmp_path, *args, **off_by(offset, tmp_path)) as node:
        await asyncio.to_thread(node.start)
        yield node, prefix


@pytest.mark.timeout(60)
async def test_a_node_a_day_off_the_store_s_clock_takes_no_lease_and_no_player(
    redis_url: str, tmp_path: Path
) -> None:
    async with node_off_by("-1d", redis_url, tmp_path) as (node, prefix):
        status, body = await asyncio.to_thread(health, node)
        assert status == 503 and body["status"] == "degraded", body
        assert "clock" in str(body["clock"]) and "-86400" in str(body["clock"]), body
        assert await leases_of(redis_url, prefix) == {"timers": None, "daily": None}
        ready, _ = await asyncio.to_thread(node.get, "/readyz")
        assert ready == 503
        with pytest.raises(InvalidStatus) as refused:
            await Client.connect(node.url, "Ann")
        assert refused.value.response.status_code == 503
        assert b"clock" in refused.value.response.body
        _, metrics = await asyncio.to_thread(node.get, "/metrics")
        assert b"solrace_clock_off 1.0" in metrics
        said = [line for line in node.log() if line["level"] == "error"]
        assert any("clock" in line["msg"] and line["offset_ms"] < -86_000_000 for line in said)


@pytest.mark.timeout(90)
async def test_a_node_whose_clock_goes_off_while_running_gives_its_leases_up_and_back(
    redis_url: str, tmp_path: Path
) -> None:
    async with node_off_by("+0", redis_url, tmp_path) as (node, prefix):
        assert (await asyncio.to_thread(health, node))[0] == 200

        async def holds_both() -> bool:
            return set((await leases_of(redis_url, prefix)).values()) == {
                (await asyncio.to_thread(health, node))[1]["node"]
            }

        assert await eventually(holds_both)
        (tmp_path / "clock").write_text("+30s")  # the node's clock jumps 30 s ahead

        async def gave_up() -> bool:
            leases = await leases_of(redis_url, prefix)
            return (await asyncio.to_thread(health, node))[0] == 503 and not any(leases.values())

        assert await eventually(gave_up)
        (tmp_path / "clock").write_text("+0")  # put right
        assert await eventually(holds_both)
        assert (await asyncio.to_thread(health, node))[0] == 200
