"""The store's moderation role (``store.moderation``): fair-play reviews and what they
hold (``server/races/fairplay.py``), a moderator's changes to boards, ratings and accounts, and
the audit log of every moderator's action. Reviews are written by the writer
(``KeepReview`` jobs); everything else here is called by the admin desk
(``server/desks/admin.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from protocol.ranking import Run
from protocol.ratings import Rating
from server.store.account import Account


class Moderation(ABC):
    @abstractmethod
    async def review(self, race: str) -> dict[str, Any] | None:
        """The fair-play review of ``race``, if it has one."""

    @abstractmethod
    async def flagged(self, limit: int) -> list[dict[str, Any]]:
        """Reviews still waiting for a moderator (status ``flagged``), oldest first."""

    @abstractmethod
    async def waiting(self) -> int:
        """How many reviews wait for a moderator (what ``flagged`` lists, counted in one
        step however many there are)."""

    @abstractmethod
    async def settle(self, race: str, expected: str, review: dict[str, Any], keep_s: int) -> bool:
        """Replace ``race``'s review by ``review`` (kept ``keep_s`` s; 0: for good) only if
        its status is still ``expected`` (two moderators never decide one review two ways);
        it leaves the flagged list, or joins it when ``review``'s status is ``flagged``;
        refused, nothing changes."""

    @abstractmethod
    async def awaiting_field(self, game: str, day: str) -> list[str]:
        """The races of ``day``'s ranked daily runs of ``game`` placed on its board before
        the day's field was big enough to judge them by (``RecordDaily.awaits_field``)."""

    @abstractmethod
    async def field_judged(self, game: str, day: str, race: str) -> None:
        """``race`` is no longer listed by ``awaiting_field``."""

    @abstractmethod
    async def drop_daily_run(self, game: str, day: str, run: Run) -> None:
        """Take ``run`` (a ranked daily run of ``day``) off the day's board and, where it is
        the player's entry there, off the all-time board."""

    @abstractmethod
    async def take_back_ratings(self, game: str, changes: dict[str, tuple[Rating, Rating]]) -> None:
        """Undo a voided race's rating changes (``(before, after)`` per player) on each
        player's current rating: the change is subtracted, the race no longer counted."""

    @abstractmethod
    async def close_account(self, username: str) -> Account | None:
        """Close the account (it can no longer sign in; its tokens are revoked); None when
        there is no such account."""

    @abstractmethod
    async def rename_account(self, username: str, new_username: str) -> Account | None:
        """The account under its new username (its tokens revoked: it signs in again),
        its name changed on the boards that hold its runs; None when ``new_username`` (or
        a name that reads like it) is taken. The account must exist."""

    @abstractmethod
    async def audit(self, entry: dict[str, Any]) -> None:
        """Append a moderator's action to the audit log (kept for good)."""

    @abstractmethod
    async def audit_log(self, limit: int) -> list[dict[str, Any]]:
        """The latest ``limit`` audit entries, newest first."""


def renamed(run: Run, player: str, name: str) -> Run:
    """``run`` showing ``name`` when it is ``player``'s."""
    if run.player != player:
        return run
    return Run.from_dict({**run.as_dict(), "name": name})


def taken_back(current: Rating, before: Rating, after: Rating) -> Rating:
    """``current`` without one race's change from ``before`` to ``after`` (its other
    fields, such as the day's start and recent opponents, as they are)."""
    return replace(
        current,
        rating=current.rating - (after.rating - before.rating),
        games=max(0, current.games - (after.games - before.games)),
    )


def ordered(reviews: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(reviews, key=lambda review: (review["at_ms"], review["race"]))
