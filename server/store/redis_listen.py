"""The Redis store's listening: the channels it subscribes to, heard on its own connection.

``Listening`` keeps one ``Subscriber`` (``redis_wire``) per store (on a Redis Cluster,
``ShardedSubscribers``: one per primary, ``redis_cluster``), opened on the first
``subscribe``, and hands every message heard to the store's ``listener`` (its channel as
the nodes name it, ``RedisKeys.channel_name``; its JSON parsed; a message that is not JSON,
or that the listener refuses with a ``ValueError``, is dropped), except, unless the store's
``hear_own_logs``, the log messages its own node published (known by how their text
begins). When the connection is lost it opens it again and subscribes to
every channel again, trying until Redis answers, then tells the listener to ``resync``
(messages may have been missed); ``close`` stops that and closes the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence

from server.handover.node_news import Logged, Resync, encode
from server.store.base import StoreError, Wiring, encode_json
from server.store.redis_calls import RedisCalls, reply_error
from server.store.redis_cluster import ShardedSubscribers
from server.store.redis_keys import RedisKeys
from server.store.redis_wire import Subscriber

# Messages heard are read at most once per this many seconds while they keep coming (each
# read at once when they come further apart): a node following busy races wakes up once
# for many messages instead of once each (see ``Subscriber`` in ``redis_wire``).
HEAR_EVERY_S = 0.005


class Listening:
    """The channels ``store`` (whose ``listener``, ``hear_own_logs`` and ``node`` are read
    as each message comes) subscribes to, named in Redis by ``keys``, heard on a connection
    to the primary ``calls`` names (its ``address``, or where its ``locate`` says), or on a
    cluster on the primaries owning their slots; commands on it keep the deadline of
    ``calls``, and its failures are theirs."""

    def __init__(self, store: Wiring, calls: RedisCalls, keys: RedisKeys) -> None:
        self.store = store
        self.calls = calls
        self.keys = keys
        self.subscriber: Subscriber | ShardedSubscribers | None = None  # what listens
        self.subscribed: set[str] = set()
        self.listening: asyncio.Task[None] | None = None  # subscribing again after a loss
        self.closing = False
        self.own_node = ""  # the node ``own_start`` was made for
        self.own_start = ""

    async def subscribe(self, channels: Sequence[str]) -> None:
        new = [self.keys.channel(channel) for channel in channels if channel not in self.subscribed]
        if not new:
            return
        self.subscribed.update(channels)
        if self.subscriber is None:
            self.subscriber = self._subscriber()
        async with self.calls.translated(), asyncio.timeout(self.calls.deadline):
            await self.subscriber.add(new)

    def _subscriber(self) -> Subscriber | ShardedSubscribers:
        calls = self.calls
        if calls.slots is not None:
            return ShardedSubscribers(
                calls.slots, self._heard, self._lost, calls.deadline, HEAR_EVERY_S, reply_error
            )
        return Subscriber(
            calls.address,
            self._heard,
            self._lost,
            calls.deadline,
            HEAR_EVERY_S,
            reply_error,
            calls.locate,
        )

    async def unsubscribe(self, channels: Sequence[str]) -> None:
        gone = [self.keys.channel(channel) for channel in channels if channel in self.subscribed]
        self.subscribed.difference_update(channels)
        subscriber = self.subscriber
        if not gone or subscriber is None:
            return
        await self.calls.call(subscriber.remove(gone))

    def _heard(self, channel: str, data: str) -> None:
        """A message on a subscribed channel, for the listener (this node's own log
        messages are known by how they begin, without parsing them: ``hear_own_logs``)."""
        store = self.store
        if store.listener is not None:
            if not store.hear_own_logs and data.startswith(self._own_log()):
                return
            with contextlib.suppress(ValueError):
                store.listener(self.keys.channel_name(channel), json.loads(data))

    def _own_log(self) -> str:
        """How this node's log messages begin (``BatchBuilder.log_hint``: keys in order, no
        spaces)."""
        node = self.store.node
        if self.own_node != node or not self.own_start:
            self.own_node = node
            # sorted keys (``encode_json``): the kind, the node, then the player
            hint = encode_json(encode(Logged("", node)))
            self.own_start = hint[: hint.index('"p"')]
        return self.own_start

    def _lost(self) -> None:
        """The subscriber's connection is gone: open it again and subscribe again (until
        Redis answers), then tell the listener to ``resync`` (messages may have been
        missed)."""
        if self.closing or (self.listening is not None and not self.listening.done()):
            return
        self.listening = asyncio.get_running_loop().create_task(
            self._subscribe_again(), name="store-resubscribe"
        )

    async def _subscribe_again(self) -> None:
        while True:
            await asyncio.sleep(0.2)
            if self.subscriber is None:
                return
            try:
                async with self.calls.translated(), asyncio.timeout(self.calls.deadline):
                    await self.subscriber.open()
            except StoreError:
                continue
            if self.store.listener is not None:
                self.store.listener("", encode(Resync()))
            return

    async def close(self) -> None:
        """No more subscribing again; the connection closed."""
        self.closing = True
        if self.listening is not None:
            self.listening.cancel()
            await asyncio.gather(self.listening, return_exceptions=True)
        if self.subscriber is not None:
            self.subscriber.close()
