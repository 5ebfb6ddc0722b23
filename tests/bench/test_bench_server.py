"""``solrace bench server`` runs end to end on a small load and reports every phase for both
servers (the figures themselves are for people to read, not for tests to time)."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys

from bench.loadtest import paced, saturation_phase


def test_the_server_benchmark_reports_every_phase_for_both_servers() -> None:
    command = [
        sys.executable,
        "-m",
        "solrace.cli",
        "bench",
        "server",
        "--players",
        "20",
        "--rate",
        "40",
        "--seconds",
        "1",
        "--rounds",
        "2",
        "--saturation-clients",
        "10",
        "--saturation-seconds",
        "1",
        "--saturation-rounds",
        "2",
        "--spectators",
        "10",
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    assert set(result["echo"]) == {"rate", "saturation"}
    assert set(result["solrace"]) == {"rate", "saturation", "spectated", "spectated_niced"}
    for server in ("echo", "solrace"):
        for phase in result[server].values():
            assert phase["actions"] > 0 and 0 < phase["p50_ms"] <= phase["p99_ms"]
    assert len(result["ratios"]["saturation_vs_echo_by_round"]) == 2
    assert len(result["ratios"]["p99_vs_echo_by_round"]) == 2
    assert result["ratios"]["p99_vs_echo"] in result["ratios"]["p99_vs_echo_by_round"]
    assert result["ratios"]["saturation_vs_echo"] in result["ratios"]["saturation_vs_echo_by_round"]
    ticker = result["ticker_paced"]  # read from solrace's /metrics around its paced phase
    assert ticker["holds"] > 0 and ticker["mean_ms"] > 0
    assert 0 <= ticker["share_over_1_ms"] <= ticker["share_over_0_5_ms"] <= 1
    assert set(result["ratios"]) == {
        "p99_vs_echo",
        "p99_vs_echo_by_round",
        "saturation_vs_echo",
        "saturation_vs_echo_by_round",
        "p99_increase_with_spectators_ms",
        "p99_increase_with_spectators_niced_ms",
    }


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
