"""Sentinels that ask for a password (``requirepass``, here set by ``ACL SETUSER``):
``--redis-sentinel-password`` (or ``SOLRACE_REDIS_SENTINEL_PASSWORD``) is what the store
gives them when it asks where the primary is; without it the store is unavailable and says
why. The password is never shown with the settings. A real primary and a real
``redis-sentinel`` watching it."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis_sentinels import SERVICE, ask
from redis_server import RedisServer, end, free_port

from bench.sentinelgroup import start_sentinel
from server.command import replication_of, settings_from
from server.store import Replication, StoreUnavailable
from server.store.redis_store import RedisStore
from solrace.cli import build_parser

PASSWORD = "the sentinels' secret"


@pytest.fixture
def sentinel_port(
    redis_server_factory: Callable[..., RedisServer], tmp_path: Path
) -> Iterator[int]:
    """A sentinel watching a primary of its own, asking every client for ``PASSWORD``."""
    primary = redis_server_factory()
    port = free_port()
    process = start_sentinel(tmp_path / "sentinel", port, primary.port)
    assert ask(port, "ACL", "SETUSER", "default", "resetpass", f">{PASSWORD}").startswith("+OK")
    yield port
    end(process)


def store_asking(port: int, password: str | None) -> RedisStore:
    replication = Replication((("127.0.0.1", port),), SERVICE, sentinel_password=password)
    return RedisStore("redis://", prefix=f"{uuid.uuid4().hex}:", replication=replication)


async def test_the_store_finds_the_primary_through_sentinels_that_ask_for_a_password(
    sentinel_port: int,
) -> None:
    store = store_asking(sentinel_port, PASSWORD)
    try:
        assert await store.days.set_daily_deal("sanibel", "2026-12-06", 7) == 7
        assert await store.days.daily_deal("sanibel", "2026-12-06") == 7
    finally:
        await store.close()


async def test_without_the_password_the_store_is_unavailable_and_says_the_sentinels_refused(
    sentinel_port: int,
) -> None:
    store = store_asking(sentinel_port, None)
    try:
        with pytest.raises(StoreUnavailable) as refused:
            await store.days.daily_deal("sanibel", "2026-12-06")
    finally:
        await store.close()
    assert "authenticat" in str(refused.value).lower()


def test_the_password_comes_from_the_environment_and_is_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOLRACE_REDIS_SENTINEL_PASSWORD", PASSWORD)
    arguments = build_parser().parse_args(["serve", "--redis-sentinel", "127.0.0.1:26379"])
    settings = settings_from(arguments)
    replication = replication_of(settings)
    assert replication.sentinel_password == PASSWORD
    assert PASSWORD not in repr(settings) and PASSWORD not in repr(replication)
