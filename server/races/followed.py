"""The races this node follows, and the one way a race itself changes: ``FollowedRaces``.

It keeps a replica of every race this node follows (a ``Room``: the pure ``Race`` and what
the server adds): the races of its players, those they watch, and those it was asked
about; it rebuilds one from the store when asked of a race it does not follow. A change of
the race itself (join, leave, start, retire, rematch, a time limit) is one atomic step in
the store (``step``: ``save_race_if`` on the record's version, retried on the newer record
another node wrote). It absorbs other nodes' changes and logged actions, and counts what is
stored. Every call returns what it leaves to do as effects, but for what the request that
asked cannot be trusted to carry out, as it may fail after it: following a race adopted
(``find``), and what a failed step found on its way (another node's change, absorbed).
Those are ``owed`` (``server/handover/ports.py``: the executor takes them before it carries
out anything else, and when a request fails). It never calls carrying out:
what a race's start, end, rating or failed write leaves to decide is handed to
``server/desks/deciding.py``, which asks it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from protocol.games import rules_for
from protocol.messages import ProtocolError
from protocol.race import LogEntry, Now, Phase, Race, RaceError, RaceSettings
from protocol.race_record import (
    Joined,
    Left,
    RaceChange,
    absorb,
    record_changes,
    record_of,
    restore,
)
from protocol.race_views import public_info
from server.config import Settings
from server.handover.effects import Effects, Follow, Forget, StartAt
from server.handover.node_news import CarriedEntries
from server.handover.ports import Owed
from server.races.announcements import standings, told
from server.races.log_sync import apply_logged, carried_entries, let_go, undo_unstored
from server.races.results import finished
from server.state.rooms import Feeding, Room
from server.store import Listed, Store, StoreError

log = logging.getLogger("solrace.director")

STEP_TRIES = 3  # a race step tried again on a newer record before giving up (race_busy)


class FollowedRaces:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        feeding: Feeding,
        owed: Owed,
        here: Callable[[str], bool] = lambda player: True,
    ) -> None:
        self.settings = settings
        self.store = store
        self.feeding = feeding  # rooms whose spectator feed has work (server/edge/feeds.py)
        self.owed = owed  # what no request may be left to carry out
        self.rooms: dict[str, Room] = {}
        self.races_of: dict[str, set[str]] = {}  # player -> races followed that they are in
        # whether a player's session is on this node (the server's sessions say): only
        # those are sent standings; others' nodes send them theirs
        self.here = here
        self.actions_lost = 0  # acknowledged actions the store was found to have lost
        self.history_losses = 0  # times a race was found to have lost some (read_back.py)
        self.read_back_due: dict[str, set[str]] = {}  # player taken over -> races followed

    async def find(self, race_id: str, moment: Now) -> Room:
        """A race followed here, else rebuilt from the store: a live one is followed from
        now on (``adopt``), a finished one is only shown (its end written if it never
        was). What that takes is ``owed``, whatever becomes of the request that asked: a
        race adopted is always followed. RaceError if there is none."""
        room = self.rooms.get(race_id)
        if room is not None:
            return room
        rebuilt = await self.rebuild(race_id, moment)
        if rebuilt is None:
            raise RaceError(f"there is no race {race_id}", "race_not_found")
        if rebuilt.id not in self.rooms:
            if rebuilt.race.phase is not Phase.DONE:
                self.owed.add(self.adopt(rebuilt, moment))
            elif not rebuilt.stored:  # over by its log, its end never written: write it
                self.owed.add(finished(rebuilt, moment, self.settings))
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
                infos.append({**public_info(room.race), "spectators": len(room.spectators)})
                continue
            record = records[race_id]
            if record is not None and record.get("racers"):
                race = restored(record, [], moment)
                infos.append({**public_info(race), "spectators": 0})
        return infos

    async def step(self, room: Room, moment: Now, change: Callable[[], None]) -> Effects:
        """Make a change of the race itself (``change`` mutates ``room.race``; a RaceError
        from it changes nothing) and store it as the record's next version, in one atomic
        step; what it tells. When another node changed the race first, the change is taken
        back, the stored race absorbed, and the change tried again on it. When the store
        cannot be reached, the change is taken back and the StoreError raised: nothing
        changed (what absorbing another node's change told is owed all the same)."""
        caught: Effects = []  # what absorbing other nodes' changes told
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
                    self.owed.add(caught)
                    raise
                if stored:
                    room.version += 1
                    return caught + self._told(room, record_changes(before, after), moment)
                absorb(room.race, before, moment)
                caught += await self._catch_up(room, moment)
        self.owed.add(caught)
        raise RaceError("the race kept changing under this request: try again", "race_busy")

    async def take_over(self, player: str, fence: int, moment: Now) -> tuple[list[str], int]:
        """``player``'s session continues on this node with ``fence``: follow their live
        races (rebuilt from the store), claim their logs with the fence (an older
        session's late writes are refused from now on), and read what it wrote up to
        then. The races followed here already are due to be read back once the session is
        here (``read_back_due``: the store may hold less than this node saw stored).
        Returns the races they are listed in and how many were rebuilt; ProtocolError
        ``replaced`` if a newer session of theirs claimed a log first."""
        races = await self.store.races.player_races(player)
        followed = set(races) & set(self.rooms)
        rebuilt = 0
        for race_id in races:
            rebuilt += race_id not in self.rooms
            try:
                room = await self.find(race_id, moment)
            except RaceError:
                continue
            if room.race.phase is Phase.DONE:
                continue
            if not await self.store.races.claim_racer(race_id, player, fence):
                raise ProtocolError(
                    "this player's session continues on a newer connection", "replaced"
                )
            self.owed.add(await self.pull(room, player, moment))
        if followed:
            self.read_back_due[player] = followed
        return races, rebuilt

    def write_refused(self, room: Room, player: str, fenced: bool, moment: Now) -> bool:
        """A write of ``player``'s action to ``room``'s log was refused: ``fenced`` (another
        node holds the player now), the racer is let go here; else what was not stored is
        taken back and the race must be read back from the store (True: the caller
        reconciles it, once; False: it is being already)."""
        if fenced:
            let_go(room, player)
            return False
        if room.suspect:
            return False
        undo_unstored(room, moment)
        return True

    def history_lost_live(self) -> int:
        """How many races followed here that lost acknowledged actions are not over."""
        return sum(1 for room in self.live() if room.race.history_lost)

    def stored(self, room: Room, entry: LogEntry) -> None:
        """``entry`` of ``room``'s log is written."""
        room.durable[entry.player] = room.durable.get(entry.player, 0) + 1

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

    def _told(self, room: Room, changes: list[RaceChange], moment: Now) -> Effects:
        """Changes of the race itself (made here, or absorbed): ``races_of`` follows who
        joined or left, and ``announcements.told`` says what they tell."""
        for change in changes:
            if isinstance(change, Joined):
                self.races_of.setdefault(change.player, set()).add(room.id)
            elif isinstance(change, Left):
                races = self.races_of.get(change.player)
                if races is not None:
                    races.discard(room.id)
        return told(room, changes, moment, self.settings, self.here)

    def live(self) -> Iterable[Room]:
        return (room for room in self.rooms.values() if room.race.live)


def restored(record: dict[str, Any], log_entries: list[LogEntry], moment: Now) -> Race:
    """The race of a stored ``record``, its racers' positions replayed from ``log_entries``."""
    settings = RaceSettings.from_dict(record["settings"])
    return restore(record, rules_for(settings.game, settings.options), log_entries, moment)


def listed(race: Race) -> Listed:
    """Where the store lists ``race`` now."""
    return Listed.of(race)
