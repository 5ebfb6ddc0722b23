"""What nodes tell each other, through the store's channels (Redis pub/sub; in memory, the
one node follows no race: it would hear only itself). It carries out and decides nothing:
what news asks to decide is handed on as an input (``server/handover/inputs.py``) to the hands
plugged in (``listen``: the executor's), which decide and carry it out.

On a race's channel: its record changed (``record``: ``CaughtUpDue``) or a racer's log
moved on (``log``: published once the entries are stored, and carrying them when they
are few: ``LogCarried``, which the decider applies when they continue its replica's log,
else asks for a ``Pull`` of the new entries from the log, so it gets exactly what is
stored, in order, whatever it missed). On a node's own channel: a player's session moved
to another node (``taken``: ``LetGo``), or an event for a player whose session is here
(``push``). Each node hears a race's news once, whatever number of its players and
spectators follow it, and fans it out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from protocol.player_events import Paired, PlayerEvent
from server.carry.retrying import until_the_store_takes_it
from server.edge.lines import Lines
from server.handover.inputs import CaughtUpDue, LetGo, LogCarried, PairedHere, PullDue, ReadBackDue
from server.handover.moment import now
from server.handover.node_news import (
    CarriedEntries,
    Logged,
    Pushed,
    RecordChanged,
    Resync,
    TakenOver,
    decode,
    encode,
    sent_ms,
    stamped,
)
from server.handover.ports import Hands
from server.state.rooms import Room
from server.store import Store, StoreError, node_channel, race_channel

log = logging.getLogger("solrace.relay")


class Relay:
    def __init__(
        self,
        node: str,
        store: Store,
        lines: Lines,
        rooms: Mapping[str, Room],
        observe_lag: Callable[[float], None] = lambda seconds: None,
    ) -> None:
        """``rooms``: the races followed here, by id (read only); ``observe_lag`` is given
        the seconds each stamped message from another node took to arrive (its sender's
        wall clock against ours: they agree within ``--max-clock-offset-ms``)."""
        self.node = node
        self.observe_lag = observe_lag
        self.store = store
        self.lines = lines  # the players' lines here: events for them go out on these
        self.rooms = rooms
        self.hands: Hands | None = None
        self.following: set[str] = set()
        self.pulling: dict[tuple[str, str], bool] = {}  # (race, player) -> pull again after
        self.tasks: set[asyncio.Task[Any]] = set()

    def listen(self, hands: Hands) -> None:
        """Hear other nodes' news from now on, and hand what it asks to decide to
        ``hands``."""
        self.hands = hands
        self.store.listener = self.heard

    async def start(self) -> None:
        await self.store.bus.subscribe([node_channel(self.node)])

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()

    @property
    def _hands(self) -> Hands:
        assert self.hands is not None, "the relay hears nothing before it listens"
        return self.hands

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
                self.pull(room, player)

        self._spawn(follow())

    def unfollow(self, room: Room) -> None:
        if room.id in self.following:
            self.following.discard(room.id)
            self._spawn(self.store.bus.unsubscribe([race_channel(room.id)]))

    # ------------------------------------------------------------------ hearing

    def heard(self, channel: str, message: dict[str, Any]) -> None:
        """A message from another node (``server/handover/node_news.py``; ours, and anything that
        is not news, are ignored)."""
        news = decode(message)
        if news is None or (not isinstance(news, Resync) and news.node == self.node):
            return
        sent = sent_ms(message)
        if sent is not None:
            self.observe_lag(max(0.0, now().wall_ms - sent) / 1000)
        if isinstance(news, Resync):  # messages may have been missed: read every race again
            for race_id in list(self.following):
                room = self.rooms.get(race_id)
                if room is not None:
                    self._spawn(self._resynced(room))
            return
        if channel.startswith("race:"):
            room = self.rooms.get(channel.removeprefix("race:"))
            if room is None:
                return
            if isinstance(news, RecordChanged):
                self._spawn(self._caught_up(room))
            elif isinstance(news, Logged):
                self._logged(room, news.player, news.entries)
        elif channel == node_channel(self.node):
            if isinstance(news, TakenOver):
                self._hands.hand(LetGo(news.player))
            elif isinstance(news, Pushed) and isinstance(news.event, Paired):
                self._spawn(self._hands.hand_reading(PairedHere(news.player, news.event, now())))
            elif isinstance(news, Pushed):
                self.lines.push(news.player, news.event)

    async def _resynced(self, room: Room) -> None:
        """The store's connection was lost and is back: read the race back first (the
        store may have come back with less than it acknowledged: ``read_back``), however
        long the store takes, then catch up with what other nodes did meanwhile."""

        async def read() -> None:
            await self._hands.hand_reading(ReadBackDue(room, now()))

        await until_the_store_takes_it(read, "reading a race back", race=room.id)
        await self._caught_up(room)
        for player in room.race.racers:
            self.pull(room, player)

    async def _caught_up(self, room: Room) -> None:
        await self._hands.hand_reading(CaughtUpDue(room, now()))

    def _logged(self, room: Room, player: str, carried: CarriedEntries | None) -> None:
        """``player``'s log moved on: the entries the message carries are handed on (the
        decider applies them, or asks for a ``Pull``), else (none carried, a pull under
        way) the log is read."""
        if carried is not None and (room.id, player) not in self.pulling:
            try:  # here, in the store's listener: a failure must not stop it hearing
                self._hands.hand(LogCarried(room, player, carried, now()))
                return
            except Exception:
                log.exception("a log message between nodes failed; reading the log")
        self.pull(room, player)

    def pull(self, room: Room, player: str) -> None:
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
                    await self._hands.hand_reading(PullDue(room, player, now()))
                    if not self.pulling.get(key):
                        return
                    self.pulling[key] = False
            finally:
                self.pulling.pop(key, None)

        self._spawn(pull())

    # ------------------------------------------------------------------ telling

    def push_anywhere(self, player: str, event: PlayerEvent) -> None:
        """An event for ``player`` here if their session is here, else on its node."""
        if self.lines.sessions.get(player) is not None:
            self.lines.push(player, event)
            return

        async def tell() -> None:
            node = await self.store.bus.player_node(player)
            if node is not None and node != self.node:
                news = Pushed(player, event, self.node)
                await self.store.bus.publish(
                    node_channel(node), stamped(encode(news), now().wall_ms)
                )

        self._spawn(tell())

    def taken(self, player: str, previous: str) -> None:
        """``player``'s session came here from ``previous``: that node lets it go."""
        news = TakenOver(player, self.node)
        message = stamped(encode(news), now().wall_ms)
        self._spawn(self.store.bus.publish(node_channel(previous), message))

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
