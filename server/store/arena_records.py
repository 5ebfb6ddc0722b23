"""The shapes the store's arenas role (``arenas.py``) keeps and hands back, their limits,
the refusals it answers with, and the JSON both stores keep them as: an arena's record, a
participant, a heat started, a player's place in an ended arena, and the entries of an
arena's log (``protocol/arena.py``'s ``HeatResult``, ``Cleared``, ``Withdrawn``,
``Removed``, serialised here so the pure core stays as it is).

Decisions both stores share are made here, once: whether a record is well formed, what a
participant becomes after a join, pause, resume or withdrawal, and what identity makes an
entry of the log the same entry when it is appended again.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any, Final, Literal

from protocol.arena import (
    MAX_HEAT,
    MIN_HEAT,
    Cleared,
    Entry,
    HeatResult,
    Removed,
    Withdrawn,
    entry_as_dict,
    entry_from_dict,
)
from protocol.errors import SolraceError
from protocol.games import GAMES
from server.store.records import encode_json

MAX_ID: Final = 64  # characters of an arena, heat, player or node id, and of ``made_by``
MAX_CONDITIONS: Final = 1024  # bytes of an arena's entry conditions as canonical JSON
MAX_LENGTH_MS: Final = 7 * 86_400_000  # the longest arena: a week
MAX_PARTICIPANTS: Final = 10_000  # players who ever joined one arena
MAX_HEATS: Final = 200_000  # heats started in one arena
MAX_ENTRIES: Final = 400_000  # entries of one arena's log (results, clearings, pauses, ...)
KEEP_ARENA_MS: Final = 30 * 86_400_000  # an arena's keys, after its end (as race logs)
MAX_LEASE_MS: Final = 60_000  # the longest pairing lease taken or renewed at once
MAX_TITLE: Final = 60  # characters of an operator's arena's title
CALENDAR: Final = "calendar"  # the maker of the calendar's arenas

STATUSES: Final = ("scheduled", "running", "ended", "cancelled")
# status -> the statuses it may move to (``Arenas.set_status``)
NEXT_STATUS: Final = {
    "scheduled": ("running", "cancelled"),
    "running": ("ended", "cancelled"),
    "ended": (),
    "cancelled": (),
}
Change = Literal["pause", "resume", "withdraw", "risk_on", "risk_off"]
CHANGES: Final[tuple[Change, ...]] = ("pause", "resume", "withdraw", "risk_on", "risk_off")


class ArenaRefused(SolraceError):
    """The arenas role refused a write: nothing was changed; ``code`` says why."""

    code = "arena_refused"


class BadArena(ArenaRefused):
    """A field of an arena, heat, participant or place is out of its documented range."""

    code = "bad_arena"


class ArenaNotFound(ArenaRefused):
    """No arena is stored under that id (never created, or forgotten after its keep time)."""

    code = "arena_not_found"


class ArenaFull(ArenaRefused):
    """The arena holds as many participants, heats or log entries as it may."""

    code = "arena_full"


class NotInArena(ArenaRefused):
    """The player never joined the arena, or withdrew from it."""

    code = "not_in_arena"


class StaleLease(ArenaRefused):
    """A heat started under a pairing lease that another node has taken since."""

    code = "stale_lease"


class BadArenaEntry(ArenaRefused):
    """An entry that cannot go in the arena's log: a result of a heat never started or
    with other racers, a clearing of a heat not held, a withdrawal not made by a pause."""

    code = "bad_arena_entry"


def no_arena(arena: str) -> ArenaNotFound:
    return ArenaNotFound(f"there is no arena {arena} (never created, or forgotten since)")


def full(arena: str, what: str, most: int) -> ArenaFull:
    return ArenaFull(f"arena {arena} holds its {most:,} {what} already: nothing was added")


def not_joined(arena: str) -> NotInArena:
    return NotInArena(f"a player named never joined arena {arena}: nothing was changed")


def stale(arena: str) -> StaleLease:
    return StaleLease(
        f"another node took arena {arena}'s pairing lease since this one's: heat not started"
    )


def check_id(what: str, value: str) -> None:
    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= MAX_ID
        or not value.isprintable()
        or "{" in value
        or "}" in value
    ):
        raise BadArena(f"the {what} must be 1 to {MAX_ID} printable characters, no braces")


@dataclass(frozen=True, slots=True)
class ArenaRecord:
    """An arena as it is created: its game, when it starts, how long it runs, its heats'
    size, its entry conditions (a JSON object) and who made it (``calendar`` or an
    operator's name). Its ``status`` is kept beside it and changes (``set_status``)."""

    arena: str
    game: str
    starts_at_ms: int
    length_ms: int
    heat_size: int
    conditions: dict[str, Any]
    made_by: str
    title: str = ""  # an operator's arena's title ("" for the calendar's: it has its own)
    status: str = "scheduled"

    def __post_init__(self) -> None:
        check_id("arena id", self.arena)
        check_id("maker", self.made_by)
        if len(self.title) > MAX_TITLE or not self.title.isprintable():
            raise BadArena(f"an arena's title is at most {MAX_TITLE} printable characters")
        if self.game not in GAMES:
            raise BadArena(f"{self.game!r} is not a game of this server")
        if not 0 <= self.starts_at_ms < 2**53 or not 60_000 <= self.length_ms <= MAX_LENGTH_MS:
            raise BadArena("an arena starts at an epoch ms and lasts 1 minute to 7 days")
        if not MIN_HEAT <= self.heat_size <= MAX_HEAT:
            raise BadArena(f"a heat has {MIN_HEAT} to {MAX_HEAT} racers")
        if self.status not in STATUSES:
            raise BadArena(f"an arena's status is one of {', '.join(STATUSES)}")
        if not isinstance(self.conditions, dict):
            raise BadArena("an arena's entry conditions are a JSON object")
        try:
            size = len(encode_json(self.conditions).encode())
        except (TypeError, ValueError) as error:
            raise BadArena("an arena's entry conditions are a JSON object") from error
        if size > MAX_CONDITIONS:
            raise BadArena(f"an arena's entry conditions take at most {MAX_CONDITIONS} bytes")

    @property
    def ends_at_ms(self) -> int:
        return self.starts_at_ms + self.length_ms

    def expires_at_ms(self) -> int:
        """When the arena's keys are forgotten: its end plus ``KEEP_ARENA_MS``."""
        return self.ends_at_ms + KEEP_ARENA_MS

    def content_json(self) -> str:
        """What ``create_arena`` compares: everything but the status, which changes."""
        fields = asdict(self)
        del fields["status"]
        if not self.title:
            del fields["title"]  # a calendar arena's record reads as it did before titles
        return encode_json(fields)

    @property
    def made(self) -> bool:
        """Whether an operator made it (the calendar's arenas are ``made_by`` calendar)."""
        return self.made_by != CALENDAR

    @staticmethod
    def from_json(text: str, status: str) -> ArenaRecord:
        return ArenaRecord(**json.loads(text), status=status)


@dataclass(frozen=True, slots=True)
class Participant:
    """A player in an arena: when they joined, last paused, last resumed and withdrew
    (None: not yet), their status now (``active``, ``paused`` or ``withdrawn``), and
    whether they race in risk mode (no undo) in the heats paired from now on."""

    player: str
    joined_ms: int
    status: str = "active"
    paused_ms: int | None = None
    resumed_ms: int | None = None
    withdrawn_ms: int | None = None
    risk: bool = False

    def as_json(self) -> str:
        return encode_json(asdict(self))

    @staticmethod
    def from_json(text: str) -> Participant:
        return Participant(**json.loads(text))


def check_time(at_ms: int) -> None:
    if not isinstance(at_ms, int) or not 0 <= at_ms < 2**53:
        raise BadArena("a time is an epoch ms (a whole number, not negative)")


def changed(current: Participant | None, change: Change, at_ms: int) -> Participant | None:
    """The participant after ``change`` at ``at_ms``; None when it changes nothing (a pause
    of a paused player, a resume of an active one, a withdrawal repeated, risk mode set as
    it is): so a change retried is done once. ``NotInArena`` for a player who never
    joined, or who withdrew and asks for anything but a withdrawal."""
    check_time(at_ms)
    if current is None or (current.status == "withdrawn" and change != "withdraw"):
        raise NotInArena("that player is not in this arena (never joined, or withdrew)")
    if change == "pause" and current.status == "active":
        return replace(current, status="paused", paused_ms=at_ms)
    if change == "resume" and current.status == "paused":
        return replace(current, status="active", resumed_ms=at_ms)
    if change == "withdraw" and current.status != "withdrawn":
        return replace(current, status="withdrawn", withdrawn_ms=at_ms)
    if change in ("risk_on", "risk_off") and current.risk != (change == "risk_on"):
        return replace(current, risk=change == "risk_on")
    return None


def checked_change(change: str) -> Change:
    for known in CHANGES:
        if change == known:
            return known
    raise BadArena(f"a participant's change is one of {', '.join(CHANGES)}")


def status_reached(current: str, status: str) -> bool:
    """Whether an arena whose status is ``current`` may be ``status`` now: the same, or one
    ``NEXT_STATUS`` allows (``BadArena`` for a status that does not exist)."""
    if status not in STATUSES:
        raise BadArena(f"an arena's status is one of {', '.join(STATUSES)}")
    return status == current or status in NEXT_STATUS[current]


def streak_ends(change: Change) -> bool:
    """Whether the change ends the player's streak: a pause or a withdrawal puts a
    ``Withdrawn`` entry in the log (docs/arenas.md, "Scoring", rule 9)."""
    return change in ("pause", "withdraw")


@dataclass(frozen=True, slots=True)
class HeatStart:
    """A heat as the pairer started it: its id, its pairing wave (heats of one wave play
    one deal), the deal's seed (number), its racers and when."""

    heat: str
    wave: int
    seed: int
    racers: tuple[str, ...]
    at_ms: int

    def __post_init__(self) -> None:
        check_id("heat id", self.heat)
        for racer in self.racers:
            check_id("player id", racer)
        check_time(self.at_ms)
        if not MIN_HEAT <= len(self.racers) <= MAX_HEAT or len(set(self.racers)) != len(
            self.racers
        ):
            raise BadArena(f"a heat has {MIN_HEAT} to {MAX_HEAT} different racers")
        if not 0 <= self.wave < 2**31 or not 0 <= self.seed < 10**20:
            raise BadArena("a wave is 0 to 2^31 - 1, a seed 0 to 10^20 - 1")

    def as_json(self) -> str:
        return encode_json({**asdict(self), "racers": list(self.racers)})

    @staticmethod
    def from_json(text: str) -> HeatStart:
        fields = json.loads(text)
        return HeatStart(**{**fields, "racers": tuple(fields["racers"])})


@dataclass(frozen=True, slots=True)
class ArenaPlace:
    """A player's line in an ended arena, for their profile: the arena, its game, their
    final place among how many, their points, and when the arena ended."""

    arena: str
    game: str
    place: int
    players: int
    points: int
    ended_ms: int

    def __post_init__(self) -> None:
        check_id("arena id", self.arena)
        check_time(self.ended_ms)
        if self.game not in GAMES:
            raise BadArena(f"{self.game!r} is not a game of this server")
        if not 1 <= self.place <= self.players <= MAX_PARTICIPANTS or self.points < 0:
            raise BadArena("a place is 1 to the arena's players, points are not negative")

    def as_json(self) -> str:
        return encode_json(asdict(self))

    @staticmethod
    def from_json(text: str) -> ArenaPlace:
        return ArenaPlace(**json.loads(text))


# the log's entries


def entry_identity(entry: Entry) -> str:
    """What makes an appended entry the same entry again: a heat's result by its heat id,
    a clearing by its heat, a removal by its player; a withdrawal has none ("": it is
    logged by the pause or withdrawal that makes it, done once, ``changed``). The entry's
    ids are checked (``BadArena``)."""
    if isinstance(entry, HeatResult | Cleared):
        check_id("heat id", entry.heat)
    for player in entry_players(entry):
        check_id("player id", player)
    if isinstance(entry, HeatResult):
        return f"heat:{entry.heat}"
    if isinstance(entry, Cleared):
        return f"cleared:{entry.heat}"
    return f"removed:{entry.player}" if isinstance(entry, Removed) else ""


def entry_json(entry: Entry) -> str:
    return encode_json(entry_as_dict(entry))


def entry_from_json(text: str) -> Entry:
    return entry_from_dict(json.loads(text))


def entry_players(entry: Entry) -> list[str]:
    """The players an entry names (each must be a participant)."""
    if isinstance(entry, HeatResult):
        return [racer.player for racer in entry.racers]
    if isinstance(entry, Cleared):
        return []
    return [entry.player]


def entry_heat(entry: Entry) -> str:
    """The heat an entry names ("" for none)."""
    return entry.heat if isinstance(entry, HeatResult | Cleared) else ""


def check_entry(entry: Entry, heat: HeatStart | None, held: bool) -> None:
    """Refuse an entry that cannot go in the log (``BadArenaEntry``), given the heat it
    names as started (None: never started) and whether that heat's result is held."""
    if isinstance(entry, Withdrawn):
        raise BadArenaEntry("a withdrawal is logged by pausing or withdrawing the player")
    if isinstance(entry, HeatResult) and (
        heat is None or sorted(heat.racers) != sorted(entry_players(entry))
    ):
        raise BadArenaEntry(f"heat {entry.heat} was not started with these racers")
    if isinstance(entry, Cleared) and not held:
        raise BadArenaEntry(f"heat {entry.heat} is not held in this arena's log")
