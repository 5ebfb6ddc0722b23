"""The race director: answers the race requests of players, and the race's own timers,
with a reply and typed effects (``server/effects.py``). It never writes to a socket or
the store itself; the executor carries out what it returns.

It keeps every race this process is serving (a ``Room``: the pure ``Race`` and what the
server adds) and which races each player is in. The race's rules and policy are the pure
``protocol.race.Race``'s; here is only what follows from them: who is told what, when a
race starts, what is written, when a race is let go. A race that is not in memory (after
a restart, or finished and let go) is rebuilt from its record and its action log.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from protocol.deals import MAX_DEAL, check_deal_number
from protocol.games import rules_for
from protocol.messages import Act, CreateRace, Error, Result, ServerMessage
from protocol.race import (
    Ending,
    LogEntry,
    Now,
    Phase,
    Race,
    RaceError,
    RaceSettings,
    view_json,
)
from server.config import Settings
from server.effects import Effects, Expect, Forget, Post, PostAct, Push, StartAt, Write
from server.jobs import AppendActions, EndRace, RecordDaily, SaveRace
from server.rooms import Room
from server.store import Store

log = logging.getLogger("solrace.director")

Answer = tuple[dict[str, Any], Effects]


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


class RaceDirector:
    def __init__(self, settings: Settings, store: Store, feeding: set[Room]) -> None:
        self.settings = settings
        self.store = store
        self.feeding = feeding  # rooms whose spectator feed has work (the spectating desk's)
        self.rooms: dict[str, Room] = {}
        self.races_of: dict[str, set[str]] = {}  # player -> races in memory they are in
        self.later: Effects = []  # effects of races taken over while finding them

    # ================================================================== finding races

    def room(self, race_id: str) -> Room:
        """A race in memory; RaceError ``race_not_found`` if it is not."""
        room = self.rooms.get(race_id)
        if room is None:
            raise RaceError(f"there is no race {race_id}", "race_not_found")
        return room

    async def find(self, race_id: str, moment: Now) -> Room:
        """A race in memory, else rebuilt from the store: a live one is served from now
        on (``adopt``; the effects of that wait in ``later``), a finished one is only
        shown. RaceError if there is none."""
        room = self.rooms.get(race_id)
        if room is not None:
            return room
        rebuilt = await self.rebuild(race_id, moment)
        if rebuilt is None:
            raise RaceError(f"there is no race {race_id}", "race_not_found")
        if rebuilt.race.phase is not Phase.DONE and rebuilt.id not in self.rooms:
            self.later += self.adopt(rebuilt, moment)
        return self.rooms.get(race_id, rebuilt)

    async def rebuild(self, race_id: str, moment: Now, fresh: bool = False) -> Room | None:
        """The race rebuilt by replay from its stored record and log (None: unknown). The
        one in memory, if there is one, unless ``fresh``."""
        record = await self.store.load_race(race_id)
        if record is None or not record.get("racers"):  # unknown, or closed before it began
            return None
        log_entries = await self.store.actions(race_id)
        if race_id in self.rooms and not fresh:  # rebuilt meanwhile by another request
            return self.rooms[race_id]
        settings = RaceSettings.from_dict(record["settings"])
        race = Race.restore(record, rules_for(settings.game, settings.options), log_entries, moment)
        room = Room(race, moment.mono_ms, self.feeding)
        room.durable = {player: len(racer.log) for player, racer in race.racers.items()}
        if race.phase is Phase.DONE:
            room.done_mono, room.stored = moment.mono_ms, True
        return room

    def adopt(self, room: Room, moment: Now) -> Effects:
        """Serve a rebuilt live race from now on: its timers are armed again, and its
        racers who do not come back are dropped after the grace period."""
        race = room.race
        self.rooms[room.id] = room
        for player in race.racers:
            self.races_of.setdefault(player, set()).add(room.id)
        effects: Effects = [Expect(player) for player, r in race.racers.items() if not r.outcome]
        if race.phase is Phase.COUNTDOWN and race.start_mono is not None:
            effects.append(StartAt(room, race.start_mono))
        log.info("race rebuilt", extra={"race": room.id, "phase": race.phase.value})
        return effects

    def racing(self, player: str) -> list[Room]:
        """The rooms of ``player``'s races in memory, by race id."""
        return [self.rooms[race] for race in sorted(self.races_of.get(player, ()))]

    # ================================================================== race requests

    def create_race(self, player: str, name: str, request: CreateRace, moment: Now) -> Answer:
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
        )
        room, effects = self.open_room(settings, player, name, moment)
        return {"race": room.race.public_info()}, effects

    def open_room(
        self, settings: RaceSettings, player: str, name: str, moment: Now, race_id: str = ""
    ) -> tuple[Room, Effects]:
        """A new race hosted by ``player``, who is its first racer (it starts by itself
        when that makes it full: a race for one)."""
        rules = rules_for(settings.game, settings.options)
        race = Race(race_id or new_id(), settings, rules, player)
        race.join(player, name)
        room = Room(race, moment.mono_ms, self.feeding)
        self.rooms[race.id] = room
        self.races_of.setdefault(player, set()).add(race.id)
        effects: Effects = [Write(SaveRace(race.id, race.record()))]
        if settings.mode == "daily":  # an attempt starts at once, with no countdown
            race.schedule_start(None, moment)
            return room, [*effects, *self.begin(room, moment)]
        return room, [*effects, *self._start_if_full(room, moment)]

    def list_races(self) -> dict[str, Any]:
        return {"races": [r.race.public_info() for r in self.rooms.values() if r.race.joinable]}

    def my_races(self, player: str) -> dict[str, Any]:
        return {
            "races": [
                room.race.racer_view(player)
                for room in self.racing(player)
                if room.race.phase is not Phase.DONE
            ]
        }

    async def join_race(self, player: str, name: str, race_id: str, moment: Now) -> Answer:
        room = await self.find(race_id, moment)
        already = player in room.race.racers
        room.race.join(player, name)
        info = room.race.public_info()
        if already:
            return {"race": info}, []
        self.races_of.setdefault(player, set()).add(room.id)
        effects: Effects = self._tell_racers(room, "joined", {"race": info}, but=player)
        effects += self._start_if_full(room, moment)
        effects.append(Write(SaveRace(room.id, room.race.record())))
        return {"race": info}, effects

    async def start_race(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.find(race_id, moment)
        effects = self._schedule_start(room, player, moment)
        return {"race": room.race.public_info()}, effects

    async def leave_race(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.find(race_id, moment)
        room.race.leave(player)
        return {"race": room.id}, self._left(room, player)

    async def resign(self, player: str, race_id: str, moment: Now) -> Answer:
        room = await self.find(race_id, moment)
        room.race.racer(player)
        effects = self.retire(room, player, Ending.RESIGNED, moment)
        return {"race": room.id, "outcome": Ending.RESIGNED.value}, effects

    async def rematch(self, player: str, name: str, race_id: str, moment: Now) -> Answer:
        room = await self.find(race_id, moment)
        old = room.race
        old.racer(player)
        if old.phase is not Phase.DONE or old.settings.mode != "race":
            raise RaceError("a rematch follows a finished race", "race_not_finished")
        existing = await self._rematch_room(old.rematch, moment)
        if existing is not None and existing.race.phase is Phase.OPEN:
            return await self.join_race(player, name, existing.id, moment)
        settings = RaceSettings(
            game=old.settings.game,
            options=old.settings.options,
            deal=secrets.randbelow(MAX_DEAL) + 1,
            max_players=max(old.settings.max_players, 1),
            public=old.settings.public,
            countdown_ms=old.settings.countdown_ms,
            spectator_delay_ms=old.settings.spectator_delay_ms,
        )
        new, effects = self.open_room(settings, player, name, moment)
        old.rematch = new.id
        effects += self._tell_racers(
            room, "rematch", {"race": old.id, "rematch": new.id, "by": player}, but=player
        )
        effects.append(Write(EndRace(old.id, old.record(), old.result(), self._keep_s())))
        return {"race": new.race.public_info()}, effects

    async def _rematch_room(self, race_id: str | None, moment: Now) -> Room | None:
        if race_id is None:
            return None
        try:
            return await self.find(race_id, moment)
        except RaceError:
            return None

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
            reply = result.reply
            return ActDecision(
                Error(request.id, "act", reply["code"], reply["message"]), [], room, None
            )
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
            effects += self._racer_done(room, player, moment)
        return ActDecision(Result(request.id, "act", data), effects, room, result.entry)

    def stored(self, room: Room, entry: LogEntry) -> None:
        """``entry`` of ``room``'s log is written."""
        room.durable[entry.player] = room.durable.get(entry.player, 0) + 1

    def undo_unstored(self, room: Room, moment: Now) -> None:
        """Writing ``room``'s log failed: take back every action not known to be stored
        (their answers say ``store_unavailable``), and rebuild the race from the store
        before it takes another action (a write whose answer was lost may have gone in)."""
        race = room.race
        log_entries = sorted(
            (
                entry
                for player, racer in race.racers.items()
                for entry in racer.log[: room.durable.get(player, 0)]
            ),
            key=lambda entry: entry.t_ms,
        )
        room.race = Race.restore(race.record(), race.rules, log_entries, moment)
        room.suspect = True

    def reconciled(self, room: Room, rebuilt: Room) -> Effects:
        """``room``'s race as the store has it, after a failed write: every racer gets a
        snapshot (their position may have changed under them)."""
        room.race, room.durable, room.suspect = rebuilt.race, rebuilt.durable, False
        return [
            Push(player, "snapshot", {"races": [room.race.racer_view(player)]})
            for player in room.race.racers
        ]

    def rewrite(self, room: Room) -> Effects:
        """The store lost ``room``'s race: write its record and stored log again."""
        room.suspect = False
        effects: Effects = [Write(SaveRace(room.id, room.race.record()))]
        for player, racer in room.race.racers.items():
            stored = tuple(racer.log[: room.durable.get(player, 0)])
            if stored:
                effects.append(Write(AppendActions(room.id, stored)))
        return effects

    # ================================================================== timers

    def begin(self, room: Room, moment: Now) -> Effects:
        """The start signal: every racer gets the same deal at the same moment."""
        race = room.race
        room.start_handle = None
        if race.phase is not Phase.COUNTDOWN:
            return []  # everyone left or dropped during the countdown
        race.begin()
        effects: Effects = [Write(SaveRace(room.id, race.record()))]
        effects += (Push(player, "started", race.racer_view(player)) for player in race.racers)
        first = next(iter(race.racers.values())).state
        assert first is not None
        effects.append(Post(room, "started", {"view": view_json(race.rules.view(first))}))
        return effects

    def drop(self, player: str, moment: Now) -> Effects:
        """``player`` was away longer than the grace period: their races go on without
        them (did not finish; an open race lets them go)."""
        effects: Effects = []
        for room in self.racing(player):
            if room.race.phase is not Phase.DONE and player in room.race.racers:
                effects += self.retire(room, player, Ending.DROPPED, moment)
        return effects

    def look_after(self, room: Room, moment: Now) -> Effects:
        """Standings for idle racers, the race's time limit, letting it go when done."""
        race = room.race
        effects: Effects = []
        if race.phase is Phase.RUNNING and len(race.racers) > 1:
            effects += self._standings(
                room, moment, idle_since=moment.mono_ms - self.settings.standings_interval_ms
            )
        if (
            race.phase is Phase.RUNNING
            and race.start_mono is not None
            and moment.mono_ms - race.start_mono > self.settings.max_race_ms
        ):
            race.time_out(moment)
            effects += self._finish(room, moment)
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
        """Stop keeping ``room`` (the spectating desk tells its spectators)."""
        self.rooms.pop(room.id, None)
        self.feeding.discard(room)
        for player in room.race.racers:
            races = self.races_of.get(player)
            if races is not None:
                races.discard(room.id)
                if not races:
                    del self.races_of[player]

    # ================================================================== what follows

    def retire(self, room: Room, player: str, ending: Ending, moment: Now) -> Effects:
        if not room.race.retire(player, ending, moment):
            return []
        if room.race.phase is Phase.OPEN:  # left before the start
            return self._left(room, player)
        room.standings_version += 1
        effects: Effects = [
            Post(room, "retired", {"player": player, "outcome": ending.value}, racer=player)
        ]
        effects += self._racer_done(room, player, moment)
        if room.race.phase is not Phase.DONE:  # else the end is written
            effects.append(Write(SaveRace(room.id, room.race.record())))
        return effects

    def _left(self, room: Room, player: str) -> Effects:
        """``player`` left an open race: the others are told (the host may have passed to
        another racer), or, with nobody left, the race closes."""
        races = self.races_of.get(player)
        if races is not None:
            races.discard(room.id)
        if room.race.racers:
            effects = self._tell_racers(room, "left", {"race": room.race.public_info()})
            return [*effects, Write(SaveRace(room.id, room.race.record()))]
        result: dict[str, Any] = {"race": room.id, "ranking": [], "deal": None}
        keep = self._keep_s()
        return [Forget(room, "closed"), Write(EndRace(room.id, room.race.record(), result, keep))]

    def _racer_done(self, room: Room, player: str, moment: Now) -> Effects:
        if room.race.phase is Phase.DONE:
            return self._finish(room, moment)
        return self._standings(room, moment, but=player)

    def _finish(self, room: Room, moment: Now) -> Effects:
        """Everyone is done: the ranking is final; it is written, then everyone told."""
        race = room.race
        if room.done_mono is not None:
            return []
        room.done_mono = moment.mono_ms
        if room.start_handle is not None:
            room.start_handle.cancel()
        result = race.result()
        settings = race.settings
        effects: Effects = [
            Write(EndRace(race.id, race.record(), result, self._keep_s()), room.mark_stored),
            *self._tell_racers(room, "result", result),
            Post(room, "result", result),
        ]
        if settings.mode == "daily" and settings.ranked and settings.day is not None:
            effects.append(Write(RecordDaily(settings.game, settings.day, race.runs()[0])))
        log.info(
            "race finished",
            extra={
                "race": race.id,
                "kind": settings.mode,
                "ranking": [entry["player"] for entry in result["ranking"]],
            },
        )
        return effects

    def _start_if_full(self, room: Room, moment: Now) -> Effects:
        """A full race starts by itself (the server sets the countdown)."""
        return self._schedule_start(room, None, moment) if room.race.starts_by_itself else []

    def _schedule_start(self, room: Room, by: str | None, moment: Now) -> Effects:
        start_mono = room.race.schedule_start(by, moment)
        announce = {
            "race": room.id,
            "start_at_ms": room.race.start_wall,
            "starts_in_ms": start_mono - moment.mono_ms,
        }
        return [
            *self._tell_racers(room, "countdown", announce),
            Post(room, "countdown", announce),
            StartAt(room, start_mono),
            Write(SaveRace(room.id, room.race.record())),
        ]

    def _tell_racers(
        self, room: Room, kind: str, data: dict[str, Any], but: str | None = None
    ) -> Effects:
        return [Push(player, kind, data) for player in room.race.racers if player != but]

    def _standings(
        self, room: Room, moment: Now, *, idle_since: int | None = None, but: str | None = None
    ) -> Effects:
        """The standings for every racer (but ``but``). With ``idle_since``, only for
        racers who are behind and have not acted since then: the others get them on their
        next ``act`` result."""
        players = room.race.standings()
        effects: Effects = []
        for player in room.race.racers:
            if player == but:
                continue
            if idle_since is not None and (
                room.told.get(player, (0, 0))[0] == room.standings_version
                or room.last_act.get(player, 0) > idle_since
            ):
                continue
            room.told[player] = (room.standings_version, moment.mono_ms)
            effects.append(Push(player, "standings", {"race": room.id, "players": players}))
        return effects

    def _keep_s(self) -> int:
        return self.settings.keep_race_logs_days * 86_400

    def live(self) -> Iterable[Room]:
        return (room for room in self.rooms.values() if room.race.live)


def _store_trouble(request: Act) -> Error:
    return Error(
        request.id,
        "act",
        "store_unavailable",
        "this race's moves cannot be stored right now, so this one was not played; "
        "send it again shortly",
    )
