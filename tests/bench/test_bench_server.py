"""``solrace bench server`` runs end to end on a small load and reports every phase for both
servers (the figures themselves are for people to read, not for tests to time)."""

from __future__ import annotations

import asyncio
import gc
import json
import math
import os
import subprocess
import sys
from typing import Any

from bench.loadtest import Reading, _figures, paced, saturation_phase
from server.metrics import ACT_BUCKETS

SMALL_LOAD = ("--players", "20", "--rate", "40", "--seconds", "1", "--rounds", "2")
SMALL_SATURATION = ("--saturation-clients", "10", "--saturation-seconds", "1")


def _bench_server(*options: str) -> dict[str, Any]:
    """``solrace bench server --json`` on a small load: what it printed."""
    command = [sys.executable, "-m", "solrace.cli", "bench", "server", *options, "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=True)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_the_server_benchmark_reports_every_phase_for_both_servers() -> None:
    result = _bench_server(
        *SMALL_LOAD, *SMALL_SATURATION, "--saturation-rounds", "2", "--spectators", "10"
    )
    assert set(result["echo"]) == {"rate", "saturation"}
    assert set(result["solrace"]) == {"rate", "saturation", "spectated", "spectated_niced"}
    for server in ("echo", "solrace"):
        for phase in result[server].values():
            assert phase["actions"] > 0 and 0 < phase["p50_ms"] <= phase["p99_ms"]
            for share in ("server_waited_pct", "load_waited_pct", "steal_pct"):
                assert 0 <= phase[share] <= 100
    assert len(result["ratios"]["saturation_vs_echo_by_round"]) == 2
    assert len(result["ratios"]["p99_vs_echo_by_round"]) == 2
    assert result["ratios"]["p99_vs_echo"] in result["ratios"]["p99_vs_echo_by_round"]
    assert result["ratios"]["saturation_vs_echo"] in result["ratios"]["saturation_vs_echo_by_round"]
    ticker = result["ticker_paced"]  # read from solrace's /metrics around its paced phase
    assert ticker["holds"] > 0 and ticker["mean_ms"] > 0
    assert 0 <= ticker["share_over_1_ms"] <= ticker["share_over_0_5_ms"] <= 1
    answered = result["answered_paced"]  # solrace's own act histogram over that phase
    assert answered["actions"] > 0
    shares = list(answered["share_within_ms"].values())
    assert shares == sorted(shares) and shares[0] >= 0 and shares[-1] <= 1
    assert answered["p99_at_most_ms"] in {1000 * bound for bound in (*ACT_BUCKETS, math.inf)}
    assert set(result["ratios"]) == {
        "p99_vs_echo",
        "p99_vs_echo_by_round",
        "saturation_vs_echo",
        "saturation_vs_echo_by_round",
        "p99_increase_with_spectators_ms",
        "p99_increase_with_spectators_niced_ms",
    }
    assert "stored_echo" not in result  # only beside a Redis


def test_with_redis_the_echo_storing_every_request_there_takes_its_turn_in_the_paced_rounds() -> (
    None
):
    result = _bench_server(
        *SMALL_LOAD, *SMALL_SATURATION, "--saturation-rounds", "1", "--spectators", "0", "--redis"
    )
    floor = result["stored_echo"]["rate"]
    assert floor["actions"] > 0 and 0 < floor["p50_ms"] <= floor["p99_ms"]
    ratios = result["ratios"]
    assert len(ratios["p99_vs_stored_echo_by_round"]) == 2
    assert ratios["p99_vs_stored_echo"] in ratios["p99_vs_stored_echo_by_round"]
    assert result["solrace"]["rate"]["actions"] > 0
    trips = result["store_trips_paced"]  # the writer's round trips, from solrace's /metrics
    assert 0 < trips["trips"] <= result["answered_paced"]["actions"]
    assert list(trips["share_within_ms"].values()) == sorted(trips["share_within_ms"].values())


class _Idle:
    """A player whose every action is answered at once, noting whether the garbage
    collector could run meanwhile."""

    def __init__(self) -> None:
        self.collecting: set[bool] = set()

    async def act(self) -> None:
        self.collecting.add(gc.isenabled())
        await asyncio.sleep(0)


async def test_the_load_s_own_garbage_collector_never_pauses_a_measured_phase() -> None:
    """The load generator's full collections (100 ms and more, with its thousands of
    players and their playouts) would be counted as the server's latency."""
    players = [_Idle(), _Idle()]

    async def window() -> bool:
        return gc.isenabled()

    _, first, last = await paced(players, 200.0, 0.4, window)  # type: ignore[arg-type]
    assert (first, last) == (False, False)
    assert gc.isenabled()
    await saturation_phase(players, 0.1, os.getpid())  # type: ignore[arg-type]
    assert gc.isenabled()
    assert all(player.collecting == {False} for player in players)


def test_a_phase_reports_what_the_machine_took_as_shares_of_its_time() -> None:
    first = Reading(10.0, 1.0, 2.0, 0.5, 0.25, steal_ticks=100, all_ticks=1000)
    last = Reading(14.0, 3.0, 3.0, 0.9, 1.25, steal_ticks=150, all_ticks=1800)
    figures = _figures([0.001] * 99 + [0.01], first, last)
    assert (figures.server_cpu_pct, figures.load_cpu_pct) == (50.0, 25.0)
    assert (figures.server_waited_pct, figures.load_waited_pct) == (10.0, 25.0)
    assert figures.steal_pct == 6.2  # 50 of the machine's 800 ticks (all cores)
