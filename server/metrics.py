"""``GET /metrics``: the server's counters in Prometheus's text format (prometheus-client).

Counters and the act round-trip histogram are updated as things happen; gauges that are
cheaper to read than to keep (live races, spectators, the write backlog) are read when
Prometheus scrapes. Each server has its own registry, so several servers in one process
(tests) do not share numbers. The alert rules and the dashboard in ``deploy/`` read these
names (``tests/server/test_dashboards_and_alerts.py`` checks each one is here).
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.registry import Collector

# act round trips: from reading the request to writing its answer (stored first)
ACT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0, 5.0)
# the ticker's holds on the event loop (requests arriving meanwhile wait)
TICK_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05)
# how late the event loop wakes a sleep (every request waits as long)
LOOP_LAG_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# how long news from another node took: sent (its wall clock) to heard (ours)
PUBSUB_LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# the loop-lag probe's sleep: a hold of the loop for h seconds shows as a lag of at least
# h - LOOP_LAG_EVERY_S (20 timer wakes a second: about 0.25 % of a core, measured alone)
LOOP_LAG_EVERY_S = 0.05


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.connections = Gauge("solrace_connections", "Open websocket connections", registry=r)
        self.requests = Counter(
            "solrace_requests", "Requests answered, by type (act excluded)", ["type"], registry=r
        )
        self.errors = Counter(
            "solrace_errors", "Requests refused, by type and code", ["type", "code"], registry=r
        )
        self.act_seconds = self._histogram(  # on the hot path: see ``Buckets``
            "solrace_act_seconds",
            "act round trip in the server: read to answer, its log entry stored first",
            ACT_BUCKETS,
        )
        self.tick_seconds = self._histogram(
            "solrace_tick_seconds",
            "each hold of the event loop by the ticker's work (requests wait for it)",
            TICK_BUCKETS,
        )
        self.hellos = Counter(
            "solrace_hellos", "Sessions opened: new, resumed or restored", ["kind"], registry=r
        )
        self.races_rebuilt = Counter(
            "solrace_races_rebuilt", "Live races rebuilt from the store by replay", registry=r
        )
        self.loop_lag = self._histogram(
            "solrace_event_loop_lag_seconds",
            "how late the event loop woke a sleep of the probe's (every request waits as long)",
            LOOP_LAG_BUCKETS,
        )
        self.pubsub_lag = self._histogram(
            "solrace_pubsub_lag_seconds",
            "news from another node: its sending (its wall clock) to its hearing here",
            PUBSUB_LAG_BUCKETS,
        )
        self.store_trip_seconds = self._histogram(
            "solrace_store_round_trip_seconds",
            "each of the writer's round trips: a batch sent to the store to its replies read",
            ACT_BUCKETS,
        )
        self.failovers = Counter(
            "solrace_store_failovers",
            "Times the store answered as a replica promoted since it was read before",
            registry=r,
        )

    def _histogram(self, name: str, documentation: str, bounds: tuple[float, ...]) -> Buckets:
        buckets = Buckets(bounds)
        self.registry.register(_BucketsCollector(name, documentation, buckets))
        return buckets

    def watch(self, read: Callable[[], dict[str, float]], counters: tuple[str, ...]) -> None:
        """Read ``read()`` at every scrape: each name is a gauge, or a counter if listed in
        ``counters`` (names without the ``solrace_`` prefix)."""
        self.registry.register(_Reading(read, counters))

    def text(self) -> bytes:
        return generate_latest(self.registry)


async def probe_loop_lag(
    observe: Callable[[float], None], every_s: float = LOOP_LAG_EVERY_S
) -> None:
    """Sleep ``every_s`` again and again, giving ``observe`` how much later than asked each
    sleep woke (a loop held by a long step wakes it late by as much). Runs until cancelled;
    one timer every ``every_s``, nothing else."""
    while True:
        asked = time.perf_counter() + every_s
        await asyncio.sleep(every_s)
        observe(max(0.0, time.perf_counter() - asked))


class Buckets:
    """A histogram's counts, kept as cheaply as the act hot path needs (prometheus-client's
    ``Histogram.observe`` takes a lock and costs several times more); exported as a
    Prometheus histogram at each scrape."""

    __slots__ = ("bounds", "counts", "total")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound
        self.total = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1
        self.total += value


class _BucketsCollector(Collector):
    def __init__(self, name: str, documentation: str, buckets: Buckets) -> None:
        self.name = name
        self.documentation = documentation
        self.buckets = buckets

    def collect(self) -> Iterator[HistogramMetricFamily]:
        cumulative, running = [], 0
        for bound, count in zip(
            (*map(str, self.buckets.bounds), "+Inf"), self.buckets.counts, strict=True
        ):
            running += count
            cumulative.append((bound, running))
        yield HistogramMetricFamily(
            self.name, self.documentation, buckets=cumulative, sum_value=self.buckets.total
        )


class _Reading(Collector):
    def __init__(self, read: Callable[[], dict[str, float]], counters: tuple[str, ...]) -> None:
        self.read = read
        self.counters = counters

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        for name, value in self.read().items():
            full = f"solrace_{name}"
            if name in self.counters:
                yield CounterMetricFamily(full, name.replace("_", " "), value=value)
            else:
                yield GaugeMetricFamily(full, name.replace("_", " "), value=value)
