"""``solrace bench server --redis-cluster`` runs end to end on a small load: it starts its
own Redis and its own cluster of three primaries, and reports each one's Redis CPU per
action per shard and the ceiling it projects (the figures are for people to read), with the
commands per action per shard by name."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_cluster_benchmark_reports_one_redis_and_three_shards() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "server", "--redis-cluster"]
    command += ["--saturation-clients", "10", "--saturation-seconds", "1", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
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
