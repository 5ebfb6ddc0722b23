"""``solrace bench arena``'s arithmetic and report: delays kept as histograms of whole
milliseconds (a 10-minute arena makes millions of (heat, connection) pairs), the delivery
of each heat's standings to each connection, and the printed table."""

from __future__ import annotations

import bisect
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

PAIRING_P95_S = 2.0  # issue 35: from idle to a heat, p95
PUSH_P99_S = 1.0  # a heat's end to every participant's and watcher's standings, p99
MS = 1_000_000  # ns


def quantiles(histogram: Counter[int] | dict[int, int], *shares: float) -> list[float | None]:
    """The values (ms) at each share of a histogram of whole ms (None when it is empty)."""
    total = sum(histogram.values())
    if not total:
        return [None for _ in shares]
    found: list[float | None] = []
    ordered = sorted(histogram.items())
    for share in shares:
        rank, seen = min(total - 1, int(share * total)), 0
        for value, count in ordered:
            seen += count
            if seen > rank:
                found.append(float(value))
                break
    return found


def histogram_of(values_ns: Iterable[int]) -> Counter[int]:
    return Counter(value // MS for value in values_ns)


def merged(histograms: Iterable[dict[int, int] | Counter[int]]) -> Counter[int]:
    total: Counter[int] = Counter()
    for histogram in histograms:
        total.update({int(value): count for value, count in histogram.items()})
    return total


def deliveries(
    pushes: Sequence[tuple[array[int], array[int]]], heats: Sequence[tuple[int, int]]
) -> tuple[Counter[int], int]:
    """For every connection (the versions and arrival times, ns, of the ``arena_standings``
    it got, in order) and every heat (the log's version holding its result, its end in
    ns): the delay from the heat's end to the first standings of that version or later to
    reach the connection, as a histogram of ms; and how many pairs never got there.
    Connections that got the same versions (one node's, all watching from the start) are
    worked out together: one search a heat, one count a push."""
    histogram: Counter[int] = Counter()
    missed = 0
    groups: dict[bytes, list[array[int]]] = {}
    versions_of: dict[bytes, array[int]] = {}
    for versions, times in pushes:
        key = versions.tobytes()
        groups.setdefault(key, []).append(times)
        versions_of[key] = versions
    for key, group in groups.items():
        versions = versions_of[key]
        by_push: dict[int, list[int]] = {}
        for version, end_ns in heats:
            index = bisect.bisect_left(versions, version)
            if index == len(versions):
                missed += len(group)
            else:
                by_push.setdefault(index, []).append(end_ns)
        for index, ends in by_push.items():
            arrivals = Counter(times[index] // MS for times in group)
            for end_ns in ends:
                end_ms = end_ns // MS
                for arrived_ms, count in arrivals.items():
                    histogram[arrived_ms - end_ms] += count
    return histogram, missed


def summary(histogram: Counter[int], target_s: float, share: float) -> dict[str, Any]:
    """Count, p50, the target's percentile and max of a histogram (ms), and the target."""
    p50, at, top = quantiles(histogram, 0.5, share, 1.0)
    return {
        "count": sum(histogram.values()),
        "p50_ms": p50,
        f"p{round(share * 100)}_ms": at,
        "max_ms": top,
        "target_ms": target_s * 1000,
        "met": at is not None and at <= target_s * 1000,
    }


def print_arena(result: dict[str, Any]) -> None:
    s = result["settings"]
    print(
        f"arena bench: {s['players']:,} players on {s['nodes']} nodes, {s['watchers']:,} "
        f"watchers, {s['minutes']} min of a {result['arena']} (heats of 2), servers "
        f"{' '.join(result['serve_options'])}"
    )
    print(
        f"heats scored {result['heats_scored']:,}, actions {result['actions']:,}, "
        f"players idle at the end {result['waiting_at_end']}"
    )
    print(
        f"{'pairing wave (idle -> paired)':44} {'count':>8} {'p50 ms':>9} {'p95 ms':>9} {'max':>9}"
    )
    for name, row in result["pairing"].items():
        print(
            f"  {name:42} {row['count']:>8,} {fmt(row['p50_ms'])} {fmt(row['p95_ms'])} "
            f"{fmt(row['max_ms'])}"
        )
    print(
        f"{'standings pushed (heat end -> standings)':44} {'pairs':>8} {'p50 ms':>9} "
        f"{'p99 ms':>9} {'max':>9} missed"
    )
    for name, row in result["standings"].items():
        print(
            f"  {name:42} {row['count']:>8,} {fmt(row['p50_ms'])} {fmt(row['p99_ms'])} "
            f"{fmt(row['max_ms'])} {row['missed']}"
        )
    held = result["watchers_held"]
    print(
        f"watchers still connected at the end: {held['alive']:,} of {held['connected']:,}; "
        f"got the last heat's standings: {held['held']:,}"
    )
    cpu = result["cpu"]
    print(
        f"CPU over {cpu['wall_s']} s: nodes {cpu['nodes_s']} s ({cpu['nodes_pct']}% of a "
        f"core each), Redis {cpu['redis_s']} s; per heat scored: nodes "
        f"{cpu['nodes_ms_per_heat']} ms, Redis {cpu['redis_ms_per_heat']} ms; bots' process "
        f"{cpu['bots_pct']}%, watchers' processes {cpu['watchers_pct']}%"
    )
    lag = result.get("bots_loop_lag")
    if lag is not None:
        print(
            f"bots' loop late (a sleep of 0.1 s, {lag['count']:,} times): p50 "
            f"{lag['p50_ms']} ms, p99 {lag['p99_ms']} ms, max {lag['max_ms']} ms"
        )
    targets = result["targets"]
    print("targets: " + ", ".join(f"{k} {'met' if v else 'NOT met'}" for k, v in targets.items()))


def fmt(value: float | None) -> str:
    return f"{'-':>9}" if value is None else f"{value:>9,.0f}"
