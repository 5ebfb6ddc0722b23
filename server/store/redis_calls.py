"""The Redis store's calls through redis-py, and the store errors made of Redis' failures.

``RedisCalls`` owns the redis-py client of one store: a blocking pool of at most
``MAX_CONNECTIONS`` connections, redis-py's retries on a lost or refused connection, and no
socket timeout; every call it makes (``call``, ``translated``, ``pipeline``) ends within
the store's deadline, and a Redis failure comes out of it as a ``StoreError`` (Redis
unavailable: ``StoreUnavailable``) whose message names the URL without its password; any
other exception (a bug) comes out as it is. It also reads the URL for the store's own
hiredis connections (``wire_address``) and makes redis-py's exceptions of their error
replies (``reply_error``), so the errors of both kinds of connection are told apart alike.
With sentinels (``Replication``) the client is redis-py's ``Sentinel.master_for`` and
``locate`` says where the primary is now (``redis_sentinel``); on a Redis Cluster it is
redis-py's ``RedisCluster`` and ``slots`` says which primary owns a key (``redis_cluster``),
and ``mget`` reads keys of several slots; ``replicated`` keeps the
WAIT rule for a write made through redis-py, and ``acknowledged_once_replicated`` marks the
store's methods that write so (every write outside the writer's batches).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar
from urllib.parse import urlsplit

import redis.asyncio as redis
from redis.asyncio.connection import SSLConnection, parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import ExponentialBackoff
from redis.exceptions import (
    ClusterDownError,
    NoScriptError,
    ReadOnlyError,
    RedisClusterException,
    RedisClusterUnreachableError,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.base import Fenced, LogGap, StoreError, StoreUnavailable
from server.store.redis_cluster import Slots, cluster_client
from server.store.redis_sentinel import PrimaryFinder, sentinel_client
from server.store.redis_wire import Address
from server.store.replication import SINGLE, Replication

RETRIES = 3  # after the first try: at most 4 tries per command
BACKOFF_BASE_S = 0.025  # waits 0.05 s, 0.1 s, 0.2 s between tries
BACKOFF_CAP_S = 0.5
CONNECT_TIMEOUT_S = 1.0
CALL_DEADLINE_S = 5.0  # no call waits longer than this, whatever the retries do
MAX_CONNECTIONS = 100  # to Redis per process; more calls at once wait for one


class RedisCalls:
    """Calls to the Redis at ``url`` on ``redis`` (redis-py's client), each answered or
    failed within ``deadline`` seconds."""

    def __init__(
        self,
        url: str,
        deadline: float = CALL_DEADLINE_S,
        replication: Replication = SINGLE,
        mark: str = "replicated",
    ) -> None:
        self.where = _display(url)
        self.deadline = deadline
        # where the store's own connections go (redis_wire); with sentinels, ``locate``
        # says where the primary is now each time one connects
        self.address = wire_address(url)
        self.locate: Callable[[], Awaitable[Address]] | None = None
        self.sentinel: Sentinel | None = None
        self.slots: Slots | None = None  # on a cluster: which primary owns a key
        self.wait_replicas, self.wait_ms = replication.wait_replicas, replication.wait_ms
        self.mark = mark  # the key ``replicated`` writes, so WAIT covers all before it
        # A burst of more calls than connections waits for a free one (up to the
        # deadline) instead of failing at once, as redis-py's default pool does.
        options: dict[str, Any] = dict(
            max_connections=MAX_CONNECTIONS,
            timeout=deadline,
            decode_responses=True,
            socket_connect_timeout=CONNECT_TIMEOUT_S,
            # No socket timeout: redis-py keeps it with ``asyncio.wait_for``, which on
            # Python 3.11 drops a cancel that arrives as the send completes (CPython issue
            # 86296), so tasks busy with Redis could not be stopped; every call has the
            # store's deadline instead (``call``, and ``asyncio.timeout`` around the rest).
            socket_timeout=None,
            retry=Retry(ExponentialBackoff(cap=BACKOFF_CAP_S, base=BACKOFF_BASE_S), RETRIES),
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
        )
        if replication.sentinels:
            self.redis, self.sentinel = sentinel_client(url, replication, **options)
            self.locate = PrimaryFinder(self.sentinel, replication.service, self.address)
            sentinels = ",".join(f"{host}:{port}" for host, port in replication.sentinels)
            self.where = f"the primary of {replication.service!r} (sentinels {sentinels})"
        elif replication.cluster:
            cluster = cluster_client(url, replication, **options)
            self.redis = cluster  # type: ignore[assignment]  # the same commands, by slot
            self.slots = Slots(cluster, self.address)
            nodes = ",".join(f"{host}:{port}" for host, port in replication.cluster)
            self.where = f"the Redis Cluster of {nodes}"
        else:
            self.redis = redis.Redis.from_pool(
                redis.BlockingConnectionPool.from_url(url, **options)
            )

    async def mget(self, keys: list[str]) -> list[Any]:
        """The values of ``keys`` (None for a missing one), in order, within the deadline;
        on a cluster read per slot (not one snapshot: each key's value is one)."""
        if self.slots is not None:
            found: list[Any] = await self.call(self.slots.cluster.mget_nonatomic(keys))
            return found
        values: list[Any] = await self.call(self.redis.mget(keys))
        return values

    async def replicated(self) -> None:
        """With replicas to wait for (``Replication.wait_replicas``): return once that
        many hold everything the primary held now (``INCR`` of the mark, a write after all
        of it, then ``WAIT`` on the same connection), else ``StoreUnavailable``
        (``not_replicated``). At once without."""
        if not self.wait_replicas:
            return
        async with self.pipeline() as pipe:
            pipe.incr(self.mark)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_ms)
            _, confirmed = await pipe.execute()
        if confirmed < self.wait_replicas:
            raise self.not_replicated(confirmed)

    def not_replicated(self, confirmed: object) -> StoreUnavailable:
        """The writes are on the primary but fewer replicas than asked for confirmed them
        (``confirmed``: how many, or the error ``WAIT`` answered)."""
        told = (
            f"only {confirmed} of the {self.wait_replicas} replicas asked for confirmed them "
            f"within {self.wait_ms} ms"
            if isinstance(confirmed, int)
            else f"WAIT failed ({confirmed})"
        )
        return StoreUnavailable(
            f"the Redis store at {self.where} has the writes, but {told}: they are not "
            "acknowledged, and are written again"
        )

    async def close(self) -> None:
        """The client's connections closed, and the sentinels' if any."""
        await self.redis.aclose()
        if self.sentinel is not None:
            await self.sentinel.aclose()

    async def call(self, operation: Awaitable[Any]) -> Any:
        """Await one Redis operation, turning its failures into store errors."""
        async with self.translated():
            async with asyncio.timeout(self.deadline):
                return await operation

    @asynccontextmanager
    async def translated(self) -> AsyncIterator[None]:
        try:
            yield
        except Exception as error:
            translated = self.store_error(error)
            if translated is None:
                raise
            raise translated from error

    @asynccontextmanager
    async def pipeline(self) -> AsyncIterator[Any]:
        """A pipeline (no transaction) whose errors are the store's, within the deadline."""
        async with (
            self.translated(),
            asyncio.timeout(self.deadline),
            self.redis.pipeline(transaction=False) as pipe,
        ):
            yield pipe

    def store_error(self, error: Exception) -> StoreError | None:
        """The store error for a Redis failure; None for anything else (a bug). The store's
        own connections' ``WireTimeout`` and ``WireLost`` are a ``TimeoutError`` and an
        ``OSError``: unavailable."""
        if isinstance(
            error,
            RedisConnectionError
            | RedisTimeoutError
            | TimeoutError
            | OSError
            | RedisClusterUnreachableError,
        ):
            detail = str(error) or f"no answer within {self.deadline} s"
            return StoreUnavailable(
                f"the Redis store at {self.where} cannot be reached "
                f"({type(error).__name__}: {detail}); "
                "check that Redis is running and that the store URL is right"
            )
        if isinstance(error, ClusterDownError | TryAgainError | RedisClusterException):
            return StoreUnavailable(
                f"the Redis store at {self.where} cannot serve the keys asked for now "
                f"({type(error).__name__}: {error}); check the cluster's state (CLUSTER INFO)"
            )
        if isinstance(error, ReadOnlyError):
            return StoreUnavailable(
                f"the Redis store at {self.where} is a read-only replica ({error}); "
                "point the store URL at the primary"
            )
        if isinstance(error, RedisError):
            return StoreError(
                f"the Redis store at {self.where} refused a command "
                f"({type(error).__name__}: {error})"
            )
        return None

    def refused(self, error: Exception) -> StoreError:
        """A command Redis refused (out of memory, read-only, a script error)."""
        if isinstance(error, Fenced):
            return error
        if str(error).startswith("LOGGAP "):  # LOGGAP <player>: ...
            player = str(error).split()[1].rstrip(":")
            return LogGap(f"the Redis store at {self.where} refused a log entry: {error}", player)
        kind = (
            StoreUnavailable
            if isinstance(
                error, ReadOnlyError | RedisConnectionError | ClusterDownError | TryAgainError
            )
            else StoreError
        )
        return kind(
            f"the Redis store at {self.where} refused a write ({type(error).__name__}: {error})"
        )


def reply_error(text: str) -> ResponseError:
    """The redis-py exception for an error reply (what the store's callers look for; the
    store's own connections make their error replies with it)."""
    if text.startswith("NOSCRIPT"):
        return NoScriptError(text)
    if text.startswith("READONLY"):
        return ReadOnlyError(text)
    if text.startswith("CLUSTERDOWN"):
        return ClusterDownError(text)
    if text.startswith("TRYAGAIN"):
        return TryAgainError(text)
    return ResponseError(text)


def wire_address(url: str) -> Address:
    """Where the store's own connections go, read from ``url`` by redis-py's own parser
    (as its pool reads it): host and port or a unix socket, TLS for ``rediss://``, the
    user, password and database."""
    options = parse_url(url)
    return Address(
        host=options.get("host", "localhost"),
        port=options.get("port", 6379),
        path=options.get("path"),
        tls=options.get("connection_class") is SSLConnection,
        username=options.get("username"),
        password=options.get("password"),
        db=options.get("db", 0),
    )


def _display(url: str) -> str:
    """The URL without user name or password, fit for error messages and logs."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"unix://{parts.path}"
    host = parts.hostname or "localhost"
    port = parts.port or 6379
    return f"{parts.scheme}://{host}:{port}{parts.path or ''}"


class _Calling(Protocol):
    _calls: RedisCalls


Role = TypeVar("Role", bound=_Calling)
Given = ParamSpec("Given")
Answer = TypeVar("Answer")


def acknowledged_once_replicated(
    write: Callable[Concatenate[Role, Given], Coroutine[Any, Any, Answer]],
) -> Callable[Concatenate[Role, Given], Coroutine[Any, Any, Answer]]:
    """A store method that writes, answering only once ``RedisCalls.replicated`` holds
    (whatever it answers, and whichever way it returns: a write done again after a
    ``not_replicated`` finds the first one on the primary, and answers only once the
    replicas have that too)."""

    @functools.wraps(write)
    async def waited(role: Role, /, *args: Given.args, **kwargs: Given.kwargs) -> Answer:
        answer = await write(role, *args, **kwargs)
        await role._calls.replicated()
        return answer

    return waited
