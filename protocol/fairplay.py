"""Fair-play signals of one run, and the documented rule that flags a run for a person to
look at (docs/fairness.md, "Fair-play signals").

A ranked daily run and each racer of a rated race keep their ``Signals``: the time
between their actions (the think-time distribution: median, spread, and its fastest and
slowest tenths), their undos, how much of the solver's line for the deal they played once
their detours are taken out (``protocol/fairplay_line.py``, when the server's solver found
a line), their time against their own history of the game, and their reveals
(``protocol/fairplay_reveals.py``), alone and summed with their account's earlier ranked
daily runs' (``protocol/fairplay_account.py``). ``reasons`` applies the
rule, ``evidence`` gives each reason's figures against its threshold; a run with a reason
is held off the public boards (and a race off the ratings) until a moderator clears or
voids it. Pure: the same log, line and history give the same signals on every node.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from protocol.fairplay_account import ACCOUNT_RUNS, ACCOUNT_Z, account_figures, lucky_account
from protocol.fairplay_line import Order, line_match
from protocol.fairplay_record import (
    RECORD_CHANCE,
    RECORD_RACES,
    RECORD_RUNS,
    Record,
    beyond_record,
    record_figures,
)
from protocol.fairplay_reveals import Reveals

# The rule (docs/fairness.md). A run is flagged when any of these holds:
LINE_SHARE = 0.9  # its standing moves hold at least this share of the solver's line, in order
MIN_LINE = 10  # ... of a line at least this long (a short line is found by anyone)
PACE_ACTIONS = 20  # a pace is judged over at least this many actions:
FAST_MEDIAN_MS = 200  # a median think time below this (no person reads a table that fast)
STEADY_CV = 0.15  # or think times steadier than this (spread / mean: people pause, then rush)
NARROW_RATIO = 2.0  # or its slowest tenth under this many times its fastest tenth (p90 / p10)
QUICK_ACTIONS = 8  # a quick pace is judged over at least this many actions (a short run too):
QUICK_MEDIAN_MS = 400  # a median think time below this
QUICK_RATIO = 2.5  # and its slowest tenth under this many times its fastest tenth
HISTORY_RUNS = 5  # its time is judged against at least this many finished runs of the game:
HISTORY_FACTOR = 4  # flagged when it is this many times faster than their median
FIELD_RUNS = 20  # a finished daily run is judged against the day's field of at least this
FIELD_SHARE = 0.1  # many finished runs: flagged when faster than its fastest tenth (its p10)
OWN_FACTOR = 2  # and at least this many times faster than the account's best earlier time
FIELD_READ = 1000  # the field: at most the day's fastest this many runs on its board

SOLVER_LINE, MACHINE_PACE, BEYOND_HISTORY = "solver_line", "machine_pace", "beyond_history"
NARROW_PACE, QUICK_PACE, BEYOND_FIELD = "narrow_pace", "quick_pace", "beyond_field"
LUCKY_ACCOUNT, BEYOND_RECORD = "lucky_account", "beyond_record"
REASONS = {
    SOLVER_LINE: "played the solver's line, detours and undos aside",
    MACHINE_PACE: "a pace no person keeps (think times too fast or too even)",
    NARROW_PACE: "think times in a band no person keeps (no long pauses, no quick runs)",
    QUICK_PACE: "quick think times in a band no person keeps, even over a short run",
    BEYOND_HISTORY: "far faster than the account's own history of the game",
    BEYOND_FIELD: "faster than the day's field, with no such time before",
    LUCKY_ACCOUNT: "turned up useful cards more often than chance allows, over its ranked runs",
    BEYOND_RECORD: "finished its daily runs far more often than the deals it meets blind",
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
    history_best_ms: int | None = None  # the account's best time of its earlier finished runs
    field_runs: int = 0  # the day's finished runs on its board (a daily run; at most FIELD_READ)
    field_fast_ms: int | None = None  # where the field's fastest tenth ends (its p10)
    field_median_ms: int | None = None
    # clairvoyance (protocol/fairplay_reveals.py): this run's, kept for the record ...
    blind_reveals: int = 0  # cards turned up that the player had not seen
    lucky_reveals: int = 0  # ... that were useful at once
    lucky_expected: float = 0.0  # ... expected of a player who cannot see hidden cards
    lucky_z: float | None = None  # (lucky - expected) / its standard deviation
    lucky_variance: float = 0.0  # the variance of lucky for such a player
    # ... and summed over the account's ranked daily runs that turned up a card blind, this
    # one included (protocol/fairplay_account.py): the rule ``lucky_account`` reads these
    account_runs: int = 0
    account_lucky: int = 0
    account_expected: float = 0.0
    account_variance: float = 0.0
    account_z: float | None = None
    # a ranked daily run's account's record (protocol/fairplay_record.py): the races the
    # server dealt it and those it finished, its ranked daily runs (this one included) and
    # those it finished, and the chance of finishing as many of those for a player who
    # finishes as often as in its races: the rule ``beyond_record`` reads these
    record_races: int = 0
    record_races_finished: int = 0
    record_runs: int = 0
    record_runs_finished: int = 0
    record_chance: float | None = None

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
    field_ms: Sequence[int] = (),
    reveals: Reveals | None = None,
    earlier_reveals: Sequence[Reveals] = (),
    record: Record | None = None,
    order: Order | None = None,
) -> Signals:
    """The signals of a run whose accepted ``actions`` are ``(action, t_ms)`` in order;
    ``line``: the solver's winning line for the deal, if it has one; ``history_ms``: the
    times of the account's earlier finished runs of the game; ``field_ms``: the times of
    the day's finished runs on its board (a daily run); ``reveals``: its reveals
    (``protocol.fairplay_reveals.reveals_of``), when the deal is at hand;
    ``earlier_reveals``: those of the account's earlier ranked daily runs; ``record``: a
    ranked daily run's account's record before it (this run is added to it); ``order``: puts
    the run's standing moves in the line's order where they commute
    (``protocol.fairplay_order.toward_line`` on the deal), when the deal is at hand."""
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
    match = line_match([action for action, _ in actions], line or (), order)
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
        history_best_ms=min(history_ms) if history_ms else None,
        **field_figures(field_ms),
        **reveal_figures(reveals or Reveals()),
        **account_figures([*earlier_reveals, reveals or Reveals()]),
        **(record_figures(record.with_run(finished)) if record is not None else {}),
    )


def reveal_figures(reveals: Reveals) -> dict[str, Any]:
    """The reveals' figures as ``Signals`` keeps them."""
    z = reveals.z()
    return {
        "blind_reveals": reveals.blind,
        "lucky_reveals": reveals.lucky,
        "lucky_expected": reveals.expected,
        "lucky_z": round(z, 2) if z is not None else None,
        "lucky_variance": reveals.variance,
    }


def field_figures(field_ms: Sequence[int]) -> dict[str, Any]:
    """The day's field: how many finished runs, where its fastest tenth ends, its median."""
    parts = round(1 / FIELD_SHARE)
    many = len(field_ms) > 1
    fast = statistics.quantiles(field_ms, n=parts, method="inclusive")[0] if many else None
    return {
        "field_runs": len(field_ms),
        "field_fast_ms": int(fast) if fast is not None else None,
        "field_median_ms": int(statistics.median(field_ms)) if field_ms else None,
    }


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
    if quick_pace(signals):
        found.append(QUICK_PACE)
    past = signals.history_median_ms
    if (
        signals.finished
        and past is not None
        and signals.history_runs >= HISTORY_RUNS
        and signals.time_ms * HISTORY_FACTOR < past
    ):
        found.append(BEYOND_HISTORY)
    if beyond_field(signals):
        found.append(BEYOND_FIELD)
    if lucky_account(signals.account_runs, signals.account_z):
        found.append(LUCKY_ACCOUNT)
    if beyond_record(signals.finished, record_of(signals)):
        found.append(BEYOND_RECORD)
    return found


def record_of(signals: Signals) -> Record:
    """The account's record as the signals keep it (this run included)."""
    return Record(
        signals.record_races,
        signals.record_races_finished,
        signals.record_runs,
        signals.record_runs_finished,
    )


def quick_pace(signals: Signals) -> bool:
    """Over at least ``QUICK_ACTIONS`` actions, think times both quick (median under
    ``QUICK_MEDIAN_MS``) and in a band (p90 under ``QUICK_RATIO`` x p10)."""
    median, fastest, slowest = signals.think_median_ms, signals.think_p10_ms, signals.think_p90_ms
    return (
        signals.actions >= QUICK_ACTIONS
        and median is not None
        and fastest is not None
        and slowest is not None
        and median < QUICK_MEDIAN_MS
        and slowest < QUICK_RATIO * fastest
    )


def beyond_field(signals: Signals) -> bool:
    """A finished run faster than the day's field's fastest tenth, by an account whose
    best earlier time of the game is not even twice as slow (or that has none)."""
    fast, best = signals.field_fast_ms, signals.history_best_ms
    return (
        signals.finished
        and signals.field_runs >= FIELD_RUNS
        and fast is not None
        and signals.time_ms < fast
        and (best is None or signals.time_ms * OWN_FACTOR <= best)
    )


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
        QUICK_PACE: {
            "think_median_ms": signals.think_median_ms,
            "median_under_ms": QUICK_MEDIAN_MS,
            "think_p10_ms": signals.think_p10_ms,
            "think_p90_ms": signals.think_p90_ms,
            "ratio_under": QUICK_RATIO,
            "actions": signals.actions,
            "actions_needed": QUICK_ACTIONS,
        },
        BEYOND_HISTORY: {
            "time_ms": signals.time_ms,
            "history_median_ms": signals.history_median_ms,
            "history_runs": signals.history_runs,
            "times_faster_needed": HISTORY_FACTOR,
        },
        BEYOND_FIELD: {
            "time_ms": signals.time_ms,
            "field_fast_ms": signals.field_fast_ms,
            "field_share": FIELD_SHARE,
            "field_median_ms": signals.field_median_ms,
            "field_runs": signals.field_runs,
            "field_runs_needed": FIELD_RUNS,
            "history_best_ms": signals.history_best_ms,
            "history_runs": signals.history_runs,
            "times_faster_than_best_needed": OWN_FACTOR,
        },
        LUCKY_ACCOUNT: {
            "account_runs": signals.account_runs,
            "runs_needed": ACCOUNT_RUNS,
            "account_lucky": signals.account_lucky,
            "account_expected": signals.account_expected,
            "account_variance": signals.account_variance,
            "account_z": signals.account_z,
            "z_needed": ACCOUNT_Z,
            "run_lucky": signals.lucky_reveals,
            "run_expected": signals.lucky_expected,
            "run_z": signals.lucky_z,
        },
        BEYOND_RECORD: {
            "record_races": signals.record_races,
            "races_needed": RECORD_RACES,
            "record_races_finished": signals.record_races_finished,
            "record_runs": signals.record_runs,
            "runs_needed": RECORD_RUNS,
            "record_runs_finished": signals.record_runs_finished,
            "record_chance": signals.record_chance,
            "chance_under": RECORD_CHANCE,
        },
    }
    return {reason: figures[reason] for reason in reasons(signals)}
