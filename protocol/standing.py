"""Good standing, pure: whether an account may make ranked daily attempts and play rated
quick races, and what it still lacks, in a sentence a player can act on.

An account is in good standing when it is at least ``days`` whole days old and has
finished (solved the deal of) at least ``games`` games, in any mode; a rule set to 0 is
off. A guest is never in good standing (``guest``). The answer is ``{"code", "reason"}``:
``code`` None and ``reason`` None in good standing, else one of ``STANDING_CODES`` (the
account's age is named first when both fall short) and a sentence naming what is asked
and what the account has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from protocol.daily import DAY_MS

STANDING_CODES: Final = ("guest", "account_too_new", "too_few_games")
GOOD: Final[dict[str, Any]] = {"code": None, "reason": None}


@dataclass(frozen=True, slots=True)
class StandingRule:
    """What ranked play asks of an account (0 turns a part off)."""

    days: int = 3
    games: int = 10

    def asks(self) -> str:
        """What the rule asks, as the end of a sentence."""
        parts = []
        if self.days:
            parts.append(f"your account is {_count(self.days, 'day')} old")
        if self.games:
            who = "has" if parts else "your account has"
            parts.append(f"{who} finished {_count(self.games, 'game')}")
        return " and ".join(parts)


def standing(
    rule: StandingRule, created_ms: int | None, finished_games: int, now_ms: int
) -> dict[str, Any]:
    """The standing of an account made at ``created_ms`` (None: a guest; 0: made before
    the store kept the moment, as old as can be) that has finished ``finished_games``."""
    if created_ms is None:
        return {"code": "guest", "reason": "Ranked play needs an account: register first."}
    days_old = max(0, now_ms - created_ms) // DAY_MS
    too_new = days_old < rule.days
    too_few = finished_games < rule.games
    if not too_new and not too_few:
        return dict(GOOD)
    reason = (
        f"Ranked play opens when {rule.asks()}; yours: {_count(days_old, 'day')}, "
        f"{_count(finished_games, 'game')}."
    )
    return {"code": "account_too_new" if too_new else "too_few_games", "reason": reason}


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
