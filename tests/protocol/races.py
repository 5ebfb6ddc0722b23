"""Small races for the race tests: one racer (``ann``) joined, started by the given clock,
and a won game of Mount Sunflower deal 18 to play in them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from protocol.games import rules_for
from protocol.race import Now, Race, RaceSettings

WIN = Path(__file__).resolve().parents[1] / "data" / "wins" / "mount_sunflower-18.txt"


def make_race(game: str = "mount_sunflower", deal: int = 18, **changes: Any) -> Race:
    rules = rules_for(game, changes.pop("options", None))
    settings = RaceSettings(game=game, options=rules.options, deal=deal, **changes)
    race = Race("r1", settings, rules, host="ann")
    race.join("ann", "Ann")
    return race


def started(race: Race, at: int = 1000) -> Race:
    """Start ``race`` at ``at`` (its countdown, if any, ends then)."""
    at -= race.settings.countdown_ms
    race.schedule_start(None, Now(at, at))
    race.begin()
    return race
