"""An arena's entry conditions, pure: whether a player may enter, and if not, a stable code
and a sentence they can act on. docs/arenas.md, "Calendar and entry", is the rule in
sentences; in short:

- bots never enter; a player fair play removed from the arena never comes back;
- the account must be in good standing as fair play defines it (``protocol/standing.py``:
  its own code and sentence are the answer when it is not);
- an arena may ask for a rating band in its game (either end open) and a minimum of rated
  games in its game (as the rating counts them: each opponent of a rated race is one).

The server asks ``may_enter`` twice: when the player joins, and again for every
participant when the arena starts (a rating that left the band in between, or an account
that lost its standing, is refused then).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from protocol.errors import SolraceError
from protocol.standing import STANDING_CODES

MAX_RATING: Final = 4000  # a band's ends lie within 0 .. MAX_RATING
MAX_MIN_GAMES: Final = 1000
ENTRY_CODES: Final = (
    "bot_refused",
    "removed_from_arena",
    *STANDING_CODES,
    "rating_below_band",
    "rating_above_band",
    "too_few_rated_games",
)


class ArenaEntryRefused(SolraceError):
    """A player the arena's conditions keep out (``code``: one of ``ENTRY_CODES``)."""

    code = "arena_entry_refused"


class BadArena(SolraceError):
    """An arena record or its entry conditions refused: out of limits or making no sense."""

    code = "bad_arena"


@dataclass(frozen=True, slots=True)
class EntryConditions:
    """What an arena asks of its players, beyond good standing (always asked)."""

    rating_min: int | None = None
    rating_max: int | None = None
    min_rated_games: int = 0

    def __post_init__(self) -> None:
        for end in (self.rating_min, self.rating_max):
            if end is not None and (isinstance(end, bool) or not 0 <= end <= MAX_RATING):
                raise BadArena(f"a rating band's ends lie between 0 and {MAX_RATING}")
        low, high = self.rating_min, self.rating_max
        if low is not None and high is not None and low >= high:
            raise BadArena(f"the rating band {low}-{high} is empty: its low end must be lower")
        if not 0 <= self.min_rated_games <= MAX_MIN_GAMES:
            raise BadArena(f"the minimum of rated games lies between 0 and {MAX_MIN_GAMES}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "rating_min": self.rating_min,
            "rating_max": self.rating_max,
            "min_rated_games": self.min_rated_games,
        }


@dataclass(frozen=True, slots=True)
class EntryFacts:
    """What the server knows of a player at the moment it asks: bot or person, removed from
    this arena or not, their standing (``protocol.standing.standing``'s answer), their rating
    and rated games in the arena's game (a player never rated: 1500 and 0)."""

    bot: bool
    removed: bool
    standing: dict[str, Any]
    rating: float
    rated_games: int


def may_enter(conditions: EntryConditions, facts: EntryFacts) -> ArenaEntryRefused | None:
    """None when ``facts`` meet ``conditions``; else the refusal (the first condition
    unmet, in the order of ``ENTRY_CODES``), for the server to send or raise."""
    if facts.bot:
        return ArenaEntryRefused("Arenas are for people: a bot never enters one.", "bot_refused")
    if facts.removed:
        return ArenaEntryRefused(
            "Fair play removed you from this arena: you cannot enter it again.",
            "removed_from_arena",
        )
    if facts.standing.get("code"):
        return ArenaEntryRefused(str(facts.standing["reason"]), str(facts.standing["code"]))
    rating = round(facts.rating)
    if conditions.rating_min is not None and rating < conditions.rating_min:
        return ArenaEntryRefused(
            f"This arena is for ratings from {conditions.rating_min}; yours is {rating}.",
            "rating_below_band",
        )
    if conditions.rating_max is not None and rating > conditions.rating_max:
        return ArenaEntryRefused(
            f"This arena is for ratings up to {conditions.rating_max}; yours is {rating}.",
            "rating_above_band",
        )
    if facts.rated_games < conditions.min_rated_games:
        return ArenaEntryRefused(
            f"This arena asks for {conditions.min_rated_games} rated games in its game; "
            f"you have {facts.rated_games}.",
            "too_few_rated_games",
        )
    return None
