"""Spectating: who may watch which race, and the feed that reaches them.

Requests: ``list_live``, ``spectate`` and ``unspectate``. A race without a spectator delay
sends a new feed item at the end of the loop turn that made it (``soon``); delayed items,
and spectator counts, are sent by the ticker (``flush``, every 50 ms) once due. Either
way a race's due items are written as one prebuilt frame per spectator, a chunk of
spectators per loop turn without pauses (``Room.fan_out``), so players' requests are read
in between; items that come while a fan-out is being written wait for it and then go out
together, one write per spectator.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from protocol.messages import Spectate, Unspectate
from protocol.race import Now, Phase, RaceError
from protocol.race_views import revealed_views, spectator_view
from server.config import Settings
from server.outbox import Outbox
from server.race_service import RaceService
from server.rooms import FanOutStats, Feeding, Room
from server.sessions import Session
from server.store import Store

MAX_WATCHED = 10  # races one player spectates at once


class SpectatingDesk:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        races: RaceService,
        outbox: Outbox,
        feeding: Feeding,
    ) -> None:
        self.settings = settings
        self.store = store
        self.races = races
        self.outbox = outbox
        self.feeding = feeding  # rooms whose feed has something to send
        feeding.soon = self.soon
        self.fan_outs = FanOutStats()

    # ------------------------------------------------------------------ requests

    async def list_live(self, moment: Now) -> dict[str, Any]:
        """Live public races of every node (spectators: those watching from this node)."""
        return {"races": await self.races.race_infos("watchable", moment)}

    async def spectate(self, session: Session, request: Spectate, moment: Now) -> dict[str, Any]:
        room = await self.races.find(request.race, moment)
        race = room.race
        race.may_watch(session.player)
        if race.settings.mode == "daily" and race.settings.day is not None:
            if session.account is None:  # a guest has no ranked attempt to have ended
                raise RaceError(
                    "only an account whose own ranked attempt of the day is over may watch "
                    "others play it: sign in",
                    "spectate_refused",
                )
            await self._check_daily_done(
                session.player, race.settings.game, race.settings.day, moment
            )
        if race.phase is Phase.DONE:
            return {"race": over_view(room)}
        if room.id not in session.watching and len(session.watching) >= MAX_WATCHED:
            raise RaceError(
                f"you watch {len(session.watching)} races already, the most at once: "
                "stop watching one first (unspectate)",
                "too_many_watched",
            )
        room.watch(session)
        session.watching.add(room.id)
        return {"race": room.spectator_snapshot()}

    async def _check_daily_done(self, player: str, game: str, day: str, moment: Now) -> None:
        """Only a player whose own ranked attempt at a daily deal has ended may watch
        others play it: watching first would show the deal before their attempt."""
        attempt = await self.store.days.ranked_attempt(game, day, player)
        if attempt is not None:
            try:
                mine = await self.races.find(attempt, moment)
            except RaceError:
                return  # not kept any more: long over
            if mine.race.phase is Phase.DONE:
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
        room = self.races.rooms.get(race_id)
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
            self._feed(room, moment.mono_ms)

    def soon(self, room: Room) -> None:
        """Send ``room``'s new items at the end of this loop turn (once for all of them)."""
        if not room.feed_soon:
            room.feed_soon = True
            asyncio.get_running_loop().call_soon(self._feed_soon, room)

    def _feed_soon(self, room: Room) -> None:
        room.feed_soon = False
        self._feed(room, int(time.monotonic() * 1000))

    def _fanned_out(self, room: Room, frames: int, seconds: float, cpu_seconds: float) -> None:
        """A fan-out is written: count it, and send what came meanwhile."""
        self.fan_outs.add(frames, seconds, cpu_seconds)
        if room.pending and not room.delay_ms:
            self.soon(room)

    def _feed(self, room: Room, mono_ms: int) -> None:
        """Send a race's spectators what is due, and its spectator count when it changed.
        While an earlier fan-out is still being written, wait for it (its end sends what
        came meanwhile in an undelayed race; the next tick, in a delayed one)."""
        settings = self.settings
        if room.sending:
            return
        if len(room.spectators) != room.spectator_count_shown:
            room.spectator_count_shown = len(room.spectators)
            room.post("spectators", {"count": len(room.spectators)}, mono_ms)
        items = room.due_items(mono_ms)
        for laggard in room.fan_out(
            items,
            settings.spectator_chunk,
            settings.spectator_pause_ms / 1000,
            settings.spectator_write_buffer,
            self.outbox,
            lambda frames, seconds, cpu: self._fanned_out(room, frames, seconds, cpu),
        ):
            self.stop_watching(laggard, room.id)
            laggard.push("watch_ended", {"race": room.id, "reason": "too_slow"})
        if not room.pending and room.spectator_count_shown == len(room.spectators):
            self.feeding.discard(room)


def over_view(room: Room) -> dict[str, Any]:
    """A race that is over, to a new spectator: every racer's final cards (nobody races any
    more, so no delay holds them back) and no feed (``feed_seq`` 0; nobody new is counted
    as watching): the same whether the race is still in memory or read back from the
    store. ``watch_ended`` (``over``) follows the answer."""
    view = spectator_view(room.race)
    revealed = revealed_views(room.race) or {}  # once the deal is shown, every card
    for standing in view["players"]:
        if standing["player"] in revealed:
            standing["view"] = revealed[standing["player"]]
    return {**view, "feed_seq": 0, "spectators": 0}
