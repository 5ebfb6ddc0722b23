"""The race director: answers the race requests of players, the races' timers and what
other nodes say of their races, with a reply and typed effects (``server/effects.py``).
It never writes to a socket itself; the executor carries out what it returns.

It keeps a replica of every race this node follows (a ``Room``: the pure ``Race`` and what
the server adds): the races of its players, those they watch, and those it was asked
about. Several nodes may follow one race; each applies the actions of the racers whose
session it holds (one writer per racer: its log entries carry the session's fence) and
reads the others' actions from their logs when told they moved on. A change of the race
itself (join, leave, start, retire, rematch) is made by whichever node is asked, as one
atomic step in the store (``save_race_if``, on the record's version); the other nodes
absorb the new record. The race's rules and policy are the pure ``protocol.race.Race``'s.
The director decides; plain functions of the room work out what follows: what a
race's changes tell its racers and spectators (``server/telling.py``), what its end
leaves (the result, the day's run, histories, ratings: ``server/results.py``), and
applying other nodes' logged actions and taking back what could not be stored
(``server/replica.py``).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from protocol.daily import day_of
from protocol.deals import MAX_DEAL, check_deal_number
from protocol.games import rules_for
from protocol.messages import Act, CreateRace, Error, Result, ServerMessage
from protocol.race import (
    Badge,
    Ending,
    LogEntry,
    Now,
    Phase,
    Race,
    RaceError,
    RaceSettings,
    daily_deal_shown,
)
from protocol.race_record import absorb, record_changes, record_of, restore
from protocol.ratings import DEFAULT, aged, is_provisional
from server.config import Settings
from server.effects import Effects, Follow, Forget, PostAct, PushAnywhere, StartAt
from server.node_news import CarriedEntries
from server.rating import rate
from server.replica import apply_logged, carried_entries
from server.results import finished
from server.rooms import Feeding, Room
from server.store import Listed, Store, StoreError
from server.store.base import STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE
from server.telling import begin, racer_done, standings, told

log = logging.getLogger("solrace.director")

Answer = tuple[dict[str, Any], Effects]
STEP_TRIES = 3  # a race step tried again on a newer record before giving up (race_busy)
MAX_OPEN_RACES = 5  # races not started yet that one player may be in at once
MAX_LISTED = 100  # races in one list_races answer


@dataclass(slots=True)
class ActDecision:
    """The answer to one ``act``: the reply, what follows once it is stored, and the log
    entry to store first (None: nothing to store; a refusal or a resend)."""

    reply: ServerMessage
    effects: Effects
    room: Room | None
    entry: LogEntry | None


def new_id() -> str:
    return secrets.token_hex(8)


def restored(record: dict[str, Any], log_entries: list[LogEntry], moment: Now) -> Race:
    """The race of a stored ``record``, its racers' positions replayed from ``log_entries``."""
    settings = RaceSettings.from_dict(record["settings"])
    return restore(record, rules_for(settings.game, settings.options), log_entries, moment)


def listed(race: Race) -> Listed:
    """Where the store lists ``race`` now."""
    live = race.phase is not Phase.DONE and bool(race.racers)
    public = race.settings.public
    return Listed(live, race.joinable, live and race.live and public, tuple(race.racers))


class RaceDirector:
    def __init__(self, settings: Settings, store: Store, feeding: Feeding) -> None:
        self.settings = settings
        self.store = store
        self.feeding = feeding  # rooms whose spectator feed has work (the spectating desk's)
        self.rooms: dict[str, Room] = {}
        self.races_of: dict[str, set[str]] = {}  # player -> races followed that they are in
        self.later: Effects = []  # effects found on the way (races taken over, caught up)
        # whether a player's session is on this node (the server's sessions say): only
        # those are sent standings; others' nodes send them theirs
        self.here: Callable[[str], bool] = lambda player: True

    # ================================================================== finding races

    def room(self, race_id: str) -> Room:
        """A race followed here; RaceError ``race_not_found`` if it is not."""
        room = self.rooms.get(race_id)
        if room is None:
            raise RaceError(f"there is no race {race_id}", "race_not_found")
        return room

    async def find(self, race_id: str, moment: Now) -> Room:
        """A race followed here, else rebuilt from the store: a live one is followed from
        now on (``adopt``; the effects of that wait in ``later``), a finished one is only
        shown. RaceError if there is none."""
        room = self.rooms.get(race_id)
        if room is not None:
            return room
        rebuilt = await self.rebuild(race_id, moment)
        if rebuilt is None:
            raise RaceError(f"there is no race {race_id}", "race_not_found")
        if rebuilt.id not in self.rooms:
            if rebuilt.race.phase is not Phase.DONE:
                self.later += self.adopt(rebuilt, moment)
            elif not rebuilt.stored:  # over by its log, its end never written: write it
                self.later += finished(rebuilt, moment, self.settings)
        return self.rooms.get(race_id, rebuilt)

    async def rebuild(self, race_id: str, moment: Now, fresh: bool = False) -> Room | None:
        """The race rebuilt by replay from its stored record and logs (None: unknown, or
        closed before it began). The one followed here, if there is one, unless
        ``fresh``."""
        record = await self.store.races.load_race(race_id)
        if record is None or not record.get("racers"):
            return None
        log_entries = await self.store.races.actions(race_id)
        if race_id in self.rooms and not fresh:  # rebuilt meanwhile by another request
            return self.rooms[race_id]
        race = restored(record, log_entries, moment)
        room = Room(race, moment.mono_ms, self.feeding)
        room.version = int(record.get("version", 0))
        room.durable = {player: len(racer.log) for player, racer in race.racers.items()}
        if race.phase is Phase.DONE and record["phase"] == Phase.DONE.value:
            room.done_mono, room.stored = moment.mono_ms, True
        return room

    def adopt(self, room: Room, moment: Now) -> Effects:
        """Follow a rebuilt live race from now on: its timers are armed again."""
        race = room.race
        self.rooms[room.id] = room
        for player in race.racers:
            self.races_of.setdefault(player, set()).add(room.id)
        effects: Effects = [Follow(room)]
        if race.phase is Phase.COUNTDOWN and race.start_mono is not None:
            effects.append(StartAt(room, race.start_mono))
        log.info("race rebuilt", extra={"race": room.id, "phase": race.phase.value})
        return effects

    def racing(self, player: str) -> list[Room]:
        """The rooms of ``player``'s races followed here, by race id."""
        return [self.rooms[race] for race in sorted(self.races_of.get(player, ()))]

    async def race_infos(self, kind: str, moment: Now) -> list[dict[str, Any]]:
        """Race info of every race the store lists as ``kind`` (``open``, ``watchable``)."""
        return await self.race_infos_of(await self.store.races.listed_races(kind), moment)

    async def race_infos_of(self, ids: list[str], moment: Now) -> list[dict[str, Any]]:
        """Race info of races ``ids``: from the replica when it is followed here, else from
        its record."""
        missing = [race for race in ids if race not in self.rooms]
        records = dict(zip(missing, await self.store.races.load_races(missing), strict=True))
        infos = []
        for race_id in ids:
            room = self.rooms.get(race_id)
            if room is not None:
                infos.append({**room.race.public_info(), "spectators": len(room.spectators)})
                continue
            record = records[race_id]
            if record is not None and record.get("racers"):
                race = restored(record, [], moment)
                infos.append({**race.public_info(), "spectators": 0})
        return infos

    # ================================================================== race steps

    async def _step(self, room: Room, moment: Now, change: Callable[[], None]) -> Effects:
        """Make a change of the race itself (``change`` mutates ``room.race``; a RaceError
        from it changes nothing) and store it as the record's next version, in one atomic
        step. When another node changed the race first, the change is taken back, the
        stored race absorbed, and the change tried again on it. When the store cannot be
        reached, the change is taken back and the StoreError raised: nothing changed."""
        async with room.lock:
            for _ in range(STEP_TRIES):
                before = record_of(room.race)
                change()
                after = record_of(room.race)
                try:
                    stored = await self.store.races.save_race_if(
                        room.id, after, room.version, listed(room.race)
                    )
                except StoreError:
                    absorb(room.race, before, moment)
                    raise
                if stored:
                    room.version += 1
                    return self._told(room, record_changes(before, after), moment)
                absorb(room.race, before, moment)
                self.later += await self._catch_up(room, moment)
        raise RaceError("the race kept changing under this request: try again", "race_busy")

    async def open_room(
        self,
        settings: RaceSettings,
        player: str,
        name: str,
        moment: Now,
        race_id: str = "",
        account: bool = False,
    ) -> tuple[Room, Effects]:
        """A new race hosted by ``player``, who is its first racer (it starts by itself
        when that makes it full: a race for one; a daily attempt at once)."""
        rules = rules_for(settings.game, settings.options)
        race = Race(race_id or new_id(), settings, rules, player)
        race.join(player, name, await self.badge(player, account, settings, moment), account)
        room = Room(race, moment.mono_ms, self.feeding)

        def start() -> None:
            if race.starts_by_itself or settings.mode == "daily":
                race.schedule_start(None, moment)

        effects = await self._step(room, moment, start)
        self.rooms[race.id] = room
        self.races_of.setdefault(player, set()).add(race.id)
        effects.insert(0, Follow(room))
        if settings.mode == "daily":  # no countdown: the attempt starts now
            effects += begin(room)
        return room, effects

    async def badge(
        self, player: str, account: bool, settings: RaceSettings, moment: Now
    ) -> Badge | None:
        """An account's badge in a race of ``settings``: its rating in the game now (a
        daily attempt shows none)."""
        if not account or settings.mode != "race":
            return None
        rating = aged(
            (await self.store.accounts.ratings(settings.game, [player])).get(player, DEFAULT),
            moment.wall_ms,
        )
        return Badge(round(rating.rating), is_provisional(rating))

    async def create_race(
        self, player: str, name: str, request: CreateRace, moment: Now, account: bool = False
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
        )
        self._room_for_another(player)
        room, effects = await self.open_room(settings, player, name, moment, account=account)
        return {"race": room.race.public_info()}, effects

    def _room_for_another(self, player: str) -> None:
        """RaceError ``too_many_races`` when ``player`` holds ``MAX_OPEN_RACES`` races
        that have not started (created or joined)."""
        waiting = sum(1 for room in self.racing(player) if room.race.phase is Phase.OPEN)
        if waiting >= MAX_OPEN_RACES:
            raise RaceError(
                f"you are in {waiting} races that have not started, the most one may hold "
                f"({MAX_OPEN_RACES}): start or leave one first",
                "too_many_races",
            )

    async def list_races(self, moment: Now) -> dict[str, Any]:
        """Open public races, at most ``MAX_LISTED`` (by id), and how many more there are."""
        ids = await self.store.races.listed_races("open")
        infos = await self.race_infos_of(ids[:MAX_LISTED], moment)
        listed = [{k: v for k, v in info.items() if k != "spectators"} for info in infos]
        return {"races": listed, "more": max(0, len(ids) - MAX_LISTED)}

    def my_races(self, player: str) -> dict[str, Any]:
        return {
            "races": [
                room.race.racer_view(player)
                for room in self.racing(player)
                if room.race.phase is not Phase.DONE
            ]
        }

    async def join_race(
        self, player: str, name: str, race_id: str, moment: Now, account: bool = False
    ) -> Answer:
        room = await self.find(race_id, moment)
        if player in room.race.racers:
            room.race.join(player, name)  # refused if it started; else nothing to do
            return {"race": room.race.public_info()}, []
        self._room_for_another(player)
        badge = await self.badge(player, account, room.race.settings, moment)

        def join() -> None:
            room.race.join(player, name, badge, account)
            if room.race.starts_by_itself:
                room.race.schedule_start(None, moment)

        effects = await self._step(room, moment, join)
        return {"race": room.race.public_info()}, effects

    async def start_race(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.find(race_id, moment)

        def start() -> None:
            room.race.schedule_start(player, moment)

        effects = await self._step(room, moment, start)
        return {"race": room.race.public_info()}, effects

    async def leave_race(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.find(race_id, moment)
        effects = await self._step(room, moment, lambda: room.race.leave(player))
        return {"race": room.id}, effects

    async def resign(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.find(race_id, moment)
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

        effects = await self._step(room, moment, retire)
        return effects if changed else []

    async def rematch(
        self, player: str, name: str, race_id: str, moment: Now, account: bool = False
    ) -> Answer:
        room = await self.find(race_id, moment)
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

        effects += await self._step(room, moment, point)
        offer = {"race": old.id, "rematch": new.id, "by": player}
        effects += [PushAnywhere(p, "rematch", offer) for p in old.racers if p != player]
        return {"race": new.race.public_info()}, effects

    async def _rematch_room(self, race_id: str | None, moment: Now) -> Room | None:
        if race_id is None:
            return None
        try:
            return await self.find(race_id, moment)
        except RaceError:
            return None

    async def race_log(self, player: str, race_id: str, moment: Now) -> dict[str, Any]:
        """A finished race's public log (see ``protocol/verify.py``). A daily run's log is
        its player's once it is over, and anyone's once its day is over; its deal and
        nonce only then (the deal would show every card)."""
        room = await self.find(race_id, moment)
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
        return race.public_log(today)

    def snapshot(self, player: str, room: Room, watching: bool) -> dict[str, Any]:
        """A racer gets their racer view, a spectator the spectator view, anyone else the
        race info."""
        if player in room.race.racers:
            return {"race": room.race.racer_view(player)}
        if watching:
            return {"race": room.spectator_snapshot()}
        return {"race": room.race.public_info()}

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
            effects += racer_done(room, player, moment, self.settings, self.here)
        return ActDecision(Result(request.id, "act", data), effects, room, result.entry)

    def stored(self, room: Room, entry: LogEntry) -> None:
        """``entry`` of ``room``'s log is written."""
        room.durable[entry.player] = room.durable.get(entry.player, 0) + 1

    # ================================================================== other nodes

    async def _catch_up(self, room: Room, moment: Now) -> Effects:
        """Absorb the race's stored record (another node changed the race), after every
        racer's logged actions: a record that retires or ends someone was written after
        their last actions were stored, so they are read first (their "log" messages may
        still be on their way, and a racer retired or a race over takes no more)."""
        record = await self.store.races.load_race(room.id)
        if record is None or int(record.get("version", 0)) <= room.version:
            return []
        effects: Effects = []
        if room.race.start_mono is not None:
            for player, racer in list(room.race.racers.items()):
                logged = await self.store.races.racer_log(room.id, player, racer.last_seq)
                effects += apply_logged(room, player, logged, moment, self.settings, self.here)
        room.version = int(record["version"])
        return effects + self._told(room, absorb(room.race, record, moment), moment)

    async def caught_up(self, room: Room, moment: Now) -> Effects:
        """``room``'s record has a newer version in the store: absorb it."""
        async with room.lock:
            return await self._catch_up(room, moment)

    async def pull(self, room: Room, player: str, moment: Now) -> Effects:
        """Apply ``player``'s actions that another node logged and this replica lacks,
        at their own times, as if they had been played here (standings, the spectator
        feed, a finish follow)."""
        race = room.race
        racer = race.racers.get(player)
        if racer is None or race.start_mono is None or race.start_wall is None:
            return []
        entries = await self.store.races.racer_log(room.id, player, racer.last_seq)
        return apply_logged(room, player, entries, moment, self.settings, self.here)

    def carried(
        self, room: Room, player: str, carried: CarriedEntries, moment: Now
    ) -> Effects | None:
        """Apply ``player``'s entries carried in a "log" message without reading the log,
        when they continue this replica's log; None when they do not (``carried_entries``):
        then ``pull``."""
        entries = carried_entries(room.race, player, carried)
        if entries is None:
            return None
        return apply_logged(room, player, entries, moment, self.settings, self.here)

    # ================================================================== timers

    async def drop(self, player: str, moment: Now, races: Iterable[str] = ()) -> Effects:
        """``player`` was away longer than the grace period: their races (those followed
        here, and ``races``) go on without them (did not finish; an open race lets them
        go)."""
        effects: Effects = []
        for race_id in sorted({*self.races_of.get(player, ()), *races}):
            try:
                room = await self.find(race_id, moment)
            except RaceError:
                continue
            if room.race.phase is not Phase.DONE and player in room.race.racers:
                effects += await self.retire(room, player, Ending.DROPPED, moment)
        return effects

    async def time_out(self, room: Room, moment: Now) -> Effects:
        """The race reached its longest allowed duration: everyone still playing did not
        finish."""
        return await self._step(room, moment, lambda: room.race.time_out(moment))

    def timed_out(self, room: Room, moment: Now) -> bool:
        race = room.race
        return (
            race.phase is Phase.RUNNING
            and race.start_mono is not None
            and moment.mono_ms - race.start_mono > self.settings.max_race_ms
        )

    def look_after(self, room: Room, moment: Now) -> Effects:
        """Standings for idle racers; letting the race go when it is done."""
        race = room.race
        effects: Effects = []
        if race.phase is Phase.RUNNING and len(race.racers) > 1:
            idle_since = moment.mono_ms - self.settings.standings_interval_ms
            effects += standings(room, moment, self.here, idle_since=idle_since)
        if (
            room.done_mono is not None
            and room.stored
            and not room.pending
            and not room.sending
            and moment.mono_ms - room.done_mono >= (self.settings.done_race_keep_ms or 0)
        ):
            effects.append(Forget(room, "forgotten"))
        return effects

    def forget(self, room: Room) -> None:
        """Stop following ``room`` (the spectating desk tells its spectators)."""
        self.rooms.pop(room.id, None)
        self.feeding.discard(room)
        for player in room.race.racers:
            races = self.races_of.get(player)
            if races is not None:
                races.discard(room.id)
                if not races:
                    del self.races_of[player]

    # ================================================================== what follows

    def _told(self, room: Room, changes: list[tuple[str, str]], moment: Now) -> Effects:
        """Changes of the race itself (made here, or absorbed): ``races_of`` follows who
        joined or left, and ``telling.told`` says what they tell."""
        for kind, player in changes:
            if kind == "joined":
                self.races_of.setdefault(player, set()).add(room.id)
            elif kind == "left":
                races = self.races_of.get(player)
                if races is not None:
                    races.discard(room.id)
        return told(room, changes, moment, self.settings, self.here)

    async def rate(self, room: Room, moment: Now) -> Effects:
        """Rate ``room``'s finished race (``server/rating.py``)."""
        return await rate(self.store, self.settings, room.race, moment)

    def live(self) -> Iterable[Room]:
        return (room for room in self.rooms.values() if room.race.live)


def _store_trouble(request: Act) -> Error:
    return Error(request.id, "act", STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE)
