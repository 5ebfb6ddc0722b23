"""The arenas' requests of the wire protocol (docs/protocol.md, "Arenas"; docs/arenas.md):
listed with every other request in ``protocol/messages.py``'s ``REQUESTS``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from protocol.fields import ARENA_CHANGES, ArenaId, Flag, GameName, Int, PlayerId, Text
from protocol.request_base import Request


@dataclass(slots=True)
class ListArenas(Request):
    """The arenas running and to come, soonest first (of ``game`` only, if given)."""

    type: ClassVar[str] = "arena_list"
    game: GameName | None = None


@dataclass(slots=True)
class JoinArena(Request):
    """Enter ``arena`` (running, or to come): checked against its entry conditions now and
    again at its start; from then on the player is put in heats while they are idle."""

    type: ClassVar[str] = "arena_join"
    arena: ArenaId
    risk: Annotated[bool, Flag()] = False  # risk mode (no undo) in every heat, until changed


@dataclass(slots=True)
class ChangeArena(Request):
    """``pause`` (no new heat until ``resume``) or ``withdraw`` (for good) in ``arena``;
    ``risk_on`` or ``risk_off``: risk mode (no undo) in the heats paired from now on."""

    type: ClassVar[str] = "arena_change"
    arena: ArenaId
    change: Annotated[str, Text(16, choices=ARENA_CHANGES, code="bad_field")]


@dataclass(slots=True)
class ArenaStandings(Request):
    """A page of ``arena``'s standings: the ``top`` first lines and the lines around
    ``around`` (default: the asking player)."""

    type: ClassVar[str] = "arena_standings"
    arena: ArenaId
    top: Annotated[int, Int(0, 100)] = 10
    around: PlayerId | None = None


@dataclass(slots=True)
class WatchArena(Request):
    """Be told ``arena``'s standings as they change (``arena_standings`` events), as its
    participants are, until ``arena_unwatch``."""

    type: ClassVar[str] = "arena_watch"
    arena: ArenaId


@dataclass(slots=True)
class UnwatchArena(Request):
    type: ClassVar[str] = "arena_unwatch"
    arena: ArenaId


@dataclass(slots=True)
class ArenaResult(Request):
    """An ended arena's final result, signed: its heats, its log, its final standings
    (``solrace verify arena`` checks it with every heat's ``race_log``)."""

    type: ClassVar[str] = "arena_result"
    arena: ArenaId
