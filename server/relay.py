"""What nodes tell each other, through the store's channels (Redis pub/sub; in memory, the
one node follows no race: it would hear only itself).

On a race's channel: its record changed (``record``: the node absorbs the new version) or
a racer's log moved on (``log``: published once the entries are stored, and carrying them
when they are few; the node applies them when they continue its replica's log, else reads
the new entries from the log, so it gets exactly what is stored, in order, whatever it
missed). On a node's own channel: a player's
session moved to another node (``taken``: close the connection here and let the session
go), or an event for a player whose session is here (``push``). Each node hears a race's
news once, whatever number of its players and spectators follow it, and fans it out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from protocol.player_events import Paired, PlayerEvent, Started
from protocol.race import Now, Phase
from protocol.race_views import racer_view
from server import read_back
from server.effects import Effects
from server.node_news import (
    CarriedEntries,
    Logged,
    Pushed,
    RecordChanged,
    Resync,
    TakenOver,
    decode,
    encode,
)
from server.race_service import RaceService
from server.retrying import until_the_store_takes_it
from server.rooms import Room
from server.sessions import Sessions
from server.store import Store, StoreError, node_channel, race_channel

log = logging.getLogger("solrace.relay")


class Relay:
    def __init__(
        self,
        node: str,
        store: Store,
        races: RaceService,
        sessions: Sessions,
        run: Callable[[Effects], object],
        replaced: Callable[[str], None],
        clock: Callable[[], Now],
    ) -> None:
        self.node = node
        self.store = store
        self.races = races
        self.sessions = sessions
        self.run = run
        self.replaced = replaced
        self.clock = clock
        self.following: set[str] = set()
        self.pulling: dict[tuple[str, str], bool] = {}  # (race, player) -> pull again after
        self.tasks: set[asyncio.Task[Any]] = set()
        store.listener = self.heard

    async def start(self) -> None:
        await self.store.bus.subscribe([node_channel(self.node)])

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()

    # ------------------------------------------------------------------ following races

    def follow(self, room: Room) -> None:
        """Subscribe to the race's channel, then read what changed while subscribing. On a
        store no other node uses there is nothing to hear: this node makes every change."""
        if room.id in self.following:
            return
        self.following.add(room.id)
        if not self.store.shared:
            return

        async def follow() -> None:
            await self.store.bus.subscribe([race_channel(room.id)])
            await self._caught_up(room)
            for player in room.race.racers:
                self._pull(room, player)

        self._spawn(follow())

    def unfollow(self, room: Room) -> None:
        if room.id in self.following:
            self.following.discard(room.id)
            self._spawn(self.store.bus.unsubscribe([race_channel(room.id)]))

    # ------------------------------------------------------------------ hearing

    def heard(self, channel: str, message: dict[str, Any]) -> None:
        """A message from another node (``server/node_news.py``; ours, and anything that
        is not news, are ignored)."""
        news = decode(message)
        if news is None or (not isinstance(news, Resync) and news.node == self.node):
            return
        if isinstance(news, Resync):  # messages may have been missed: read every race again
            for race_id in list(self.following):
                room = self.races.rooms.get(race_id)
                if room is not None:
                    self._spawn(self._resynced(room))
            return
        if channel.startswith("race:"):
            room = self.races.rooms.get(channel.removeprefix("race:"))
            if room is None:
                return
            if isinstance(news, RecordChanged):
                self._spawn(self._caught_up(room))
            elif isinstance(news, Logged):
                self._logged(room, news.player, news.entries)
        elif channel == node_channel(self.node):
            if isinstance(news, TakenOver):
                self.replaced(news.player)
            elif isinstance(news, Pushed) and isinstance(news.event, Paired):
                self._spawn(self._paired(news.player, news.event))
            elif isinstance(news, Pushed):
                self.sessions.push(news.player, news.event)

    async def _paired(self, player: str, paired: Paired) -> None:
        """``player`` here was paired by another node: follow the race they are in now,
        then tell them; and, when it started before this node followed it (no countdown),
        that it started, with their cards (the start this node will never see)."""
        room = await self.races.find(paired.race["race"], self.clock())
        self.sessions.push(player, paired)
        if room.race.phase is Phase.RUNNING and player in room.race.racers:
            self.sessions.push(player, Started(racer_view(room.race, player)))

    async def _resynced(self, room: Room) -> None:
        """The store's connection was lost and is back: read the race back first (the
        store may have come back with less than it acknowledged: ``read_back``), however
        long the store takes, then catch up with what other nodes did meanwhile."""

        async def read() -> None:
            self.run(await read_back.read_back(self.races, room, self.clock()))

        await until_the_store_takes_it(read, "reading a race back", race=room.id)
        await self._caught_up(room)
        for player in room.race.racers:
            self._pull(room, player)

    async def _caught_up(self, room: Room) -> None:
        self.run(await self.races.caught_up(room, self.clock()))

    def _logged(self, room: Room, player: str, carried: CarriedEntries | None) -> None:
        """``player``'s log moved on: apply the entries the message carries when they
        continue the replica's log, else (none carried, a gap: a message was missed, a
        pull under way) read the log."""
        if carried is not None and (room.id, player) not in self.pulling:
            try:  # here, in the store's listener: a failure must not stop it hearing
                effects = self.races.carried(room, player, carried, self.clock())
                if effects is not None:
                    self.run(effects)
                    return
            except Exception:
                log.exception("a log message between nodes failed; reading the log")
        self._pull(room, player)

    def _pull(self, room: Room, player: str) -> None:
        """Read ``player``'s new log entries once (a pull asked for while one runs makes
        it run again after, so nothing is missed and nothing is read twice at once)."""
        key = (room.id, player)
        if key in self.pulling:
            self.pulling[key] = True
            return
        self.pulling[key] = False

        async def pull() -> None:
            try:
                while True:
                    self.run(await self.races.pull(room, player, self.clock()))
                    if not self.pulling.get(key):
                        return
                    self.pulling[key] = False
            finally:
                self.pulling.pop(key, None)

        self._spawn(pull())

    # ------------------------------------------------------------------ telling

    def push_anywhere(self, player: str, event: PlayerEvent) -> None:
        """An event for ``player`` here if their session is here, else on its node."""
        if self.sessions.get(player) is not None:
            self.sessions.push(player, event)
            return

        async def tell() -> None:
            node = await self.store.bus.player_node(player)
            if node is not None and node != self.node:
                news = Pushed(player, event, self.node)
                await self.store.bus.publish(node_channel(node), encode(news))

        self._spawn(tell())

    def taken(self, player: str, previous: str) -> None:
        """``player``'s session came here from ``previous``: that node lets it go."""
        news = TakenOver(player, self.node)
        self._spawn(self.store.bus.publish(node_channel(previous), encode(news)))

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` as a task of the relay's (cancelled by ``stop``: one cancelled before
        it began is closed, never left unawaited); its failure is logged."""
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Future[Any]) -> None:
        self.tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if isinstance(error, StoreError):
            log.warning("news from another node not handled", extra={"error": str(error)})
        elif error is not None:
            log.error("a message between nodes failed", exc_info=error)
