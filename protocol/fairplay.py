"""Fair-play signals of one run, and the documented rule that flags a run for a person to
look at (docs/fairness.md, "Fair-play signals").

A ranked daily run and each racer of a rated race keep their ``Signals``: the time
between their actions (the think-time distribution: median, spread, and its fastest and
slowest tenths), their undos, how much of the solver's line for the deal they played once
their detours are taken out (``protocol/fairplay_line.py``, when the server's solver found
a line), and their time against their own history of the game. ``reasons`` applies the
rule, ``evidence`` gives each reason's figures against its threshold; a run with a reason
is held off the public boards (and a race off the ratings) until a moderator clears or
voids it. Pure: the same log, line and history give the same signals on every node.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from protocol.fairplay_line import line_match

# The rule (docs/fairness.md). A run is flagged when any of these holds:
LINE_SHARE = 0.9  # its standing moves hold at least this share of the solver's line, in order
MIN_LINE = 10  # ... of a line at least this long (a short line is found by anyone)
PACE_ACTIONS = 20  # a pace is judged over at least this many actions:
FAST_MEDIAN_MS = 200  # a median think time below this (no person reads a table that fast)
STEADY_CV = 0.15  # or think times steadier than this (spread / mean: people pause, then rush)
NARROW_RATIO = 2.0  # or its slowest tenth under this many times its fastest tenth (p90 / p10)
HISTORY_RUNS = 5  # its time is judged against at least this many finished runs of the game:
HISTORY_FACTOR = 4  # flagged when it is this many times faster than their median

SOLVER_LINE, MACHINE_PACE, BEYOND_HISTORY = "solver_line", "machine_pace", "beyond_history"
NARROW_PACE = "narrow_pace"
REASONS = {
    SOLVER_LINE: "played the solver's line, detours and undos aside",
    MACHINE_PACE: "a pace no person keeps (think times too fast or too even)",
    NARROW_PACE: "think times in a band no person keeps (no long pauses, no quick runs)",
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
    # (later fields have defaults: reviews kept before them still read)
    line_kept: int = 0  # the line's moves among its standing actions, in the line's order
    standing: int = 0  # actions left once every undo and what it took back are removed
    taken_back: int = 0  # actions undone
    think_p10_ms: int | None = None  # the fastest tenth of think times ends here
    think_p90_ms: int | None = None  # the slowest tenth starts here

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
    match = line_match([action for action, _ in actions], line or ())
    tenths = statistics.quantiles(thinks, n=10, method="inclusive") if len(thinks) > 1 else None
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
        line_kept=match.kept,
        standing=match.standing,
        taken_back=match.taken_back,
        think_p10_ms=int(tenths[0]) if tenths else None,
        think_p90_ms=int(tenths[-1]) if tenths else None,
    )


def reasons(signals: Signals) -> list[str]:
    """Why the run is flagged by the rule above (empty: it is not)."""
    found = []
    line = signals.line_length
    if line is not None and line >= MIN_LINE and signals.line_kept >= LINE_SHARE * line:
        found.append(SOLVER_LINE)
    paced = signals.actions >= PACE_ACTIONS
    if paced and (
        (signals.think_median_ms is not None and signals.think_median_ms < FAST_MEDIAN_MS)
        or (signals.think_cv is not None and signals.think_cv < STEADY_CV)
    ):
        found.append(MACHINE_PACE)
    fastest, slowest = signals.think_p10_ms, signals.think_p90_ms
    if paced and fastest is not None and slowest is not None and slowest < NARROW_RATIO * fastest:
        found.append(NARROW_PACE)
    past = signals.history_median_ms
    if (
        signals.finished
        and past is not None
        and signals.history_runs >= HISTORY_RUNS
        and signals.time_ms * HISTORY_FACTOR < past
    ):
        found.append(BEYOND_HISTORY)
    return found


def evidence(signals: Signals) -> dict[str, dict[str, Any]]:
    """Each reason the run is flagged for, with the figures that flag it and the rule's
    threshold beside them (what ``solrace admin review`` shows)."""
    figures: dict[str, dict[str, Any]] = {
        SOLVER_LINE: {
            "line_kept": signals.line_kept,
            "line_length": signals.line_length,
            "share_needed": LINE_SHARE,
            "standing": signals.standing,
            "taken_back": signals.taken_back,
            "undos": signals.undos,
            "opening_followed": signals.line_followed,
        },
        MACHINE_PACE: {
            "think_median_ms": signals.think_median_ms,
            "median_under_ms": FAST_MEDIAN_MS,
            "think_cv": signals.think_cv,
            "spread_under": STEADY_CV,
            "actions": signals.actions,
        },
        NARROW_PACE: {
            "think_p10_ms": signals.think_p10_ms,
            "think_p90_ms": signals.think_p90_ms,
            "ratio_under": NARROW_RATIO,
            "actions": signals.actions,
        },
        BEYOND_HISTORY: {
            "time_ms": signals.time_ms,
            "history_median_ms": signals.history_median_ms,
            "history_runs": signals.history_runs,
            "times_faster_needed": HISTORY_FACTOR,
        },
    }
    return {reason: figures[reason] for reason in reasons(signals)}
