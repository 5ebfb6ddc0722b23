"""Where the Redis store finds its primary and how many replicas must hold a write before it
counts: the store's replication settings, read from the server's options without I/O (and
without redis-py, so the options can be checked before anything is imported).

``Replication.sentinels`` and ``cluster`` empty: the primary is the one the store URL names
(today's shape). With sentinels, the Redis Sentinel processes at those addresses are asked
for the primary of ``service``, when each connection is opened (again), so the store follows
a failover. With ``cluster``, the store is a Redis Cluster reached first at those addresses
(its nodes and slots are asked of them): each key goes to the primary owning its slot.
``wait_replicas`` N > 0: a batch of the writer's jobs counts as written only once ``WAIT N
wait_ms`` says N replicas have it (``redis_sender``); fewer within ``wait_ms`` is a failed
write, retried, never acknowledged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SENTINELS_MAX = 16  # sentinel addresses one option may list
CLUSTER_MAX = 64  # cluster nodes one option may list (a few are enough to find the rest)
SERVICE_DEFAULT = "solrace"
WAIT_MS_DEFAULT = 1000


@dataclass(frozen=True, slots=True)
class Replication:
    """The sentinels (host, port) to ask for the primary of ``service`` (none: the URL's
    Redis is the primary), with the password they ask for if any, and the replicas a
    write must reach within ``wait_ms``; or the nodes of a Redis Cluster to start from
    (``cluster``: never with sentinels nor replicas to wait for)."""

    sentinels: tuple[tuple[str, int], ...] = ()
    service: str = SERVICE_DEFAULT
    wait_replicas: int = 0
    wait_ms: int = WAIT_MS_DEFAULT
    sentinel_password: str | None = field(default=None, repr=False)
    cluster: tuple[tuple[str, int], ...] = ()


def sentinel_addresses(text: str) -> tuple[tuple[str, int], ...]:
    """``host:port[,host:port...]`` as (host, port) pairs; ValueError with a sentence that
    says what is wrong (an empty list, a missing or bad port, too many addresses)."""
    return addresses(text, "sentinel", SENTINELS_MAX)


def cluster_addresses(text: str) -> tuple[tuple[str, int], ...]:
    """The cluster nodes to start from, read as ``sentinel_addresses`` reads sentinels."""
    return addresses(text, "cluster node", CLUSTER_MAX)


def addresses(text: str, what: str, most: int) -> tuple[tuple[str, int], ...]:
    """``host:port[,host:port...]`` as (host, port) pairs, at most ``most`` of ``what``."""
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise ValueError(f"names no {what}; expected host:port[,host:port...]")
    if len(items) > most:
        raise ValueError(f"names {len(items)} {what}s; at most {most}")
    found: list[tuple[str, int]] = []
    for item in items:
        host, colon, port = item.rpartition(":")
        host = host.strip("[]")  # an IPv6 address may be bracketed: [::1]:26379
        if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{item!r} is not host:port (a port from 1 to 65535)")
        found.append((host, int(port)))
    return tuple(found)


SINGLE = Replication()  # the URL's Redis is the primary; a write counts once it has it
