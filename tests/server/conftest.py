"""Fixtures for server tests: a real Redis for the whole session, and dedicated ones."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from redis_cluster import ClusterGroup, start_cluster
from redis_sentinels import wait_in_step
from redis_server import RedisServer, RedisServerError

from server.store import MemoryStore, Replication, Store, cluster_addresses
from server.store.redis_store import RedisStore

# the store contract's modules run on a Redis Cluster too; the other users of ``store`` on
# the memory store and one Redis
STORE_KINDS = ("memory", "redis")
CONTRACT_KINDS = ("memory", "redis", "cluster")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``store`` (this file's, not a module's own) over the kinds of store."""
    if "store" in metafunc.fixturenames and not hasattr(metafunc.module, "store"):
        contract = metafunc.module.__name__.rpartition(".")[2].startswith("test_stores_")
        kinds = CONTRACT_KINDS if contract else STORE_KINDS
        metafunc.parametrize("store", kinds, indirect=True)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a real Redis: ``REDIS_URL`` if set, else a redis-server this session starts
    (and kills at the end). Tests fail, never skip, when there is none."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    failure = started(server)
    if failure:
        pytest.fail(f"no Redis for the tests: {failure}", pytrace=False)
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterGroup]:
    """A Redis Cluster of three primaries this session starts (and kills at the end)."""
    try:
        cluster = start_cluster(tmp_path_factory.mktemp("cluster"))
    except RedisServerError as error:
        pytest.fail(f"no Redis Cluster for the tests: {error}", pytrace=False)
    yield cluster
    cluster.stop()


@pytest.fixture
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """Each store in turn (``pytest_generate_tests``): the in-memory one, a real Redis under
    a fresh prefix, and for the contract a real Redis Cluster (their keys removed
    afterwards)."""
    if request.param == "memory":
        yield MemoryStore()
        return
    prefix = f"test:{uuid.uuid4().hex}:"
    if request.param == "cluster":
        nodes = cluster_addresses(request.getfixturevalue("redis_cluster").addresses)
        redis_store = RedisStore("redis://", prefix=prefix, replication=Replication(cluster=nodes))
    else:
        redis_store = RedisStore(request.getfixturevalue("redis_url"), prefix=prefix)
    yield redis_store
    await redis_store.purge()
    await redis_store.close()


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[RedisStore]:
    """A store on the session's Redis alone, under a fresh prefix (its keys removed
    afterwards): for modules whose tests watch or break Redis itself."""
    kept = RedisStore(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    yield kept
    await kept.purge()
    await kept.close()


@pytest.fixture
def redis_server_factory(tmp_path: Path) -> Iterator[Callable[..., RedisServer]]:
    """Start dedicated redis-servers (for tests that kill them), with more redis-server
    options if given; all are stopped afterwards."""
    servers: list[RedisServer] = []

    def start(*args: str) -> RedisServer:
        server = RedisServer(tmp_path / f"redis-{len(servers)}", None, *args)
        servers.append(server)
        failure = started(server)
        if failure:
            pytest.fail(
                f"no dedicated Redis for this test (it stops its own server, so it needs "
                f"redis-server even when REDIS_URL is set): {failure}",
                pytrace=False,
            )
        return server

    yield start
    for server in servers:
        server.stop()


def started(server: RedisServer) -> str:
    """Start ``server``; why it did not start, or "" when it did."""
    try:
        server.start()
    except RedisServerError as error:
        return str(error)
    return ""


@pytest.fixture
def pair(
    redis_server_factory: Callable[..., RedisServer],
) -> Iterator[tuple[RedisServer, RedisServer]]:
    """A primary and one replica of it, in step."""
    primary = redis_server_factory("--repl-diskless-sync-delay", "0")  # replicas at once
    replica = redis_server_factory("--replicaof", "127.0.0.1", str(primary.port))
    wait_in_step(replica)
    yield primary, replica
    replica.resume()  # a test that paused it leaves it to be stopped


@pytest.fixture
async def stores() -> AsyncIterator[Callable[..., RedisStore]]:
    """Makes Redis stores under one fresh prefix (``make(url, wait_replicas, wait_ms)``);
    all closed afterwards."""
    prefix = f"wait-{uuid.uuid4().hex}:"
    made: list[RedisStore] = []

    def make(url: str, wait_replicas: int = 0, wait_ms: int = 1000) -> RedisStore:
        store = RedisStore(
            url,
            prefix=prefix,
            replication=Replication(wait_replicas=wait_replicas, wait_ms=wait_ms),
        )
        made.append(store)
        return store

    yield make
    for store in made:
        await store.close()
