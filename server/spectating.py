"""Spectating: who may watch which race, and the feed that reaches them.

Requests: ``list_live``, ``spectate`` and ``unspectate``. Feeds are flushed by the ticker
(``flush``): each race's due items are written as prebuilt frames, a few spectators at a
time (``Room.fan_out``), so players' requests are read in between and never wait behind
spectator traffic.
"""

from __future__ import annotations

from typing import Any

from protocol.messages import Spectate, Unspectate
from protocol.race import Now, Phase, RaceError
from server.config import Settings
from server.director import RaceDirector
from server.outbox import Outbox
from server.rooms import Room
from server.sessions import Session
from server.store import Store


class SpectatingDesk:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        director: RaceDirector,
        outbox: Outbox,
        feeding: set[Room],
    ) -> None:
        self.settings = settings
        self.store = store
        self.director = director
        self.outbox = outbox
        self.feeding = feeding  # rooms whose feed has something to send

    # ------------------------------------------------------------------ requests

    async def list_live(self, moment: Now) -> dict[str, Any]:
        """Live public races of every node (spectators: those watching from this node)."""
        return {"races": await self.director.race_infos("watchable", moment)}

    async def spectate(self, session: Session, request: Spectate, moment: Now) -> dict[str, Any]:
        room = await self.director.find(request.race, moment)
        race = room.race
        race.may_watch(session.player)
        if race.settings.mode == "daily" and race.settings.day is not None:
            await self._check_daily_done(
                session.player, race.settings.game, race.settings.day, moment
            )
        if room.id in self.director.rooms:  # a finished race let go is only shown
            room.watch(session)
            session.watching.add(room.id)
        return {"race": room.spectator_snapshot()}

    async def _check_daily_done(self, player: str, game: str, day: str, moment: Now) -> None:
        """Only a player whose own ranked attempt at a daily deal has ended may watch
        others play it: watching first would show the deal before their attempt."""
        attempt = await self.store.ranked_attempt(game, day, player)
        if attempt is not None:
            try:
                mine = await self.director.find(attempt, moment)
            except RaceError:
                mine = None  # not kept any more: long over
            if mine is None or mine.race.phase is Phase.DONE:
                return
        raise RaceError(
            "finish your own attempt at this daily challenge before watching others",
            "spectate_refused",
        )

    def unspectate(self, session: Session, request: Unspectate) -> dict[str, Any]:
        self.stop_watching(session, request.race)
        return {"race": request.race}

    def stop_watching(self, session: Session, race_id: str) -> None:
        session.watching.discard(race_id)
        room = self.director.rooms.get(race_id)
        if room is not None:
            room.unwatch(session)

    def left(self, session: Session) -> None:
        """The session's connection is gone: spectating does not survive it."""
        for race_id in list(session.watching):
            self.stop_watching(session, race_id)

    def forgotten(self, room: Room, reason: str) -> None:
        """``room`` is let go: its spectators are told."""
        for spectator in list(room.spectators):
            spectator.watching.discard(room.id)
            spectator.push("watch_ended", {"race": room.id, "reason": reason})

    # ------------------------------------------------------------------ the feed

    def flush(self, moment: Now) -> None:
        """Send every race's spectators what is due (called each tick)."""
        for room in list(self.feeding):
            self._feed(room, moment)

    def _feed(self, room: Room, moment: Now) -> None:
        """Send a race's spectators what is due, and its spectator count when it changed.
        While an earlier fan-out is still being written, wait for the next tick."""
        settings = self.settings
        if room.sending:
            return
        if len(room.spectators) != room.spectator_count_shown:
            room.spectator_count_shown = len(room.spectators)
            room.post("spectators", {"count": len(room.spectators)}, moment.mono_ms)
        items = room.due_items(moment.mono_ms)
        for laggard in room.fan_out(
            items,
            settings.spectator_chunk,
            settings.spectator_pause_ms / 1000,
            settings.spectator_write_buffer,
            self.outbox,
        ):
            self.stop_watching(laggard, room.id)
            laggard.push("watch_ended", {"race": room.id, "reason": "too_slow"})
        if not room.pending and room.spectator_count_shown == len(room.spectators):
            self.feeding.discard(room)
