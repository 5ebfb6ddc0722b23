"""Wins beyond an account's own record (docs/fairness.md, "Wins beyond the account's
record"): how often an account finishes the deals nobody could know ahead (the races the
server dealt: quick races and arena heats), against how often it finishes its ranked daily
runs. Someone who learned the day's deal (a throw-away account's attempt, a friend) finishes
the daily every time, however rarely they finish a deal they meet blind; an honest player
finishes both about as often. Pure.

The account's share of dealt races finished, counted as (finished + 1) / (races + 2) (a
player with a short record is not taken for one who never finishes), gives the chance of
finishing at least as many of its ranked daily runs as it did, were those runs played as
blind as its races (the binomial tail). The rule flags a finished run when that chance is
below ``RECORD_CHANCE``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import comb
from typing import Any

# The rule (docs/fairness.md). A finished ranked daily run is flagged ``beyond_record`` when:
RECORD_RACES = 10  # its account has finished or given up at least this many dealt races,
RECORD_RUNS = 2  # ... it has at least this many ranked daily runs, this one included,
RECORD_CHANCE = 0.005  # ... and finishing as many of them is less likely than this


@dataclass(frozen=True, slots=True)
class Record:
    """An account's record in one game: dealt races and how many it finished, ranked daily
    runs (this one included) and how many it finished."""

    races: int = 0
    races_finished: int = 0
    runs: int = 0
    runs_finished: int = 0

    def with_run(self, finished: bool) -> Record:
        """This record with one more ranked daily run, finished or not."""
        return replace(self, runs=self.runs + 1, runs_finished=self.runs_finished + finished)

    def share(self) -> float:
        """How often it finishes a deal it meets blind: (finished + 1) / (races + 2)."""
        return (self.races_finished + 1) / (self.races + 2)

    def chance(self) -> float:
        """The chance of finishing at least ``runs_finished`` of ``runs`` for a player who
        finishes each with ``share()``."""
        p, n = self.share(), self.runs
        return sum(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(self.runs_finished, n + 1))


def beyond_record(finished: bool, record: Record) -> bool:
    """A finished run whose account's record holds ``RECORD_RACES`` dealt races and
    ``RECORD_RUNS`` ranked daily runs, and whose daily runs finished are less likely than
    ``RECORD_CHANCE`` for a player who finishes as often as it does its races."""
    return (
        finished
        and record.races >= RECORD_RACES
        and record.runs >= RECORD_RUNS
        and record.chance() < RECORD_CHANCE
    )


def record_figures(record: Record) -> dict[str, Any]:
    """The record's figures as ``Signals`` keeps them."""
    return {
        "record_races": record.races,
        "record_races_finished": record.races_finished,
        "record_runs": record.runs,
        "record_runs_finished": record.runs_finished,
        "record_chance": round(record.chance(), 6) if record.runs else None,
    }
