"""The events the server tells a player (numbered per player: docs/protocol.md, "Events"),
as one closed set of frozen types: the server builds each from its class, never as a
kind string and a dict, and what nodes pass each other is read back into the same types.

Each has its ``kind`` (the wire's) and ``data()`` (the wire's fields). Most carry their
fields by name; ``Started`` and ``RaceResult`` carry a whole view or result as their data.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, get_args


class _Fields:
    """An event whose wire fields are its own fields, by name."""

    __slots__ = ()
    kind: ClassVar[str]

    def data(self) -> dict[str, Any]:
        return {field.name: getattr(self, field.name) for field in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Any:
        return cls(**{field.name: data[field.name] for field in fields(cls)})  # type: ignore[arg-type]


class _Whole:
    """An event whose one field is its whole data (a view, a result)."""

    __slots__ = ()
    kind: ClassVar[str]

    def data(self) -> dict[str, Any]:
        whole: dict[str, Any] = getattr(self, fields(self)[0].name)  # type: ignore[arg-type]
        return whole

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Any:
        return cls(data)  # type: ignore[call-arg]


@dataclass(frozen=True, slots=True)
class RacerJoined(_Fields):
    """Someone joined a race I am in: its race info now."""

    kind: ClassVar[str] = "joined"
    race: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RacerLeft(_Fields):
    """Someone left a race I am in before its start: its race info now."""

    kind: ClassVar[str] = "left"
    race: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CountdownSet(_Fields):
    """The race starts at ``start_at_ms`` (wall clock), in ``starts_in_ms``."""

    kind: ClassVar[str] = "countdown"
    race: str
    start_at_ms: int | None
    starts_in_ms: int


@dataclass(frozen=True, slots=True)
class Started(_Whole):
    """The start signal: my racer view, with the deal."""

    kind: ClassVar[str] = "started"
    view: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Standings(_Fields):
    kind: ClassVar[str] = "standings"
    race: str
    players: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Paired(_Fields):
    """The server paired me (``quick_race``): the race I am in."""

    kind: ClassVar[str] = "paired"
    race: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ArenaStandingsChanged(_Fields):
    """An arena I take part in or watch has new standings: the top lines and mine (None
    when I am not in them), the log's length they come from (``version``), and whether
    they are final (the arena is over)."""

    kind: ClassVar[str] = "arena_standings"
    arena: str
    version: int
    final: bool
    players: int
    top: list[dict[str, Any]]
    me: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Rated(_Fields):
    kind: ClassVar[str] = "rated"
    race: str
    game: str
    ratings: dict[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Unrated(_Fields):
    """A race of mine moved no rating: ``reason`` (a code of ``protocol/rated.py``'s
    ``UNRATED``) says why, ``message`` in a sentence."""

    kind: ClassVar[str] = "unrated"
    race: str
    game: str
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Held(_Fields):
    """A run of mine (``what``: ``daily`` or ``race``) waits for a moderator."""

    kind: ClassVar[str] = "held"
    race: str
    game: str
    what: str


@dataclass(frozen=True, slots=True)
class RaceResult(_Whole):
    """Everyone is done: the race's result."""

    kind: ClassVar[str] = "result"
    result: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RematchOffered(_Fields):
    kind: ClassVar[str] = "rematch"
    race: str
    rematch: str
    by: str


@dataclass(frozen=True, slots=True)
class Challenged(_Fields):
    """``by`` (named ``name``; ``account``: an account's) challenges me: ``race``, a private
    race of ``game`` for two, waits for me to join it."""

    kind: ClassVar[str] = "challenged"
    race: str
    game: str
    by: str
    name: str
    account: bool


@dataclass(frozen=True, slots=True)
class ChallengeDeclined(_Fields):
    """``by`` (named ``name``) declined my challenge to ``race`` (still open until I leave it)."""

    kind: ClassVar[str] = "challenge_declined"
    race: str
    by: str
    name: str


@dataclass(frozen=True, slots=True)
class Snapshot(_Fields):
    """My races' racer views, when missed events cannot be replayed."""

    kind: ClassVar[str] = "snapshot"
    races: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class HistoryLost(_Fields):
    """The store lost acknowledged actions of a race I am in: ``race`` is my racer view
    as the store holds it (take it as my game now), ``lost`` how many of my actions
    were lost. The race goes on from there, never rated nor ranked."""

    kind: ClassVar[str] = "history_lost"
    race: dict[str, Any]
    lost: int


@dataclass(frozen=True, slots=True)
class WatchEnded(_Fields):
    kind: ClassVar[str] = "watch_ended"
    race: str
    reason: str


@dataclass(frozen=True, slots=True)
class Shutdown(_Fields):
    kind: ClassVar[str] = "shutdown"
    reason: str
    reconnect_in_ms: int


PlayerEvent = (
    RacerJoined
    | RacerLeft
    | CountdownSet
    | Started
    | Standings
    | Paired
    | ArenaStandingsChanged
    | Rated
    | Unrated
    | Held
    | RaceResult
    | RematchOffered
    | Challenged
    | ChallengeDeclined
    | Snapshot
    | HistoryLost
    | WatchEnded
    | Shutdown
)
EVENT_TYPES: dict[str, Any] = {event.kind: event for event in get_args(PlayerEvent)}


def player_event(kind: str, data: dict[str, Any]) -> PlayerEvent:
    """The event ``kind`` with ``data`` (as another node sent it); ``ValueError`` for a
    kind that is not one, ``KeyError`` for a field missing."""
    event_type = EVENT_TYPES.get(kind)
    if event_type is None:
        raise ValueError(f"no player event {kind!r}")
    event: PlayerEvent = event_type.from_data(data)
    return event
