"""What solrace's own /metrics say of a ``bench server`` phase (``bench/loadtest.py``): the
growth of its histograms between two readings, from the ticker's holds to the store's
round trips."""

from __future__ import annotations

import urllib.error
from typing import Any

from bench.benchprocess import metric_samples

Samples = dict[tuple[str, Any], float]  # a server's /metrics, by name and labels
SHOWN_UP_TO_S = 0.01  # the shares within each of a histogram's bounds up to here


def metrics_if_any(port: int) -> Samples:
    """The server's /metrics samples, or none from a server without /metrics."""
    try:
        return metric_samples(port)
    except urllib.error.HTTPError:
        return {}


def histogram_growth(
    before: Samples, after: Samples, name: str
) -> tuple[float, float, dict[float, float]]:
    """How a histogram of a server's /metrics grew between two readings: its count, its
    sum, and the count at or below each bucket bound (seconds)."""

    def grew(key: tuple[str, Any]) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    buckets = {
        float(dict(labels)["le"]): grew((sample, labels))
        for sample, labels in after
        if sample == f"{name}_bucket"
    }
    return grew((f"{name}_count", ())), grew((f"{name}_sum", ())), buckets


def ticker_holds(before: Samples, after: Samples) -> dict[str, Any]:
    """How long solrace's ticker held the event loop between two readings of its /metrics
    (``solrace_tick_seconds``): holds, their mean, the share above 0.5 ms and 1 ms (no
    holds from a server without that metric: ``SOLRACE_BENCH_SERVER`` may run older code)."""
    holds, total, within = histogram_growth(before, after, "solrace_tick_seconds")
    if not holds:
        return {"holds": 0}
    return {
        "holds": int(holds),
        "mean_ms": round(1000 * total / holds, 3),
        "share_over_0_5_ms": round(1 - within[0.0005] / holds, 4),
        "share_over_1_ms": round(1 - within[0.001] / holds, 4),
    }


def answer_times(before: Samples, after: Samples) -> dict[str, Any]:
    """solrace's own time from reading an action to writing its answer (its log entry
    stored first) between two readings of its /metrics (``solrace_act_seconds``, what the
    act latency alerts read). What the players' round trips add to it is the sockets',
    the load generator's and the machine's."""
    return histogram_shares(before, after, "solrace_act_seconds", "actions")


def store_trips(before: Samples, after: Samples) -> dict[str, Any]:
    """The writer's round trips to the store between two readings of solrace's /metrics
    (``solrace_store_round_trip_seconds``: a batch sent to its replies read). An action
    decided while one is out waits for it, then for its own."""
    return histogram_shares(before, after, "solrace_store_round_trip_seconds", "trips")


def histogram_shares(before: Samples, after: Samples, name: str, counted: str) -> dict[str, Any]:
    """How many the histogram ``name`` counted between two readings (as ``counted``), the
    share within each of its bucket bounds up to ``SHOWN_UP_TO_S``, and the least bound
    within which 99 % fell (the p99 is at most that). None counted from a server without
    the metric (``SOLRACE_BENCH_SERVER`` may run older code)."""
    count, _, within = histogram_growth(before, after, name)
    if not count:
        return {counted: 0}
    return {
        counted: int(count),
        "share_within_ms": {
            f"{1000 * bound:g}": round(n / count, 4)
            for bound, n in sorted(within.items())
            if bound <= SHOWN_UP_TO_S
        },
        "p99_at_most_ms": min(1000 * bound for bound, n in within.items() if n >= 0.99 * count),
    }
