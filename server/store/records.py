"""The shapes the store's roles hand back: who a token names, a player's past, where a
race is listed, a board and its entries; and ``token_hash``, the key a token is kept by."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from protocol.race import Phase, Race
from protocol.ranking import Run


class Identity(NamedTuple):
    """Who a resume token names: the player, their name, and their account's username
    (None for a guest)."""

    player: str
    name: str
    account: str | None = None
    played: bool = False  # a guest who has played (a race, a daily attempt, a pool)


@dataclass(frozen=True, slots=True)
class History:
    """A player's past: their latest races and runs (newest first), per game the
    head-to-head races played and won, and the days of their ranked daily runs (in order,
    the last 400); per game too, the races and runs they finished and their times' sum."""

    recent: list[dict[str, Any]]
    played: dict[str, int]
    won: dict[str, int]
    days: list[str]
    finished: dict[str, int] = field(default_factory=dict)
    time_ms: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Listed:
    """Where a race is listed: ``live`` (not over), ``open`` (anyone may join it),
    ``watchable`` (live and public); and its racers (each finds their live races)."""

    live: bool
    open: bool
    watchable: bool
    racers: tuple[str, ...]

    @classmethod
    def of(cls, race: Race) -> Listed:
        """Where the store lists ``race`` now."""
        live = race.phase is not Phase.DONE and bool(race.racers)
        watchable = live and race.live and race.settings.public
        return cls(live, race.joinable, watchable, tuple(race.racers))


@dataclass(frozen=True)
class Entry:
    """One run on a board and its rank (1 = best)."""

    rank: int
    run: Run


@dataclass(frozen=True)
class Board:
    """One consistent view of a leaderboard."""

    total: int  # number of entries on the board
    top: list[Entry]  # the best ``top`` entries
    around: list[Entry]  # ranks rank-``around`` .. rank+``around`` of ``player`` ([] if none)
    me: Entry | None  # the player's own entry, if any


@dataclass(frozen=True, slots=True)
class Relation:
    """Another account seen on an address, a device or a session (a token lineage) a player
    was seen on: who, ``how`` (``"address"``, ``"device"`` or ``"session"``) and when it
    was last seen there (epoch ms)."""

    other: str
    how: str
    at_ms: int

    def as_dict(self) -> dict[str, Any]:
        return {"account": self.other, "how": self.how, "at_ms": self.at_ms}


def token_hash(token: str) -> str:
    """What the store keeps of a resume token: its SHA-256, so a copy of the store does not
    let anyone act as a player (a token is 192 random bits: no salt or stretching needed)."""
    return hashlib.sha256(token.encode()).hexdigest()


def encode_json(value: Any) -> str:
    """The canonical JSON text both stores keep (sorted keys, no NaN)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
