"""The store's arenas role (``store.arenas``): an arena's record and status, its
participants, the heats its pairer started, its log of entries (the only thing standings
are made of: ``protocol.arena.standings(log)``), the pairing lease, and the players'
arena history for their profiles. ``docs/arenas.md``, "Where arenas are kept", says it in
sentences; ``tests/server/test_arena_store.py`` holds both stores to them.

Every method is atomic and every write idempotent, as ``Store`` promises: a write repeated
(a retry after a lost answer, or two nodes doing the same) changes nothing more. A write
refused raises an ``ArenaRefused`` (``arena_records.py``) and changes nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from protocol.arena import Entry
from server.store.arena_records import (
    MAX_LEASE_MS,
    ArenaPlace,
    ArenaRecord,
    BadArena,
    HeatStart,
    Participant,
)


class Arenas(ABC):
    @abstractmethod
    async def create_arena(self, record: ArenaRecord) -> bool:
        """Store ``record`` (status ``scheduled``) unless an arena has its id: True when
        it is stored now or the same arena was stored before (its status aside); False,
        changing nothing, when another arena has the id."""

    @abstractmethod
    async def arena(self, arena: str) -> ArenaRecord | None:
        """The arena's record with its status now, or None."""

    @abstractmethod
    async def made_arenas(self, ending_after_ms: int) -> list[ArenaRecord]:
        """The arenas an operator made (``ArenaRecord.made``), still kept, that end after
        ``ending_after_ms``, by start then id: how every node lists and runs them."""

    @abstractmethod
    async def set_status(self, arena: str, status: str) -> bool:
        """Move the arena's status on (``NEXT_STATUS``): True when it is ``status`` now
        (moved now, or before); False, changing nothing, when it cannot move there."""

    @abstractmethod
    async def join(self, arena: str, player: str, at_ms: int, risk: bool = False) -> bool:
        """Make ``player`` a participant, active, joined at ``at_ms``, in risk mode if
        ``risk``: True when they joined now; False, changing nothing, when they had joined
        before (in any status). ``ArenaFull`` past ``MAX_PARTICIPANTS``."""

    @abstractmethod
    async def change(self, arena: str, player: str, change: str, at_ms: int) -> bool:
        """``pause``, ``resume`` or ``withdraw`` the participant at ``at_ms``, or turn their
        risk mode on or off (``risk_on``, ``risk_off``): True when it
        changed them now, False when it changes nothing (``arena_records.changed``). A
        pause or a withdrawal made now appends a ``Withdrawn`` entry to the log in the
        same step (it ends their streak)."""

    @abstractmethod
    async def participants(self, arena: str) -> list[Participant]:
        """Every player who joined the arena, in player order."""

    @abstractmethod
    async def take_lease(self, arena: str, node: str, ttl_ms: int) -> int | None:
        """Hold the arena's pairing lease for ``ttl_ms``: its token when ``node`` holds it
        now (a new token, above every one before, when it took it from nobody; its own,
        renewed, when it held it); None when another node holds it."""

    @abstractmethod
    async def renew_lease(self, arena: str, node: str, token: int, ttl_ms: int) -> bool:
        """Hold the lease ``ttl_ms`` more if ``node`` still holds it with ``token``; False
        when it lost it (it lapsed and was taken, or was released): stop pairing."""

    @abstractmethod
    async def release_lease(self, arena: str, node: str, token: int) -> None:
        """Give the lease up if ``node`` holds it with ``token`` (another may take it)."""

    @abstractmethod
    async def start_heat(self, arena: str, heat: HeatStart, token: int) -> bool:
        """Record a heat the pairer started under the lease ``token``: True when it is
        recorded now or the same heat was before; False, changing nothing, when another
        heat has its id. ``StaleLease`` when a newer lease was taken since ``token`` (a
        paused-then-resumed old holder never pairs twice); ``NotInArena`` when a racer
        never joined the arena."""

    @abstractmethod
    async def take_back_heat(self, arena: str, heat: str, token: int) -> bool:
        """Take back a heat the pairer started under the lease ``token`` whose race could
        not be opened, so its racers are free for the next wave: True when taken back now;
        False, changing nothing, when there is no such heat or its result is in the log.
        ``StaleLease`` when a newer lease was taken since ``token``."""

    @abstractmethod
    async def heats(self, arena: str) -> list[HeatStart]:
        """Every heat started in the arena, by start time, then heat id."""

    @abstractmethod
    async def heats_from(self, arena: str, start: int) -> list[HeatStart | None]:
        """The heats recorded in the arena from the ``start``-th on (0: the first), in the
        order they were recorded, each None if taken back since: how a reader that keeps
        them reads only the new ones (its next ``start``: this one plus as many as
        answered)."""

    @abstractmethod
    async def append(self, arena: str, entry: Entry) -> bool:
        """Append a heat's result, a clearing or a removal to the arena's log once: True
        when appended now; False, changing nothing, when the log holds that entry already
        (``entry_identity``: the same heat's result, however it reads). ``BadArenaEntry``
        for a result of a heat not started with its racers, a clearing of a heat not
        held, a ``Withdrawn`` (made by ``change``)."""

    @abstractmethod
    async def log(self, arena: str, start: int = 0) -> list[Entry]:
        """The arena's log in order, from its ``start``-th entry (0: all of it)."""

    @abstractmethod
    async def record_place(self, player: str, place: ArenaPlace, keep_s: int) -> bool:
        """Keep ``player``'s line of an ended arena on their profile, one per arena: True
        when kept now (a line of that arena that differs, recomputed after a clearing, is
        replaced), False when that very line was kept before (nothing changes). Kept
        ``keep_s`` after their latest, and at most ``PLACES_KEPT`` of them (the oldest go
        first)."""

    @abstractmethod
    async def places(self, player: str) -> list[ArenaPlace]:
        """``player``'s arena lines kept, newest first."""

    @abstractmethod
    async def best_place(self, player: str) -> int | None:
        """The best final place of ``player``'s arena lines as they stand now, those no
        longer kept included (the best of those is kept apart), or None."""


PLACES_KEPT = 100  # arena lines kept on a profile


def checked_ttl(ttl_ms: int) -> int:
    """A lease's time: 1 ms to ``MAX_LEASE_MS``."""
    if not isinstance(ttl_ms, int) or not 0 < ttl_ms <= MAX_LEASE_MS:
        raise BadArena(f"a lease lasts 1 ms to {MAX_LEASE_MS} ms")
    return ttl_ms


def checked_start(start: int) -> int:
    """Where a read of the log or the heats starts: an index, 0 or more."""
    if not isinstance(start, int) or start < 0:
        raise BadArena("a log or the heats are read from an entry's index, 0 or more")
    return start


def checked_keep(keep_s: int) -> int:
    """A profile line's keep time: 1 s or more."""
    if not isinstance(keep_s, int) or keep_s <= 0:
        raise BadArena("a keep time is a whole number of seconds, 1 or more")
    return keep_s


def newest_first(places: Sequence[ArenaPlace]) -> list[ArenaPlace]:
    return sorted(places, key=lambda place: (-place.ended_ms, place.arena))
