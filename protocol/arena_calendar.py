"""The arenas' calendar, pure: the scheduled arenas of every game, computed from declared
schedules so every node finds the same ones, and the operator's arenas, records of the same
shape checked before they are kept. docs/arenas.md, "Calendar and entry", is the rule in
sentences; in short:

- a schedule repeats every ``every_ms`` from ``offset_ms`` after the epoch (UTC): by default
  each game has an hourly 30-minute arena of heats of 2 on the hour, and a daily 60-minute
  arena of heats of 4 at 19:30 UTC, for players with 10 rated games in the game;
- an arena's id is its game, its kind (the schedule's, or the operator's key) and its start
  (``sanibel-hourly-20261206T0400``), so the same arena has the same id everywhere;
- ``upcoming(now, horizon)`` lists the arenas not over at ``now`` that start before
  ``now + horizon``, by start then id;
- an operator's arena starts on a whole minute, at least a minute ahead and at most 30 days
  ahead, lasts 5 minutes to 6 hours in whole minutes, has heats of 2 to 4, a title of 1 to
  60 printable characters and a key of 1 to 16 of ``a-z 0-9`` that no schedule uses.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from protocol.arena import MAX_HEAT, MIN_HEAT
from protocol.arena_entry import BadArena, EntryConditions
from protocol.daily import DAY_MS
from protocol.games import GAMES, rules_for

MINUTE_MS: Final = 60_000
HOUR_MS: Final = 60 * MINUTE_MS
MIN_LENGTH_MS: Final = 5 * MINUTE_MS
MAX_LENGTH_MS: Final = 6 * HOUR_MS
MIN_LEAD_MS: Final = MINUTE_MS  # an operator's arena starts at least this far ahead
MAX_LEAD_MS: Final = 30 * DAY_MS  # and at most this far
MAX_HORIZON_MS: Final = 7 * DAY_MS  # the furthest ahead ``upcoming`` looks
MAX_TITLE: Final = 60
KEY_PATTERN: Final = re.compile(r"[a-z0-9]{1,16}")
ARENA_ID_PATTERN: Final = re.compile(r"([a-z_]{1,32})-([a-z0-9]{1,16})-(\d{8}T\d{4})")
OPEN: Final = EntryConditions()  # good standing asked, nothing more


@dataclass(frozen=True, slots=True)
class Arena:
    """One arena of the calendar, scheduled or made by an operator."""

    id: str
    game: str
    kind: str  # the schedule's kind ("hourly", "daily") or the operator's key
    title: str
    start_ms: int
    length_ms: int
    heat_size: int
    conditions: EntryConditions = OPEN
    scheduled: bool = True

    @property
    def end_ms(self) -> int:
        return self.start_ms + self.length_ms

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "kind": self.kind,
            "title": self.title,
            "start_ms": self.start_ms,
            "end_ms": self.end_ms,
            "length_ms": self.length_ms,
            "heat_size": self.heat_size,
            "conditions": self.conditions.as_dict(),
            "scheduled": self.scheduled,
        }


@dataclass(frozen=True, slots=True)
class Schedule:
    """Arenas of one kind, repeating every ``every_ms`` from ``offset_ms`` after the epoch."""

    kind: str
    title: str  # "{game}" in it is the game's name
    every_ms: int
    offset_ms: int
    length_ms: int
    heat_size: int
    conditions: EntryConditions = OPEN

    def arenas(self, game: str, from_ms: int, until_ms: int) -> list[Arena]:
        """Its arenas of ``game`` not over at ``from_ms`` that start before ``until_ms``."""
        first = -((self.offset_ms + self.length_ms - from_ms) // self.every_ms)
        starts = range(self.offset_ms + first * self.every_ms, until_ms, self.every_ms)
        name = rules_for(game).title
        return [
            Arena(
                arena_id(game, self.kind, start),
                game,
                self.kind,
                self.title.format(game=name),
                start,
                self.length_ms,
                self.heat_size,
                self.conditions,
            )
            for start in starts
            if start + self.length_ms > from_ms
        ]


HOURLY: Final = Schedule("hourly", "Hourly {game} arena", HOUR_MS, 0, 30 * MINUTE_MS, 2)
DAILY: Final = Schedule(
    "daily",
    "Daily {game} arena",
    DAY_MS,
    19 * HOUR_MS + 30 * MINUTE_MS,
    HOUR_MS,
    4,
    EntryConditions(min_rated_games=10),
)
SCHEDULES: Final[Mapping[str, tuple[Schedule, ...]]] = {game: (HOURLY, DAILY) for game in GAMES}


def arena_id(game: str, kind: str, start_ms: int) -> str:
    """The id of ``game``'s arena of ``kind`` starting at ``start_ms`` (a whole minute)."""
    stamp = dt.datetime.fromtimestamp(start_ms / 1000, dt.UTC).strftime("%Y%m%dT%H%M")
    return f"{game}-{kind}-{stamp}"


def upcoming(
    now_ms: int,
    horizon_ms: int,
    schedules: Mapping[str, tuple[Schedule, ...]] = SCHEDULES,
    made: Iterable[Arena] = (),
) -> list[Arena]:
    """The arenas not over at ``now_ms`` that start before ``now_ms + horizon_ms``: the
    scheduled ones and the operator's (``made``), by start, then id."""
    if not 0 <= horizon_ms <= MAX_HORIZON_MS:
        raise BadArena(f"the calendar looks from 0 to {MAX_HORIZON_MS // DAY_MS} days ahead")
    until = now_ms + horizon_ms
    found = [
        arena
        for game, kinds in schedules.items()
        for schedule in kinds
        for arena in schedule.arenas(game, now_ms, until)
    ]
    found += [arena for arena in made if arena.end_ms > now_ms and arena.start_ms < until]
    return sorted(found, key=lambda arena: (arena.start_ms, arena.id))


def operator_arena(
    game: str,
    key: str,
    title: str,
    start_ms: int,
    length_ms: int,
    heat_size: int,
    conditions: EntryConditions,
    now_ms: int,
) -> Arena:
    """An operator's arena, checked; BadArena (or BadGame for the game) says what is wrong."""
    rules_for(game)
    if not KEY_PATTERN.fullmatch(key) or key in {HOURLY.kind, DAILY.kind}:
        raise BadArena("an arena's key is 1 to 16 of a-z 0-9, and not hourly or daily")
    title = title.strip()
    if not 1 <= len(title) <= MAX_TITLE or not title.isprintable():
        raise BadArena(f"an arena's title is 1 to {MAX_TITLE} printable characters")
    if start_ms % MINUTE_MS:
        raise BadArena("an arena starts on a whole minute")
    if not now_ms + MIN_LEAD_MS <= start_ms <= now_ms + MAX_LEAD_MS:
        raise BadArena("an arena starts at least a minute ahead and at most 30 days ahead")
    if length_ms % MINUTE_MS or not MIN_LENGTH_MS <= length_ms <= MAX_LENGTH_MS:
        raise BadArena("an arena lasts 5 minutes to 6 hours, in whole minutes")
    if not MIN_HEAT <= heat_size <= MAX_HEAT:
        raise BadArena(f"a heat has {MIN_HEAT} to {MAX_HEAT} racers")
    return Arena(
        arena_id(game, key, start_ms),
        game,
        key,
        title,
        start_ms,
        length_ms,
        heat_size,
        conditions,
        scheduled=False,
    )


def check_arena_id(text: str) -> str:
    """``text`` when it is written as an arena id of a known game; BadArena otherwise."""
    found = ARENA_ID_PATTERN.fullmatch(text) if isinstance(text, str) else None
    if found is None or found.group(1) not in GAMES:
        raise BadArena(f"{str(text)[:64]!r} is not an arena id")
    return text
