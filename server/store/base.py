"""Storage behind one narrow interface: daily challenges, leaderboards, races and their logs.

``Store`` is the interface the server calls; ``MemoryStore`` (``server/store/memory.py``)
keeps everything in this process (the default, so ``solrace serve`` needs nothing else);
``RedisStore`` (``server/store/redis_store.py``; ``redis`` is imported only by the
``redis_*`` modules of this package) shares it between server processes. Both keep the
same promises, checked by one contract test suite (``tests/server/test_stores_*.py``);
``docs/storage.md`` describes them.

Boards are ordered by ``(run.score(), run.member())``, the sorted-set encoding of the total
order of ``protocol/ranking.py``: it sorts exactly as ``Run.sort_key`` within the ranges
that module documents, and both stores sort the same way beyond them.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from protocol.errors import SolraceError
from protocol.race import LogEntry
from protocol.ranking import Run
from server.handover.jobs import Job
from server.store.account import Account as Account  # kept here for its users
from server.store.arenas import Arenas
from server.store.moderation import Moderation
from server.store.records import Board as Board
from server.store.records import Entry as Entry
from server.store.records import History as History
from server.store.records import Identity as Identity
from server.store.records import Listed as Listed
from server.store.records import Relation as Relation
from server.store.records import encode_json as encode_json  # kept here for its users
from server.store.roles import Accounts, Bus, Days, Limits, Pairing, Races

DAYS_KEPT = 400  # a player's ranked daily days remembered for their streak
RATINGS_KEPT = 100  # a player's latest ratings in a game, for their profile's chart


# What a player is answered when the store could not do what they asked: one code, one
# sentence, whatever the request (an ``act`` among them)
STORE_UNAVAILABLE = "store_unavailable"
STORE_UNAVAILABLE_SENTENCE = (
    "the store is not answering, so nothing was done (a move was not played): send it again shortly"
)
# ... and when an ``act`` was decided on top of their actions the store lost
# (``server/races/read_back.py``)
HISTORY_LOST = "history_lost"
HISTORY_LOST_SENTENCE = (
    "the server's store lost earlier moves of yours, so this one was not played: your game "
    "goes on from the position the history_lost event shows"
)


class StoreError(SolraceError):
    """The store could not do what was asked; the message says why, for an operator (a
    player is told ``STORE_UNAVAILABLE_SENTENCE``)."""

    code = STORE_UNAVAILABLE


class StoreUnavailable(StoreError):
    """The storage backend cannot be reached (after the store's own retries)."""


def race_channel(race: str) -> str:
    """The channel on which nodes hear of a race's changes and new actions."""
    return f"race:{race}"


def node_channel(node: str) -> str:
    """The channel on which a node hears what concerns its own sessions."""
    return f"node:{node}"


class Fenced(StoreError):
    """A log entry written with a fence lower than the racer's: another node took the
    player over, and this node must let them go."""


class LogGap(StoreError):
    """A log entry of ``player``'s decided on top of entries their log no longer holds
    (the store came back with less than it acknowledged): refused, never stored above the
    hole; the race must be read back (``server/races/read_back.py``)."""

    def __init__(self, message: str, player: str) -> None:
        super().__init__(message)
        self.player = player


class Wiring(Protocol):
    """What a store's roles read of the store as it is wired into a server: its node, the
    listener of the messages subscribed to, and whether this node's own log messages
    reach it."""

    node: str
    listener: Callable[[str, dict[str, Any]], None] | None
    hear_own_logs: bool


class Store(ABC):
    """The roles of storage (``roles.py``, ``moderation.py``, ``arenas.py``), the writes the
    writer hands it (``write``) and the deployment's own secrets.

    Every method is atomic: concurrent callers (tasks, or server processes sharing Redis)
    never observe half of an update. Every write is idempotent, so a write repeated after
    a lost answer changes nothing more. Failures raise ``StoreError``; an unreachable
    backend raises ``StoreUnavailable`` within a few seconds.
    """

    node: str = ""  # the node this store serves (the messages it sends say so)
    shared = True  # other processes (nodes) may use it too; else races need no following
    listener: Callable[[str, dict[str, Any]], None] | None = None  # messages subscribed to
    # False: the "log" messages this node published are not handed to the listener (a node
    # knows its own racers' actions; a server sets it, so it does not parse them again)
    hear_own_logs: bool = True
    days: Days
    races: Races
    bus: Bus
    accounts: Accounts
    pairing: Pairing
    limits: Limits
    moderation: Moderation
    arenas: Arenas

    @abstractmethod
    async def daily_secret(self, proposed: str) -> str:
        """The deployment's secret for the daily deal rule: ``proposed`` unless a secret is
        stored already; return the stored one (the first writer wins, and it is kept)."""

    @abstractmethod
    async def signing_key(self, proposed: str) -> str:
        """The deployment's Ed25519 private key (hex) when no operator gives one:
        ``proposed`` unless one is stored already; the stored one (first writer wins)."""

    @abstractmethod
    async def publish_key(self, key_id: str, public_hex: str) -> dict[str, str]:
        """Add a public key to the published ones (kept for good, so logs signed before a
        rotation still check); every published key, id -> public key hex."""

    @abstractmethod
    async def write(self, jobs: Sequence[Job]) -> list[StoreError | None]:
        """Carry out ``jobs`` (see ``server/handover/jobs.py``) in order, in one round trip where
        the backend allows; for each, None when it was done, or the error that stopped it.
        Raises ``StoreUnavailable`` when none could be done."""

    def write_now(self, jobs: Sequence[Job]) -> list[StoreError | None] | None:
        """``write`` done before returning, by a store that needs no I/O for it (the
        memory store); None from a store that cannot (the writer then queues the jobs)."""
        return None

    @abstractmethod
    async def ping(self) -> bool:
        """Health check: True when the backend answers."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections; the store is not used afterwards."""


# shared encodings and checks


def any_shared(address_sets: Sequence[set[str]]) -> bool:
    """Whether two of the sets have an address in common (``Store.shared_address``)."""
    seen: set[str] = set()
    for addresses in address_sets:
        if seen & addresses:
            return True
        seen |= addresses
    return False


def relations_of(
    player: str, mine: dict[str, int], seen_by: dict[str, dict[str, int]], since_ms: int
) -> list[Relation]:
    """``Accounts.related`` from what a store read: ``mine``, the player's sightings
    (``"how value"`` -> when) and ``seen_by``, each such sighting's accounts (-> when)."""
    latest: dict[tuple[str, str], int] = {}
    for sighting, at_ms in mine.items():
        if at_ms < since_ms:
            continue
        how = sighting.split(" ", 1)[0]
        for other, other_ms in seen_by.get(sighting, {}).items():
            if other != player and other_ms >= since_ms:
                latest[other, how] = max(other_ms, latest.get((other, how), other_ms))
    return [Relation(other, how, at_ms) for (other, how), at_ms in sorted(latest.items())]


def run_json(run: Run) -> str:
    return encode_json(run.as_dict())


def run_from_json(text: str) -> Run:
    return Run.from_dict(json.loads(text))


def board_key(run: Run) -> tuple[float, str]:
    """Where a run sits on a board: the sorted-set score, then the member's byte order."""
    return (run.score(), run.member())


def log_batches(entries: list[tuple[str, LogEntry]]) -> dict[str, list[LogEntry]]:
    """Each race's entries, in the given order."""
    batches: dict[str, list[LogEntry]] = {}
    for race, entry in entries:
        batches.setdefault(race, []).append(entry)
    return batches


def check_window(top: int, around: int) -> None:
    if top < 0 or around < 0:
        raise ValueError(f"top and around must not be negative (got {top} and {around})")


def check_game(game: str, run: Run) -> None:
    if run.game != game:
        raise ValueError(f"a {run.game} run cannot go on the {game} board")
