"""Fair-play signals of one run, and the documented rule that flags a run for a person to
look at (docs/fairness.md, "Fair-play signals").

A ranked daily run and each racer of a rated race keep their ``Signals``: the time
between their actions (the think-time distribution), their undos, how far they followed
the solver's line for the deal (when the server's solver found one), and their time
against their own history of the game. ``reasons`` applies the rule; a run with a reason
is held off the public boards (and a race off the ratings) until a moderator clears or
voids it. Pure: the same log, line and history give the same signals on every node.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

# The rule (docs/fairness.md). A run is flagged when any of these holds:
LINE_SHARE = 0.9  # it played the solver's line move for move for at least this share of it
MIN_LINE = 10  # ... of a line at least this long (a short line is found by anyone)
PACE_ACTIONS = 20  # a pace is judged over at least this many actions:
FAST_MEDIAN_MS = 200  # a median think time below this (no person reads a table that fast)
STEADY_CV = 0.15  # or think times steadier than this (spread / mean: people pause, then rush)
HISTORY_RUNS = 5  # its time is judged against at least this many finished runs of the game:
HISTORY_FACTOR = 4  # flagged when it is this many times faster than their median

SOLVER_LINE, MACHINE_PACE, BEYOND_HISTORY = "solver_line", "machine_pace", "beyond_history"
REASONS = {
    SOLVER_LINE: "played the solver's line move for move",
    MACHINE_PACE: "a pace no person keeps (think times too fast or too even)",
    BEYOND_HISTORY: "far faster than the account's own history of the game",
}


@dataclass(frozen=True, slots=True)
class Signals:
    """What one run shows of how it was played (times in ms, from the server's clock)."""

    actions: int  # actions accepted (undos included)
    undos: int
    think_median_ms: int | None  # between one action and the next (the first: from the start)
    think_cv: float | None  # the think times' standard deviation over their mean
    line_length: int | None  # the solver's line for the deal; None: the solver has none
    line_followed: int  # the run's first actions equal to the line's, move for move
    finished: bool
    time_ms: int
    history_median_ms: int | None  # the account's median time of its earlier finished runs
    history_runs: int  # how many there were

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Signals:
        return cls(**data)


def signals_of(
    actions: Sequence[tuple[str, int]],
    finished: bool,
    time_ms: int,
    line: Sequence[str] | None = None,
    history_ms: Sequence[int] = (),
) -> Signals:
    """The signals of a run whose accepted ``actions`` are ``(action, t_ms)`` in order;
    ``line``: the solver's winning line for the deal, if it has one; ``history_ms``: the
    times of the account's earlier finished runs of the game."""
    times = [t_ms for _, t_ms in actions]
    thinks = [max(0, later - earlier) for earlier, later in zip([0, *times], times, strict=False)]
    median = int(statistics.median(thinks)) if thinks else None
    mean = statistics.fmean(thinks) if thinks else 0.0
    spread = statistics.pstdev(thinks) / mean if len(thinks) > 1 and mean > 0 else None
    followed = 0
    if line:
        for (action, _), step in zip(actions, line, strict=False):
            if action != step:
                break
            followed += 1
    return Signals(
        actions=len(actions),
        undos=sum(1 for action, _ in actions if action == "undo"),
        think_median_ms=median,
        think_cv=round(spread, 3) if spread is not None else None,
        line_length=len(line) if line else None,
        line_followed=followed,
        finished=finished,
        time_ms=time_ms,
        history_median_ms=int(statistics.median(history_ms)) if history_ms else None,
        history_runs=len(history_ms),
    )


def reasons(signals: Signals) -> list[str]:
    """Why the run is flagged by the rule above (empty: it is not)."""
    found = []
    line = signals.line_length
    if line is not None and line >= MIN_LINE and signals.line_followed >= LINE_SHARE * line:
        found.append(SOLVER_LINE)
    if signals.actions >= PACE_ACTIONS and (
        (signals.think_median_ms is not None and signals.think_median_ms < FAST_MEDIAN_MS)
        or (signals.think_cv is not None and signals.think_cv < STEADY_CV)
    ):
        found.append(MACHINE_PACE)
    past = signals.history_median_ms
    if (
        signals.finished
        and past is not None
        and signals.history_runs >= HISTORY_RUNS
        and signals.time_ms * HISTORY_FACTOR < past
    ):
        found.append(BEYOND_HISTORY)
    return found
