"""The Redis store's primary found through Redis Sentinel.

redis-py's asyncio ``Sentinel`` asks the sentinels for the primary of a service; its
``master_for`` pool (here one that waits for a free connection, as the store's own pool
does: ``BlockingSentinelPool``) connects every new connection to the primary they name, and
drops a connection whose Redis says it became a replica. The store's own hiredis
connections (``redis_wire``) ask ``PrimaryFinder`` where the primary is each time they
connect, so after a failover both kinds of connection go to the new primary.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import redis.asyncio as redis
from redis.asyncio.connection import BlockingConnectionPool, SSLConnection, parse_url
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool

from server.store.redis_wire import Address
from server.store.replication import Replication


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """Connections to the primary the sentinels name (``SentinelConnectionPool``); a call
    finding all of them busy waits for one, within the pool's ``timeout``
    (``BlockingConnectionPool``)."""


def sentinel_client(
    url: str, replication: Replication, **pool_options: Any
) -> tuple[redis.Redis, Sentinel]:
    """A redis-py client of the primary of ``replication.service``, with the user,
    password, database and TLS of ``url`` (its host and port are not used), and the
    ``Sentinel`` it asks (with ``replication.sentinel_password`` if they want one);
    ``pool_options`` as for a ``BlockingConnectionPool``."""
    options = parse_url(url)
    connect_timeout = pool_options.get("socket_connect_timeout")
    sentinel = Sentinel(
        replication.sentinels,
        sentinel_kwargs={
            "socket_connect_timeout": connect_timeout,
            "password": replication.sentinel_password,
        },
        socket_connect_timeout=connect_timeout,
    )
    if options.get("connection_class") is SSLConnection:
        pool_options["ssl"] = True
    for key in ("username", "password", "db"):
        if key in options:
            pool_options[key] = options[key]
    client = sentinel.master_for(
        replication.service, connection_pool_class=BlockingSentinelPool, **pool_options
    )
    return client, sentinel


class PrimaryFinder:
    """Where the primary of ``service`` is now, asked of ``sentinel``: ``base`` (the
    store's address: user, password, database, TLS) at the host and port they name."""

    def __init__(self, sentinel: Sentinel, service: str, base: Address) -> None:
        self.sentinel = sentinel
        self.service = service
        self.base = base

    async def __call__(self) -> Address:
        """redis-py's ``MasterNotFoundError`` (a ``ConnectionError``) when no sentinel
        names a primary that is up."""
        host, port = await self.sentinel.discover_master(self.service)
        return dataclasses.replace(self.base, host=str(host), port=int(port), path=None)
