"""The Redis store's own connections (``server/store/redis_wire.py``) on a real redis-server:
a batch's replies come back in order, an error reply in its place; a connection that cannot
be made, is lost or is refused fails with a ``ConnectionError``, and a batch left unanswered
with a ``TimeoutError``, both of which the store takes for Redis being unavailable. The
module does not import redis-py."""

from __future__ import annotations

import ast
import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import hiredis
import pytest
from redis.exceptions import NoScriptError, ResponseError
from redis_server import RedisServer, free_port

from protocol.race import LogEntry
from server.handover.jobs import AppendActions
from server.store import StoreUnavailable
from server.store.redis_calls import reply_error, wire_address
from server.store.redis_store import RedisStore
from server.store.redis_wire import Address, BatchConnection

ROOT = Path(__file__).resolve().parents[2]
Opener = Callable[..., BatchConnection]


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    """Makes batch connections (a deadline of 5 s unless given); all closed afterwards."""
    made: list[BatchConnection] = []

    def make(
        address: Address,
        deadline: float = 5.0,
        error: Callable[[str], Exception] = hiredis.ReplyError,
    ) -> BatchConnection:
        connection = BatchConnection(address, deadline, error)
        made.append(connection)
        return connection

    yield make
    for connection in made:
        connection.close()


def local(server: RedisServer, password: str | None = None) -> Address:
    return Address("127.0.0.1", server.port, password=password)


async def test_a_batch_s_replies_come_back_in_the_order_of_its_commands(
    redis_url: str, connect: Opener
) -> None:
    key = f"wire-test:{uuid.uuid4().hex}"
    connection = connect(wire_address(redis_url))
    replies = await connection.send(
        [
            ("RPUSH", key, "a"),
            ("RPUSH", key, "b"),
            ("LRANGE", key, 0, -1),
            ("ECHO", "last but one"),
            ("DEL", key),
        ]
    )
    assert replies == [1, 2, [b"a", b"b"], b"last but one", 1]


async def test_an_error_reply_comes_back_in_its_place_as_the_callers_exception(
    redis_url: str, connect: Opener
) -> None:
    """The store's ``reply_error`` makes redis-py's exceptions of error replies (NOSCRIPT is
    what its writer looks for to load its scripts); the batch goes on after them, and the
    connection stays in step."""
    key = f"wire-test:{uuid.uuid4().hex}"
    connection = connect(wire_address(redis_url), error=reply_error)
    replies = await connection.send(
        [
            ("SET", key, "x"),
            ("INCR", key),
            ("EVALSHA", "0" * 40, 0),
            ("GET", key),
            ("DEL", key),
        ]
    )
    assert replies[0] == b"OK"
    assert type(replies[1]) is ResponseError and "not an integer" in str(replies[1])
    assert isinstance(replies[2], NoScriptError)
    assert replies[3:] == [b"x", 1]
    assert await connection.send([("PING",)]) == [b"PONG"]


async def test_a_connection_to_a_port_nothing_listens_on_fails_with_a_connection_error(
    connect: Opener,
) -> None:
    connection = connect(Address("127.0.0.1", free_port()))
    with pytest.raises(ConnectionError):
        await connection.send([("PING",)])


async def test_a_batch_waiting_when_redis_is_killed_fails_with_a_connection_error(
    redis_server_factory: Callable[[], RedisServer], connect: Opener
) -> None:
    server = redis_server_factory()
    connection = connect(local(server))
    assert await connection.send([("PING",)]) == [b"PONG"]
    waiting = asyncio.create_task(connection.send([("BLPOP", "never-pushed", 0)]))
    await asyncio.sleep(0.2)
    assert not waiting.done()
    server.kill()
    with pytest.raises(ConnectionError, match="the connection to Redis was lost"):
        await asyncio.wait_for(waiting, 2)
    assert connection.transport is None


async def test_a_batch_unanswered_by_the_deadline_fails_with_a_timeout_and_the_next_connects_again(
    redis_url: str, connect: Opener
) -> None:
    connection = connect(wire_address(redis_url), deadline=0.4)
    with pytest.raises(TimeoutError, match=r"no answer within 0\.4 s") as raised:
        await connection.send([("BLPOP", f"wire-test:{uuid.uuid4().hex}", 0)])
    assert not isinstance(raised.value, ConnectionError)
    assert await connection.send([("PING",)]) == [b"PONG"]


async def test_a_wrong_password_is_refused_as_a_connection_error_and_the_right_one_taken(
    redis_server_factory: Callable[[], RedisServer], connect: Opener
) -> None:
    server = redis_server_factory()
    assert await connect(local(server)).send([("CONFIG", "SET", "requirepass", "right")])
    with pytest.raises(ConnectionError, match="Redis refused the connection: WRONGPASS"):
        await connect(local(server, "wrong")).send([("PING",)])
    assert await connect(local(server, "right")).send([("PING",)]) == [b"PONG"]


async def test_a_store_whose_password_is_refused_says_it_is_unavailable_to_its_writer(
    redis_server_factory: Callable[[], RedisServer], connect: Opener
) -> None:
    server = redis_server_factory()
    assert await connect(local(server)).send([("CONFIG", "SET", "requirepass", "right")])
    store = RedisStore(f"redis://:wrong@127.0.0.1:{server.port}/0", prefix="wire-test:")
    job = AppendActions("r1", (LogEntry("ann", 1, "deal", 5),))
    with pytest.raises(StoreUnavailable, match=r"cannot be reached.*WRONGPASS"):
        await store.write([job])
    await store.close()


def test_the_store_reads_its_url_into_the_address_of_its_own_connections() -> None:
    assert wire_address("redis://127.0.0.1:6390/0") == Address("127.0.0.1", 6390)
    assert wire_address("redis://redis.example") == Address("redis.example", 6379)
    secure = wire_address("rediss://ann:s3cret@redis.example:6380/3")
    assert secure == Address(
        "redis.example", 6380, tls=True, username="ann", password="s3cret", db=3
    )
    assert "s3cret" not in repr(secure)
    assert wire_address("unix:///run/redis.sock?db=2") == Address(path="/run/redis.sock", db=2)


def redis_py_imports(path: Path) -> list[str]:
    """The modules of redis-py that the Python file at ``path`` imports."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return [name for name in names if name == "redis" or name.startswith("redis.")]


def test_the_wire_module_does_not_import_redis_py() -> None:
    assert redis_py_imports(ROOT / "server/store/redis_wire.py") == []


def test_of_the_server_only_the_redis_store_modules_import_redis_py() -> None:
    importing = [path for path in sorted((ROOT / "server").rglob("*.py")) if redis_py_imports(path)]
    assert ROOT / "server/store/redis_calls.py" in importing
    assert all(path.parent == ROOT / "server/store" for path in importing), importing
    assert all(path.name.startswith("redis_") for path in importing), importing
