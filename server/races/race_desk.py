"""The race desk: answers the race requests of players (create, join, start, leave,
resign, rematch, the hot path ``act``) and a race's time limit, each with a reply and typed
effects (``server/handover/effects.py``). It never writes to a socket itself; the executor carries
out what it returns. The races it decides on are the ``FollowedRaces``'s
(``server/races/followed.py``: the replicas this node follows and the one atomic step by
which a race itself changes); the race's rules and policy are the pure
``protocol.race.Race``'s. Plain functions of the room work out what follows: what a race's
changes tell its racers and spectators (``server/races/announcements.py``), what its end leaves
(``server/races/results.py``).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from typing import Any

from protocol.daily import day_of
from protocol.deals import MAX_DEAL, check_deal_number
from protocol.games import rules_for
from protocol.messages import Act, CreateRace, Error, Result
from protocol.player_events import RematchOffered
from protocol.race import (
    Badge,
    Ending,
    Now,
    Phase,
    Race,
    RaceError,
    RaceSettings,
    daily_deal_shown,
)
from protocol.race_views import public_info, public_log, racer_view
from protocol.ratings import DEFAULT, Rating, aged, is_provisional
from server.config import Settings
from server.handover.effects import ActDecision, Effects, Follow, PostAct, PushAnywhere
from server.races.announcements import begin, racer_done
from server.races.followed import FollowedRaces
from server.state.rooms import Room
from server.store import Store
from server.store.base import STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE

log = logging.getLogger("solrace.director")

Answer = tuple[dict[str, Any], Effects]
MAX_OPEN_RACES = 5  # races not started yet that one player created or joined at once
MAX_LISTED = 100  # races in one list_races answer


def new_id() -> str:
    return secrets.token_hex(8)


class RaceDesk:
    def __init__(self, settings: Settings, store: Store, races: FollowedRaces) -> None:
        self.settings = settings
        self.store = store
        self.races = races
        self.rooms = races.rooms  # the races followed here (the service's)
        self.races_of = races.races_of

    # ================================================================== race steps

    async def open_room(
        self,
        settings: RaceSettings,
        player: str,
        name: str,
        moment: Now,
        race_id: str = "",
        account: bool = False,
        rating: Rating | None = None,
    ) -> tuple[Room, Effects]:
        """A new race hosted by ``player``, who is its first racer (it starts by itself
        when that makes it full: a race for one; a daily attempt at once); ``rating``:
        their rating in the game, when the caller read it already."""
        rules = rules_for(settings.game, settings.options)
        race = Race(race_id or new_id(), settings, rules, player)
        badge = await badge_of(self.store, player, account, settings, moment, rating)
        race.join(player, name, badge, account)
        room = Room(race, moment.mono_ms, self.races.feeding)

        def start() -> None:
            if race.starts_by_itself or settings.mode == "daily":
                race.schedule_start(None, moment)

        effects = await self.races.step(room, moment, start)
        self.rooms[race.id] = room
        self.races_of.setdefault(player, set()).add(race.id)
        effects.insert(0, Follow(room))
        if settings.mode == "daily":  # no countdown: the attempt starts now
            effects += begin(room)
        return room, effects

    async def create_race(
        self,
        player: str,
        name: str,
        request: CreateRace,
        moment: Now,
        account: bool = False,
        invited: str | None = None,
    ) -> Answer:
        rules = rules_for(request.game, request.options)
        deal = (
            check_deal_number(int(request.deal))
            if request.deal is not None
            else secrets.randbelow(MAX_DEAL) + 1
        )
        countdown = request.countdown_ms
        settings = RaceSettings(
            game=rules.name,
            options=rules.options,
            deal=deal,
            max_players=request.max_players,
            public=request.public,
            countdown_ms=self.settings.countdown_ms if countdown is None else countdown,
            spectator_delay_ms=request.spectator_delay_ms,
            deal_chosen=request.deal is not None,
            ranked=False,  # its players chose each other: never rated (protocol/rated.py)
            nonce=secrets.token_hex(16),
            invited=invited,
        )
        room_for_another(self.races.racing(player))
        room, effects = await self.open_room(settings, player, name, moment, account=account)
        return {"race": public_info(room.race)}, effects

    async def list_races(self, moment: Now) -> dict[str, Any]:
        """Open public races, at most ``MAX_LISTED`` (by id), and how many more there are."""
        ids = await self.store.races.listed_races("open")
        infos = await self.races.race_infos_of(ids[:MAX_LISTED], moment)
        listed = [{k: v for k, v in info.items() if k != "spectators"} for info in infos]
        return {"races": listed, "more": max(0, len(ids) - MAX_LISTED)}

    def my_races(self, player: str) -> dict[str, Any]:
        return {
            "races": [
                racer_view(room.race, player)
                for room in self.races.racing(player)
                if room.race.phase is not Phase.DONE
            ]
        }

    async def join_race(
        self,
        player: str,
        name: str,
        race_id: str,
        moment: Now,
        account: bool = False,
        limited: bool = True,
        seat: bool = False,
        rating: Rating | None = None,
    ) -> Answer:
        """``player`` joins the race; ``limited``: refused when they hold the most races
        not started that one may (not so for the arena pairer putting them in a heat);
        ``seat``: the server seats a player it paired in a race it paired (an arena heat,
        a quick race), which nobody else joins: it holds exactly its paired racers;
        ``rating``: their rating in the game, when the caller read it already."""
        room = await self.races.find(race_id, moment)
        if player in room.race.racers:
            room.race.join(player, name)  # refused if it started; else nothing to do
            return {"race": public_info(room.race)}, []
        if room.race.settings.paired and not seat:
            raise RaceError(
                "this race holds only the players the server paired in it", "race_paired"
            )
        if limited:
            room_for_another(self.races.racing(player))
        badge = await badge_of(self.store, player, account, room.race.settings, moment, rating)

        def join() -> None:
            room.race.join(player, name, badge, account)
            if room.race.starts_by_itself:
                room.race.schedule_start(None, moment)

        effects = await self.races.step(room, moment, join)
        return {"race": public_info(room.race)}, effects

    async def start_race(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.races.find(race_id, moment)

        def start() -> None:
            room.race.schedule_start(player, moment)

        effects = await self.races.step(room, moment, start)
        return {"race": public_info(room.race)}, effects

    async def leave_race(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.races.find(race_id, moment)
        effects = await self.races.step(room, moment, lambda: room.race.leave(player))
        return {"race": room.id}, effects

    async def resign(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.races.find(race_id, moment)
        room.race.racer(player)
        effects = await self.retire(room, player, Ending.RESIGNED, moment)
        return {"race": room.id, "outcome": Ending.RESIGNED.value}, effects

    async def retire(self, room: Room, player: str, ending: Ending, moment: Now) -> Effects:
        """``player`` stops in ``room``'s race without finishing (an open race lets them
        go); nothing when that changes nothing (they had finished)."""
        changed = False

        def retire() -> None:
            nonlocal changed
            changed = room.race.retire(player, ending, moment)

        effects = await self.races.step(room, moment, retire)
        return effects if changed else []

    async def rematch(
        self, player: str, name: str, race_id: str, moment: Now, account: bool = False
    ) -> Answer:
        room = await self.races.find(race_id, moment)
        old = room.race
        old.racer(player)
        if old.phase is not Phase.DONE or old.settings.mode != "race":
            raise RaceError("a rematch follows a finished race", "race_not_finished")
        existing = await self._rematch_room(old.rematch, moment)
        if existing is not None and existing.race.phase is Phase.OPEN:
            return await self.join_race(player, name, existing.id, moment, account)
        settings = RaceSettings(
            game=old.settings.game,
            options=old.settings.options,
            deal=secrets.randbelow(MAX_DEAL) + 1,
            max_players=max(old.settings.max_players, 1),
            public=old.settings.public,
            countdown_ms=old.settings.countdown_ms,
            spectator_delay_ms=old.settings.spectator_delay_ms,
            ranked=False,  # a rematch is chosen by its players: never rated
            nonce=secrets.token_hex(16),
        )
        new, effects = await self.open_room(settings, player, name, moment, account=account)

        def point() -> None:
            old.rematch, old.rematch_by = new.id, player

        effects += await self.races.step(room, moment, point)
        offer = RematchOffered(old.id, new.id, player)
        effects += [PushAnywhere(p, offer) for p in old.racers if p != player]
        return {"race": public_info(new.race)}, effects

    async def _rematch_room(self, race_id: str | None, moment: Now) -> Room | None:
        if race_id is None:
            return None
        try:
            return await self.races.find(race_id, moment)
        except RaceError:
            return None

    async def race_log(self, player: str, race_id: str, moment: Now) -> dict[str, Any]:
        """A finished race's public log (see ``protocol/verify.py``). A daily run's log is
        its player's once it is over, and anyone's once its day is over; its deal and
        nonce only then (the deal would show every card). An arena heat's log is shown
        once its arena is over, with its deal."""
        room = await self.races.find(race_id, moment)
        race = room.race
        if race.phase is not Phase.DONE:
            raise RaceError("a race's log is shown once it is over", "race_not_finished")
        today = day_of(moment.wall_ms)
        hidden = race.settings.mode == "daily" and not daily_deal_shown(race.settings.day, today)
        if hidden and player not in race.racers:
            raise RaceError(
                "other players' runs of a daily challenge are shown once its day is over",
                "log_refused",
            )
        arena = race.settings.arena
        if arena is not None:
            kept = await self.store.arenas.arena(arena)
            if kept is None or kept.status != "ended":
                raise RaceError(
                    "an arena heat's log is shown once its arena is over: other heats race "
                    "its deal until then",
                    "heat_log_later",
                )
        return public_log(race, today, arena_over=arena is not None)

    def snapshot(self, player: str, room: Room, watching: bool) -> dict[str, Any]:
        """A racer gets their racer view, a spectator the spectator view, anyone else the
        race info."""
        if player in room.race.racers:
            return {"race": racer_view(room.race, player)}
        if watching:
            return {"race": room.spectator_snapshot()}
        return {"race": public_info(room.race)}

    # ================================================================== the hot path

    def act(self, player: str, request: Act, moment: Now) -> ActDecision:
        """Validate and apply one action. The reply and everything that follows wait until
        its log entry is stored (the executor sees to that)."""
        room = self.rooms.get(request.race)
        if room is None:
            raise RaceError(f"there is no race {request.race}", "race_not_found")
        if room.suspect:
            return ActDecision(_store_trouble(request), [], room, None)
        result = room.race.act(player, request.seq, request.action, moment, request.legal)
        if not result.ok:
            refusal = Error(request.id, "act", result.reply["code"], result.reply["message"])
            return ActDecision(refusal, [], room, None)
        data = result.reply
        effects: Effects = []
        # Opponents' standings ride on the reply when they changed since this racer last
        # heard of them, at most every ``standings_every_ms``; their own change needs no
        # telling.
        told_version, told_ms = room.told.get(player, (0, 0))
        behind = told_version != room.standings_version
        if not result.repeated:
            room.standings_version += 1
            effects.append(PostAct(room, player, data))
        room.last_act[player] = moment.mono_ms
        if not behind:
            room.told[player] = (room.standings_version, told_ms)
        elif (
            moment.mono_ms - told_ms >= self.settings.standings_every_ms
            and len(room.race.racers) > 1
        ):
            room.told[player] = (room.standings_version, moment.mono_ms)
            data = {**data, "standings": room.race.standings()}
        if result.racer_done:
            effects += racer_done(room, player, moment, self.settings, self.races.here)
        return ActDecision(Result(request.id, "act", data), effects, room, result.entry)

    # ================================================================== timers

    async def drop(self, player: str, moment: Now, races: Iterable[str] = ()) -> Effects:
        """``player`` was away longer than the grace period: their races (those followed
        here, and ``races``) go on without them (did not finish; an open race lets them
        go)."""
        effects: Effects = []
        for race_id in sorted({*self.races_of.get(player, ()), *races}):
            try:
                room = await self.races.find(race_id, moment)
            except RaceError:
                continue
            if room.race.phase is not Phase.DONE and player in room.race.racers:
                effects += await self.retire(room, player, Ending.DROPPED, moment)
        return effects

    async def time_out(self, room: Room, moment: Now) -> Effects:
        """The race reached its longest allowed duration: everyone still playing did not
        finish."""
        return await self.races.step(room, moment, lambda: room.race.time_out(moment))


def _store_trouble(request: Act) -> Error:
    return Error(request.id, "act", STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE)


def room_for_another(rooms: Iterable[Room]) -> None:
    """RaceError ``too_many_races`` when a player's ``rooms`` hold ``MAX_OPEN_RACES`` races
    that have not started (created or joined). An arena heat is the server's, opened by
    the arena's pairer: it never counts (the limit keeps a player from hoarding open
    races, and a racer at it must still race their heats)."""
    waiting = sum(
        1 for room in rooms if room.race.phase is Phase.OPEN and room.race.settings.arena is None
    )
    if waiting >= MAX_OPEN_RACES:
        raise RaceError(
            f"you are in {waiting} races that have not started, the most one may hold "
            f"({MAX_OPEN_RACES}): start or leave one first",
            "too_many_races",
        )


async def badge_of(
    store: Store,
    player: str,
    account: bool,
    settings: RaceSettings,
    moment: Now,
    rating: Rating | None = None,
) -> Badge | None:
    """An account's badge in a race of ``settings``: its rating in the game now (a daily
    attempt shows none), read from ``store`` unless given (``rating``)."""
    if not account or settings.mode != "race":
        return None
    if rating is None:
        rating = (await store.accounts.ratings(settings.game, [player])).get(player, DEFAULT)
    shown = aged(rating, moment.wall_ms)
    return Badge(round(shown.rating), is_provisional(shown))
