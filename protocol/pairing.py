"""Quick pairing, pure: players wait in a pool per game and are paired by rating, the
window of acceptable ratings widening the longer they wait (lichess's pools are the model).

A player waiting ``w`` ms accepts an opponent whose rating is within ``Window.half_width(w)``
of theirs: ``START`` (100) at first, ``WIDEN_PER_S`` (50) more for each second waited, and
any rating at all from ``UNLIMITED_AFTER_MS`` (20 s). Two players are paired only when each
accepts the other. ``matches`` makes the pairs of one pool at one time: the longest waiting
player first (then the lower id) takes the closest acceptable rating (ties: the longer
waiting, then the lower id), and so on; nobody who could be paired is left waiting, and
the result depends only on the entries and the time, not on their order.

``Pools`` is the in-memory pool of one server (a small explicit state machine: each player
is ``idle`` or ``waiting`` in exactly one game's pool). A store shared by several nodes
keeps the entries instead and runs ``matches`` on them, one node at a time.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from protocol.errors import SolraceError

START = 100.0  # rating points either side, on joining
WIDEN_PER_S = 50.0  # added for each second waited
UNLIMITED_AFTER_MS = 20_000  # from then on, any rating


class PairingError(SolraceError):
    """A request the pools refuse."""

    code = "pairing_error"


@dataclass(frozen=True, slots=True)
class Window:
    """How far from their own rating a waiting player accepts an opponent."""

    start: float = START
    widen_per_s: float = WIDEN_PER_S
    unlimited_after_ms: int = UNLIMITED_AFTER_MS

    def half_width(self, waited_ms: int) -> float:
        """The greatest rating gap accepted after ``waited_ms`` (``inf``: any)."""
        if waited_ms >= self.unlimited_after_ms:
            return math.inf
        return self.start + self.widen_per_s * max(0, waited_ms) / 1000


WINDOW = Window()


class Waiting(NamedTuple):
    """One player in a pool: their rating for the pool's game and when they joined; whether
    they are a bot, and whether (a person) they asked to be paired with a bot."""

    player: str
    rating: float
    joined_ms: int
    bot: bool = False
    wants_bots: bool = False


def accepts(one: Waiting, other: Waiting, now_ms: int, window: Window = WINDOW) -> bool:
    """Whether ``one`` and ``other`` may be paired at ``now_ms``: a bot meets a person only
    when that person asked for bots, and their gap is within both players' windows."""
    if one.bot != other.bot and not (one.wants_bots or other.wants_bots):
        return False
    gap = abs(one.rating - other.rating)
    return gap <= window.half_width(now_ms - one.joined_ms) and gap <= window.half_width(
        now_ms - other.joined_ms
    )


def matches(
    waiting: Iterable[Waiting], now_ms: int, window: Window = WINDOW
) -> list[tuple[Waiting, Waiting]]:
    """The pairs to make now in one pool, each the longer waiting player first, in the order
    they were made. Refuses a player entered twice."""
    entries = sorted(waiting, key=lambda e: (e.joined_ms, e.player))
    if len({e.player for e in entries}) != len(entries):
        raise ValueError("a player is waiting twice in one pool")
    # the unpaired, by rating: each scan walks outwards from a player's own rating
    by_rating = sorted(entries, key=_rating_key)
    keys = [_rating_key(e) for e in by_rating]
    pairs = []
    for entry in entries:
        at = bisect.bisect_left(keys, _rating_key(entry))
        if at == len(keys) or keys[at] != _rating_key(entry):
            continue  # already paired
        del keys[at], by_rating[at]
        partner = _closest_accepted(entry, by_rating, at, now_ms, window)
        if partner is not None:
            index = bisect.bisect_left(keys, _rating_key(by_rating[partner]))
            pairs.append((entry, by_rating[partner]))
            del keys[index], by_rating[index]
        else:
            keys.insert(at, _rating_key(entry))
            by_rating.insert(at, entry)
    return pairs


def _rating_key(entry: Waiting) -> tuple[float, int, str]:
    return (entry.rating, entry.joined_ms, entry.player)


def _closest_accepted(
    entry: Waiting, by_rating: list[Waiting], at: int, now_ms: int, window: Window
) -> int | None:
    """The index in ``by_rating`` (``entry`` taken out at ``at``) of the unpaired player
    closest in rating who accepts and is accepted by ``entry``; ties go to the longer
    waiting, then the lower id."""
    reach = window.half_width(now_ms - entry.joined_ms)
    below, above = at - 1, at
    best: tuple[float, int, str, int] | None = None  # gap, joined_ms, player, index
    while True:
        gap_below = entry.rating - by_rating[below].rating if below >= 0 else math.inf
        gap_above = by_rating[above].rating - entry.rating if above < len(by_rating) else math.inf
        gap = min(gap_below, gap_above)
        if gap == math.inf or gap > reach or (best is not None and gap > best[0]):
            return None if best is None else best[3]
        if gap_below <= gap_above:
            index, below = below, below - 1
        else:
            index, above = above, above + 1
        candidate = by_rating[index]
        if accepts(entry, candidate, now_ms, window):
            found = (gap, candidate.joined_ms, candidate.player, index)
            best = found if best is None else min(best, found)


class State(StrEnum):
    IDLE = "idle"  # in no pool
    WAITING = "waiting"  # in one game's pool


# A player's transitions (h11 style): (state, event) -> the next state. ``join`` when
# waiting (in another pool) is refused; ``leave`` when idle is a no-op, as a disconnect may
# come at any time.
TRANSITIONS: dict[tuple[State, str], State] = {
    (State.IDLE, "join"): State.WAITING,
    (State.WAITING, "leave"): State.IDLE,
    (State.WAITING, "paired"): State.IDLE,
}


class Pair(NamedTuple):
    """Two players paired for a race of ``game``; ``first`` waited longer."""

    game: str
    first: Waiting
    second: Waiting


class Pools:
    """Every game's pool on one server. Mutable; methods take the time."""

    def __init__(self, window: Window = WINDOW) -> None:
        self.window = window
        self._pools: dict[str, dict[str, Waiting]] = {}  # game -> player -> entry
        self._game_of: dict[str, str] = {}  # waiting player -> game

    def state(self, player: str) -> State:
        return State.WAITING if player in self._game_of else State.IDLE

    def game_of(self, player: str) -> str | None:
        """The game whose pool ``player`` waits in, if any."""
        return self._game_of.get(player)

    def waiting(self, game: str) -> list[Waiting]:
        """The players waiting for ``game``, longest waiting first."""
        return sorted(self._pools.get(game, {}).values(), key=lambda e: (e.joined_ms, e.player))

    def __len__(self) -> int:
        return len(self._game_of)

    def join(self, player: str, game: str, rating: float, now_ms: int) -> Waiting:
        """``player`` waits for a race of ``game`` from ``now_ms``. Joining the pool one is
        already in again keeps one's place; joining another is refused (leave it first)."""
        if not math.isfinite(rating):
            raise ValueError(f"a rating is a finite number, not {rating}")  # the server's own
        current = self._game_of.get(player)
        if current == game:
            return self._pools[game][player]
        if not self._allowed(player, "join"):
            raise PairingError(
                f"already waiting for a race of {current}: leave that pool first",
                "already_waiting",
            )
        entry = Waiting(player, rating, now_ms)
        self._pools.setdefault(game, {})[player] = entry
        self._game_of[player] = game
        return entry

    def leave(self, player: str) -> bool:
        """``player`` stops waiting (asked, or disconnected); whether they were waiting."""
        if not self._allowed(player, "leave"):
            return False
        self._remove(player)
        return True

    def pair(self, now_ms: int) -> list[Pair]:
        """The pairs to make now (``matches`` in every pool, games in name order); the
        paired players leave their pools."""
        made = []
        for game in sorted(self._pools):
            for first, second in matches(self._pools[game].values(), now_ms, self.window):
                for entry in (first, second):
                    assert self._allowed(entry.player, "paired")
                    self._remove(entry.player)
                made.append(Pair(game, first, second))
        return made

    def _allowed(self, player: str, event: str) -> bool:
        """Whether ``event`` is a transition from ``player``'s state (``TRANSITIONS``)."""
        return (self.state(player), event) in TRANSITIONS

    def _remove(self, player: str) -> None:
        game = self._game_of.pop(player)
        del self._pools[game][player]
        if not self._pools[game]:
            del self._pools[game]
