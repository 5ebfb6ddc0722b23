"""Spectating: who may watch which race (requests ``list_live``, ``spectate`` and
``unspectate``). The feed that reaches them goes out through ``server/edge/feeds.py``."""

from __future__ import annotations

from typing import Any

from protocol.messages import Spectate, Unspectate
from protocol.player_events import WatchEnded
from protocol.race import Now, Phase, RaceError
from protocol.race_views import revealed_views, spectator_view
from server.handover.effects import Effects, Push
from server.races.followed import FollowedRaces
from server.state.rooms import Room
from server.state.sessions import Session
from server.store import Store

MAX_WATCHED = 10  # races one player spectates at once


class SpectatingDesk:
    def __init__(
        self,
        store: Store,
        races: FollowedRaces,
    ) -> None:
        self.store = store
        self.races = races

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

    def rewatch(self, room: Room, reason: str) -> Effects:
        """``room``'s spectators stop watching it, and are to be told why (``watch_ended``):
        they spectate it again, from a fresh snapshot."""
        effects: Effects = []
        for spectator in list(room.spectators):
            self.stop_watching(spectator, room.id)
            effects.append(Push(spectator.player, WatchEnded(room.id, reason)))
        return effects

    def forgotten(self, room: Room, reason: str) -> Effects:
        """``room`` is let go: its spectators watch it no more, and are to be told."""
        effects: Effects = []
        for spectator in list(room.spectators):
            spectator.watching.discard(room.id)
            effects.append(Push(spectator.player, WatchEnded(room.id, reason)))
        return effects


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
