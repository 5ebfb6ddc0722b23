"""Runs and their total order: the one ranking rule of race results and leaderboards.

Finishers come first, by server-measured time, then actions, then who finished first
(``at_ms``, the server's wall clock), then player id. Did-not-finish runs follow, by
progress (most cards on foundations first), then the time taken to reach that progress,
then actions, then ``at_ms``, then player id. No two runs of different players tie.

For sorted-set stores the order is split into a ``score`` (a float that holds an exact
integer below 2**53) and a ``member`` string whose byte order breaks score ties; together
they sort exactly as ``sort_key``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

TIME_BITS = 38  # finisher times up to 2**38 ms (about 8.7 years) keep their order
ACTION_BITS = 14  # up to 16,383 actions keep their order; more tie and fall to ``at_ms``
DNF_TIME_BITS = 30  # did-not-finish times up to about 12 days
DNF_FLAG = 2**52
MAX_PROGRESS = 127


@dataclass(frozen=True, slots=True)
class Run:
    """One whole run of one player on one deal: what a leaderboard record holds."""

    player: str  # player id
    name: str  # display name at the time
    race: str  # race or daily attempt id; its action log replays the run
    game: str
    deal: int
    finished: bool  # won; otherwise did not finish
    time_ms: int  # finisher: start signal to winning action; DNF: to its last progress
    actions: int
    progress: int  # cards on foundations at the end
    at_ms: int  # server wall clock (epoch ms) when it finished or last made progress

    def sort_key(self) -> tuple[int, int, int, int, int, str]:
        if self.finished:
            return (0, 0, self.time_ms, self.actions, self.at_ms, self.player)
        return (1, -self.progress, self.time_ms, self.actions, self.at_ms, self.player)

    def better_than(self, other: Run) -> bool:
        """Strictly better on what was played (finished, time, actions, progress); an equal
        run is not better, so an equal later result never displaces an earlier one."""
        return self.sort_key()[:4] < other.sort_key()[:4]

    def score(self) -> float:
        actions = min(self.actions, 2**ACTION_BITS - 1)
        if self.finished:
            time_ms = min(self.time_ms, 2**TIME_BITS - 1)
            return float((time_ms << ACTION_BITS) | actions)
        time_ms = min(self.time_ms, 2**DNF_TIME_BITS - 1)
        behind = MAX_PROGRESS - min(self.progress, MAX_PROGRESS)
        return float(
            DNF_FLAG
            | (behind << (DNF_TIME_BITS + ACTION_BITS))
            | (time_ms << ACTION_BITS)
            | actions
        )

    def member(self) -> str:
        """Breaks score ties in byte order: earlier ``at_ms`` first, then player id."""
        return f"{self.at_ms:015d}:{self.player}"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["deal"] = str(self.deal)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Run:
        return cls(**{**data, "deal": int(data["deal"])})


def ranked(runs: list[Run]) -> list[Run]:
    """Runs in the total order, best first."""
    return sorted(runs, key=Run.sort_key)
