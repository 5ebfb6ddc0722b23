"""Arenas as players ask of them (docs/arenas.md, "Playing an arena"): the list of arenas
running and to come, entering one (its entry conditions checked now, and again at its
start by the pairer), pausing, resuming and withdrawing, a page of its standings, and
watching it (its standings pushed as they change: ``server/desks/arena_feed.py``).

The arenas are the calendar's (``protocol/arena_calendar.py``): every node computes the same
ones from the clock, and an arena is stored (``store.arenas``) the first time someone
enters it; and the operators' (``solrace admin arena create``), stored when they are made
and listed from the store (``made_arenas``). Its standings are never stored: they are
``protocol.arena.standings`` of its log, recomputed wherever they are asked.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from protocol.arena import Removed, standings
from protocol.arena_calendar import (
    ARENA_ID_PATTERN,
    HOUR_MS,
    SCHEDULES,
    Arena,
    Schedule,
    check_arena_id,
    upcoming,
)
from protocol.arena_entry import ArenaEntryRefused, EntryConditions, EntryFacts, may_enter
from protocol.games import GAMES
from protocol.players import is_bot
from protocol.race import Now
from protocol.ratings import Rating
from protocol.verify_arena import final_result
from server.config import Settings
from server.desks.arena_feed import ArenaFeed, Fed
from server.races.standing import standing_of
from server.store import Store
from server.store.arena_records import CALENDAR, ArenaNotFound, ArenaRecord, ArenaRefused

LIST_AHEAD_MS = 3 * HOUR_MS  # ``arena_list``: the arenas that start within this time
AROUND = 2  # a standings page shows this many lines either side of the player asked about


Calendar = Mapping[str, tuple[Schedule, ...]]


def calendar_of(settings: Settings) -> Calendar:
    """The schedules arenas follow: the calendar's, or one arena of each game every
    ``arena_every_ms`` lasting as long (a trial or a bench)."""
    every = settings.arena_every_ms
    if not every:
        return SCHEDULES
    trial = Schedule("trial", "Trial {game} arena", every, 0, every, 2)
    return {game: (trial,) for game in GAMES}


def arena_of(calendar: Calendar, arena_id: str) -> Arena:
    """The calendar's arena ``arena_id``; BadArena for an id not written as one,
    ArenaNotFound for one the calendar does not hold."""
    game, kind, stamp = ARENA_ID_PATTERN.fullmatch(check_arena_id(arena_id)).groups()  # type: ignore[union-attr]
    start = dt.datetime.strptime(stamp, "%Y%m%dT%H%M").replace(tzinfo=dt.UTC)
    start_ms = int(start.timestamp() * 1000)
    for schedule in calendar.get(game, ()):
        if schedule.kind == kind:
            for arena in schedule.arenas(game, start_ms, start_ms + 1):
                if arena.id == arena_id:
                    return arena
    raise ArenaNotFound(f"there is no arena {arena_id} on the calendar")


def made_arena(record: ArenaRecord) -> Arena:
    """An operator's arena as the calendar lists it, from its stored record."""
    kind = ARENA_ID_PATTERN.fullmatch(record.arena).group(2)  # type: ignore[union-attr]
    return Arena(
        record.arena,
        record.game,
        kind,
        record.title,
        record.starts_at_ms,
        record.length_ms,
        record.heat_size,
        EntryConditions(**record.conditions),
        scheduled=False,
    )


def record_of(arena: Arena, made_by: str = CALENDAR) -> ArenaRecord:
    """The store's record of a calendar arena."""
    return ArenaRecord(
        arena.id,
        arena.game,
        arena.start_ms,
        arena.length_ms,
        arena.heat_size,
        arena.conditions.as_dict(),
        made_by,
        "" if arena.scheduled else arena.title,
    )


def status_at(arena: Arena, now_ms: int) -> str:
    """``scheduled`` before its start, ``running`` until its end, ``ended`` after."""
    if now_ms < arena.start_ms:
        return "scheduled"
    return "running" if now_ms < arena.end_ms else "ended"


class ArenaDesk:
    def __init__(self, store: Store, settings: Settings, feed: ArenaFeed) -> None:
        self.store = store
        self.settings = settings
        self.feed = feed
        self.calendar = calendar_of(settings)

    async def find(self, arena_id: str) -> Arena:
        """The calendar's arena ``arena_id``, or the operator's stored under it;
        BadArena for an id not written as one, ArenaNotFound for one neither holds."""
        try:
            return arena_of(self.calendar, arena_id)
        except ArenaNotFound:
            record = await self.store.arenas.arena(arena_id)
            if record is None or not record.made:
                raise
            return made_arena(record)

    async def made(self, ending_after_ms: int) -> list[Arena]:
        """The operators' arenas not over at ``ending_after_ms`` (from the store)."""
        return [made_arena(r) for r in await self.store.arenas.made_arenas(ending_after_ms)]

    async def list_arenas(self, game: str | None, moment: Now) -> dict[str, Any]:
        """The calendar's and the operators' arenas not over that start within
        ``LIST_AHEAD_MS``, soonest first, with how many players entered each so far."""
        now_ms = moment.wall_ms
        made = await self.made(now_ms)
        every = upcoming(now_ms, LIST_AHEAD_MS, self.calendar, made)
        arenas = [arena for arena in every if game in (None, arena.game)]
        listed = []
        for arena in arenas:
            stored = await self.store.arenas.arena(arena.id)
            players = len(await self.store.arenas.participants(arena.id)) if stored else 0
            listed.append(
                {**arena.as_dict(), "status": status_at(arena, now_ms), "players": players}
            )
        return {"arenas": listed, "now_ms": now_ms}

    async def join(
        self, player: str, account: str | None, arena_id: str, moment: Now, risk: bool = False
    ) -> dict[str, Any]:
        """Enter the arena, in risk mode if ``risk``: refused (its code and sentence) when
        it is over or the player does not meet its conditions; entering again changes
        nothing. The player is told its standings from now on, on whatever node their
        session is (``arena_feed``)."""
        arena = await self.find(arena_id)
        if status_at(arena, moment.wall_ms) == "ended":
            raise ArenaEntryRefused("This arena is over.", "arena_over")
        refusal = await self.entry_refusal(arena, player, account, moment.wall_ms)
        if refusal is not None:
            raise refusal
        if arena.scheduled:  # stored the first time someone enters (an operator's is)
            await self.store.arenas.create_arena(record_of(arena))
        joined = await self.store.arenas.join(arena.id, player, moment.wall_ms, risk)
        return {
            "arena": arena.as_dict(),
            "joined": joined,
            "status": status_at(arena, moment.wall_ms),
        }

    async def entry_refusal(
        self, arena: Arena, player: str, account: str | None, now_ms: int
    ) -> ArenaEntryRefused | None:
        """Why ``player`` may not enter ``arena`` now (None: they may)."""
        log = (
            await self.store.arenas.log(arena.id) if await self.store.arenas.arena(arena.id) else []
        )
        rating = (await self.store.accounts.ratings(arena.game, [player])).get(player, Rating())
        facts = EntryFacts(
            bot=is_bot(player),
            removed=Removed(player) in log,
            standing=await standing_of(self.store, self.settings, player, account, now_ms),
            rating=rating.rating,
            rated_games=rating.games,
        )
        return may_enter(EntryConditions(**arena.conditions.as_dict()), facts)

    async def change(self, player: str, arena_id: str, change: str, moment: Now) -> dict[str, Any]:
        """Pause, resume or withdraw ``player``, or turn their risk mode on or off
        (NotInArena if they never entered)."""
        arena = await self.find(arena_id)
        changed = await self.store.arenas.change(arena.id, player, change, moment.wall_ms)
        return {"arena": arena.id, "change": change, "changed": changed}

    async def standings_page(
        self, arena_id: str, player: str, top: int, around: str | None, moment: Now
    ) -> dict[str, Any]:
        """The ``top`` first lines and those around ``around`` (default ``player``); an
        arena the calendar holds but nobody entered yet (not stored) has none."""
        arena = await self.find(arena_id)
        stored = await self.store.arenas.arena(arena.id)
        log = await self.store.arenas.log(arena.id) if stored else []
        fed = Fed()  # read whole: the heats, then the log
        if stored:
            fed.started(await self.store.arenas.heats(arena.id))
            fed.ended(log)
        lines = await self.feed.lines_of(standings(log), fed.racing)
        return {
            "arena": arena.id,
            "version": len(log),
            "status": status_at(arena, moment.wall_ms) if stored is None else stored.status,
            **page(lines, top, around or player),
        }

    async def final_result(self, arena_id: str) -> dict[str, Any]:
        """The ended arena's final result to sign (``protocol/verify_arena.py``): refused
        with ``arena_not_over`` until it has ended (its last heat scored)."""
        record = await self.store.arenas.arena(check_arena_id(arena_id))
        if record is None:
            raise ArenaNotFound(f"there is no arena {arena_id}")
        if record.status != "ended":
            raise ArenaRefused(
                "an arena's final result is given once it has ended", "arena_not_over"
            )
        arena = {
            "arena": record.arena,
            "game": record.game,
            "start_ms": record.starts_at_ms,
            "length_ms": record.length_ms,
            "heat_size": record.heat_size,
            "made_by": record.made_by,
            "status": record.status,
        }
        heats = [asdict(heat) for heat in await self.store.arenas.heats(record.arena)]
        return final_result(arena, heats, await self.store.arenas.log(record.arena))

    async def watch(self, player: str, arena_id: str, moment: Now) -> dict[str, Any]:
        arena = await self.find(arena_id)
        self.feed.watch(arena.id, player)
        return {"arena": arena.id, "watching": True}

    def unwatch(self, player: str, arena_id: str) -> dict[str, Any]:
        self.feed.unwatch(arena_id, player)
        return {"arena": arena_id, "watching": False}


def page(lines: list[dict[str, Any]], top: int, around: str) -> dict[str, Any]:
    """The first ``top`` of the standings' ``lines``, the lines within ``AROUND`` of
    ``around``'s (none when they have no line), and ``around``'s own line."""
    mine = next((i for i, line in enumerate(lines) if line["player"] == around), None)
    near = [] if mine is None else lines[max(0, mine - AROUND) : mine + AROUND + 1]
    return {
        "players": len(lines),
        "top": lines[:top],
        "around": near,
        "me": None if mine is None else lines[mine],
    }
