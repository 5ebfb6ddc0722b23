"""The Redis store on a Redis Cluster: redis-py's ``RedisCluster`` for the ordinary calls, and
the store's own hiredis connections (``redis_wire``) routed to the primary owning each
key's slot.

``cluster_client`` makes redis-py's client from the nodes given (``Replication.cluster``)
and the URL's user, password and TLS; its table of slots (``Slots``) says where each key
goes. ``ClusterBatches`` sends a batch of the writer's commands as one write per primary
(one connection to each), each command to the primary of its first key's slot: every
command of the batches touches one slot (a race's keys share the tag ``{RACE}``, a game's
boards ``{GAME}``, a player's profile ``{PLAYER}``), so the order of each slot's commands is
kept. A ``MOVED`` reply reads the slots again and sends those commands again where they are
now; an ``ASK`` sends them to the node named, after ``ASKING``; a lost connection marks the
table stale (read again before the next batch). ``ShardedSubscribers`` listens to the
nodes' shard channels (SSUBSCRIBE) on one ``Subscriber`` per primary owning some of them.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import SSLConnection, parse_url
from redis.exceptions import ResponseError

from server.store.redis_wire import Address, BatchConnection, Command, Subscriber
from server.store.replication import Replication

REDIRECTS = 3  # MOVED or ASK followed this many times per batch, then the batch fails
CLUSTER_CONNECTIONS = 1000  # per cluster node (redis-py refuses a call beyond them)
EVAL_COMMANDS = ("EVAL", "EVALSHA")
ROUTES_KEPT = 100_000  # keys whose primary the writer's batches remember (one per race)


def cluster_client(url: str, replication: Replication, **options: Any) -> RedisCluster:
    """redis-py's client of the cluster ``replication.cluster``'s nodes belong to, with the
    user, password and TLS of ``url`` (its host, port and database are not used);
    ``options`` as for a connection (timeouts, retries, decoding)."""
    told = parse_url(url)
    for key in ("username", "password"):
        if key in told:
            options[key] = told[key]
    if told.get("connection_class") is SSLConnection:
        options["ssl"] = True
    for key in ("max_connections", "timeout"):  # a pool's, not a cluster's
        options.pop(key, None)
    nodes = [ClusterNode(host, port) for host, port in replication.cluster]
    return RedisCluster(startup_nodes=nodes, max_connections=CLUSTER_CONNECTIONS, **options)


class Slots:
    """Where each key is now: the primary owning its slot, from ``cluster``'s table, as an
    ``Address`` made of ``base`` (user, password, TLS)."""

    def __init__(self, cluster: RedisCluster, base: Address) -> None:
        self.cluster = cluster
        self.base = base
        self.stale = False  # read the table again before the next use
        self.read = False  # the table was read once
        self.reads = 0  # times the table was read here (a route kept from before may be old)
        self.addresses: dict[tuple[str, int], Address] = {}  # each node's, made once

    async def primary_of(self, key: str) -> Address:
        """redis-py's errors when the cluster cannot be reached."""
        await self.ready()
        return self.now(key)

    async def ready(self) -> None:
        """The table read (once, and again when ``stale``)."""
        if self.stale:
            await self.cluster.nodes_manager.initialize()  # raises: still stale
            self.stale = False
            self.reads += 1
        elif not self.read:
            await self.cluster.initialize()
            self.reads += 1
        self.read = True

    def now(self, key: str) -> Address:
        """The primary of ``key``'s slot in the table as last read (``ready`` first)."""
        node = self.cluster.get_node_from_key(key)
        if node is None:
            raise ConnectionError(f"no node of the cluster serves the slot of {key}")
        return self.at(node.host, int(node.port))

    def at(self, host: str, port: int) -> Address:
        address = self.addresses.get((host, port))
        if address is None:
            address = dataclasses.replace(self.base, host=host, port=port, path=None)
            self.addresses[(host, port)] = address
        return address

    async def refresh(self) -> None:
        """The table read again (after a MOVED)."""
        await self.cluster.nodes_manager.initialize()
        self.stale = False
        self.reads += 1


def key_of(command: Command) -> str:
    """The key whose slot a command goes to: a script's first key, else the first word
    after the command's name (every command of a batch names its key there)."""
    if command[0] in EVAL_COMMANDS and int(command[2]) > 0:
        return str(command[3])
    return str(command[1])


class ClusterBatches:
    """The writer's batches on a cluster: each command sent to the primary of its key's
    slot, on one ``BatchConnection`` per primary; the replies handed back in the batch's
    order."""

    def __init__(self, slots: Slots, deadline: float, error: Callable[[str], Exception]) -> None:
        self.slots = slots
        self.deadline = deadline
        self.error = error
        self.connections: dict[tuple[str, int], BatchConnection] = {}
        # each key's primary as the table said when it was last read (redis-py's lookup of
        # a key's slot and node costs more than the rest of routing a command); all
        # forgotten when the table is read again, here or by redis-py's own calls (a new
        # table), or when ROUTES_KEPT keys are held
        self.routes: dict[str, Address] = {}
        self.routes_of: tuple[int, object] = (-1, None)  # the table's read, and the table

    def route(self, key: str) -> Address:
        """The primary of ``key``'s slot in the table as last read (``Slots.ready`` first)."""
        table = (self.slots.reads, self.slots.cluster.nodes_manager.slots_cache)
        if table[0] != self.routes_of[0] or table[1] is not self.routes_of[1]:
            self.routes.clear()
            self.routes_of = table
        elif len(self.routes) >= ROUTES_KEPT:
            self.routes.clear()
        where = self.routes.get(key)
        if where is None:
            where = self.routes[key] = self.slots.now(key)
        return where

    async def send(self, commands: list[Command]) -> list[Any]:
        """Every reply, in order (an error reply in its place); redirects followed; a
        connection's failure raised once every primary has answered or failed."""
        replies: list[Any] = [None] * len(commands)
        pending = list(range(len(commands)))
        asking: dict[int, Address] = {}  # command -> the node an ASK named
        slots = self.slots
        for _ in range(REDIRECTS + 1):
            await slots.ready()
            by_node: dict[Address, list[int]] = {}
            for i in pending:
                where = asking.get(i) or self.route(key_of(commands[i]))
                by_node.setdefault(where, []).append(i)
            sent = await self._sent(by_node, commands, asking)
            failed = next((error for error in sent if isinstance(error, BaseException)), None)
            if failed is not None:
                self.slots.stale = True  # a node gone: maybe failed over
                raise failed
            pending, asking = [], {}
            for ids, answers in zip(by_node.values(), sent, strict=True):
                assert isinstance(answers, list)
                for i, answer in zip(ids, answers, strict=True):
                    replies[i] = answer
                    moved = _redirect(answer)
                    if moved is not None:
                        pending.append(i)
                        if moved[0] == "ASK":
                            asking[i] = self.slots.at(moved[1], moved[2])
            if not pending:
                return replies
            pending.sort()  # each slot's commands in the batch's order
            if len(asking) < len(pending):
                await self.slots.refresh()
        return replies  # still redirected: those replies are the MOVED errors

    async def _sent(
        self, by_node: dict[Address, list[int]], commands: list[Command], asking: dict[int, Address]
    ) -> list[list[Any] | BaseException]:
        """Each node's replies, or the error that stopped them (every node's sent at once)."""
        if len(by_node) == 1:  # no task to make
            ((where, ids),) = by_node.items()
            try:
                return [await self._send(where, commands, ids, asking)]
            except Exception as error:
                return [error]
        return await asyncio.gather(
            *(self._send(where, commands, ids, asking) for where, ids in by_node.items()),
            return_exceptions=True,
        )

    async def _send(
        self, where: Address, commands: list[Command], ids: list[int], asking: dict[int, Address]
    ) -> list[Any]:
        connection = self.connections.get((where.host, where.port))
        if connection is None or connection.address != where:
            connection = BatchConnection(where, self.deadline, self.error)
            self.connections[(where.host, where.port)] = connection
        if connection.transport is None:
            async with asyncio.timeout(self.deadline):
                await connection.connect()
        sent: list[Command] = []
        for i in ids:
            if i in asking:
                sent.append(("ASKING",))
            sent.append(commands[i])
        answers = await connection.send(sent)
        return [
            answer for answer, command in zip(answers, sent, strict=True) if command != ("ASKING",)
        ]

    def close(self) -> None:
        for connection in self.connections.values():
            connection.close()


def _redirect(answer: Any) -> tuple[str, str, int] | None:
    """("MOVED" or "ASK", host, port) when ``answer`` sends its command to another node."""
    if not isinstance(answer, ResponseError):
        return None
    words = str(answer).split()
    if len(words) != 3 or words[0] not in ("MOVED", "ASK"):
        return None
    host, _, port = words[2].rpartition(":")
    return words[0], host, int(port)


class ShardedSubscribers:
    """The shard channels listened to on a cluster: one sharded ``Subscriber`` per primary
    owning some of them (found in ``slots``), each message handed to ``heard``; ``lost``
    called when any of them goes (``open`` then reads the slots again and subscribes every
    channel again where it is now), or when they were all opened again for another reason
    (a primary that could not be reached when a channel was added): messages may have been
    missed either way. A subscriber still connecting is not lost: channels added side by
    side, on primaries not listened to yet, leave the others listening."""

    def __init__(
        self,
        slots: Slots,
        heard: Callable[[str, str], None],
        lost: Callable[[], None],
        deadline: float,
        hear_every: float,
        error: Callable[[str], Exception],
    ) -> None:
        self.slots = slots
        self.heard, self.lost = heard, lost
        self.deadline, self.every, self.error = deadline, hear_every, error
        self.channels: set[str] = set()
        self.subscribers: dict[Address, Subscriber] = {}
        self.opening = asyncio.Lock()
        self.broken = False  # a subscriber lost, or one that could not connect

    async def open(self) -> None:
        """Subscribed to every channel on the primary owning it: each subscriber connected
        (at once when it is), unless one was lost or could not connect; then all of them
        opened again, the slots read again, and ``lost`` told."""
        async with self.opening:
            if not self.broken:
                try:
                    for subscriber in list(self.subscribers.values()):
                        await subscriber.open()  # a new one, or one another call opens
                    return
                except BaseException:
                    self.broken = True
                    raise
            closing, self.subscribers = self.subscribers, {}
            for subscriber in closing.values():
                subscriber.lost = _ignored  # gone on purpose
                subscriber.close()
            if closing:
                self.lost()  # they may have missed messages (ignored while it reopens)
            self.broken = False
            try:
                await self.slots.refresh()
                for channel in sorted(self.channels):
                    (await self._of(channel)).channels.add(channel)
                for subscriber in list(self.subscribers.values()):
                    await subscriber.open()
            except BaseException:
                self.broken = True
                raise

    async def add(self, channels: list[str]) -> None:
        self.channels.update(channels)
        await self.open()
        try:
            for channel in channels:
                await (await self._of(channel)).add([channel])
        except BaseException:
            self.broken = True  # a primary not reached: every one opened again next
            raise

    def _lost_one(self) -> None:
        self.broken = True
        self.lost()

    async def remove(self, channels: list[str]) -> None:
        self.channels.difference_update(channels)
        for subscriber in self.subscribers.values():
            theirs = [channel for channel in channels if channel in subscriber.channels]
            await subscriber.remove(theirs)

    async def _of(self, channel: str) -> Subscriber:
        where = await self.slots.primary_of(channel)
        subscriber = self.subscribers.get(where)
        if subscriber is None:
            subscriber = self.subscribers[where] = Subscriber(
                where,
                self.heard,
                self._lost_one,
                self.deadline,
                self.every,
                self.error,
                sharded=True,
            )
        return subscriber

    def close(self) -> None:
        for subscriber in self.subscribers.values():
            subscriber.close()


def _ignored() -> None:
    """The loss of a subscriber closed on purpose."""
