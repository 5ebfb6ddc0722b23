"""``solrace bench server --redis-cluster`` runs end to end on a small load: it starts its
own Redis and its own cluster of three primaries, and reports each one's Redis CPU per
action per shard and the ceiling it projects (the figures are for people to read), with the
commands per action per shard by name."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

BENCH = [sys.executable, "-m", "solrace.cli", "bench", "server", "--redis-cluster"]


def run(*options: str) -> dict[str, Any]:
    command = [*BENCH, *options, "--saturation-seconds", "1", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=True)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def in_turns() -> dict[str, Any]:
    """One run of three rounds in turns (a cluster takes a while to start: shared)."""
    return run("--saturation-clients", "4", "--saturation-rounds", "3")


def test_the_cluster_benchmark_reports_one_redis_and_three_shards(
    in_turns: dict[str, Any],
) -> None:
    result = in_turns
    for shape, shards in (("one_redis", 1), ("cluster", 3)):
        figures = result[shape]
        assert figures["saturation"]["actions"] > 0
        assert len(figures["redis_cpu_s_per_shard"]) == shards
        assert len(figures["redis_idle_cpu_s_per_shard"]) == shards
        assert figures["redis_cpu_us_per_action_per_shard"] > 0
        assert figures["ceiling_actions_per_s"] > 0
        counts = figures["commands_per_action_per_shard"]  # every action: one APPEND_LOG
        assert counts["evalsha"] >= 1 and counts["xadd"] >= 1 and counts["reads"] > 0
        assert counts["total"] > counts["evalsha"]
    assert result["ceiling_vs_one_redis"] > 0 and result["cpu_per_action_vs_one_redis"] > 0


def test_with_nodes_every_race_is_across_two_nodes_and_every_node_works() -> None:
    result = run("--nodes", "2", "--saturation-clients", "8", "--saturation-rounds", "1")
    assert result["settings"]["nodes"] == 2
    for shape, shards in (("one_redis", 1), ("cluster", 3)):
        figures = result[shape]
        assert figures["races_across_nodes"] == 4  # 8 clients, 4 races, each on both nodes
        assert len(figures["node_cpu_pct"]) == 2 and min(figures["node_cpu_pct"]) > 0
        assert figures["saturation"]["actions"] > 0
        assert len(figures["redis_cpu_s_per_shard"]) == shards
        assert figures["commands_per_action_per_shard"]["xadd"] >= 1
        assert figures["ceiling_actions_per_s"] > 0


def test_rounds_measure_one_redis_and_the_cluster_in_turns_and_report_the_median(
    in_turns: dict[str, Any],
) -> None:
    result = in_turns
    rounds = result["rounds"]
    assert len(rounds) == 3
    for row in rounds:
        assert len(row["us_per_action_per_shard"]) == 2 and min(row["us_per_action_per_shard"]) > 0
        assert row["load"] >= 0 and len(row["started"]) == 8  # HH:MM:SS, UTC
        assert min(row["reads_per_action_per_shard"]) > 0
    ratios = sorted(row["cpu_per_action_vs_one_redis"] for row in rounds)
    assert result["cpu_per_action_vs_one_redis"] == ratios[1]
    medians = [r for r in rounds if r["cpu_per_action_vs_one_redis"] == ratios[1]]
    assert result["ceiling_vs_one_redis"] in [r["ceiling_vs_one_redis"] for r in medians]
