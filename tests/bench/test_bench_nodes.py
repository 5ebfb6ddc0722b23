"""``solrace bench server --nodes 2`` runs end to end on a tiny load with real processes on
a Redis of its own, and its report holds together: every race of the spread set across
two nodes, actions by node adding up (and matching the nodes' own counts), CPU and ratios
computed from the figures it prints. No figure is held to a target here."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from bench.nodereport import print_nodes

PLAYERS = 8


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    command = [sys.executable, "-m", "solrace.cli", "bench", "server", "--nodes", "2"]
    command += ["--players", str(PLAYERS), "--rate", "40", "--seconds", "1", "--rounds", "2"]
    done = subprocess.run(
        [*command, "--cores", "2", "8", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_every_race_of_the_spread_set_is_across_two_nodes_and_none_of_the_others(
    report: dict[str, Any],
) -> None:
    races = report["races"]
    assert races["n_nodes"] == races["n_nodes_across_nodes"] == PLAYERS // 2
    assert races["one_node"] == PLAYERS // 2 and races["one_node_across_nodes"] == 0
    assert races["n_nodes_within"] == PLAYERS // 2 and races["n_nodes_within_across_nodes"] == 0
    # node 1 holds the single set's races, half the within set's, and follows the spread
    # ones; node 2 the spread ones and the other half of the within set's
    assert races["followed_by_node"] == [PLAYERS + PLAYERS // 4, PLAYERS // 2 + PLAYERS // 4]
    assert [node["node"] for node in report["nodes"]] == [1, 2]
    assert len({node["name"] for node in report["nodes"]}) == 2


def test_actions_add_up_by_node_and_match_the_nodes_own_counts(
    report: dict[str, Any],
) -> None:
    assert len(report["rounds"]) == 2
    for trio in report["rounds"]:
        one, many, within = trio["one_node"], trio["n_nodes"], trio["n_nodes_within"]
        for phase in (one, many, within):
            assert phase["actions"] > 0 and 0 < phase["p50_ms"] <= phase["p99_ms"]
            assert sum(phase["actions_by_node"]) == phase["actions"]
            assert len(phase["node_cpu_s"]) == 2
        assert one["actions_by_node"][1] == 0  # the single set is all on node 1
        for phase in (many, within):  # the spread and within sets on both
            assert all(n > 0 for n in phase["actions_by_node"])
            assert phase["server_cpu_s"] == pytest.approx(sum(phase["node_cpu_s"]), abs=2e-6)
            per_1000 = 1e6 * phase["server_cpu_s"] / phase["actions"]
            assert phase["server_cpu_ms_per_1000"] == pytest.approx(per_1000, rel=0.01, abs=0.1)
        assert one["server_cpu_s"] == pytest.approx(one["node_cpu_s"][0], abs=2e-6)
    split = report["split"]  # only node 1's racers of the spread set acted
    assert split["actions"] > 0 and split["actions_by_node"] == [split["actions"], 0]
    assert split["racer_node_ms_per_1000"] > 0 and split["following_nodes_ms_per_1000"] > 0
    answered = report["actions_answered"]
    assert answered["counted_by_players"] == answered["counted_by_nodes"]
    assert all(count > 0 for count in answered["counted_by_nodes"])


def test_ratios_and_projection_are_computed_from_the_rounds(
    report: dict[str, Any],
) -> None:
    ratios = report["ratios"]
    by_round = [
        pair["n_nodes"]["server_cpu_ms_per_1000"] / pair["one_node"]["server_cpu_ms_per_1000"]
        for pair in report["rounds"]
    ]
    assert ratios["cpu_per_1000_vs_one_node_by_round"] == pytest.approx(by_round, abs=0.01)
    assert ratios["cpu_per_1000_vs_one_node"] == pytest.approx(sum(by_round) / 2, abs=0.01)
    # the whole ratio is the within-a-node ratio times the across-vs-within one
    for whole, within, across in zip(
        ratios["cpu_per_1000_vs_one_node_by_round"],
        ratios["cpu_within_vs_one_node_by_round"],
        ratios["cpu_across_vs_within_by_round"],
        strict=True,
    ):
        assert whole == pytest.approx(within * across, abs=0.02)
    p99s = [pair["n_nodes"]["p99_ms"] / pair["one_node"]["p99_ms"] for pair in report["rounds"]]
    assert ratios["p99_vs_one_node_by_round"] == pytest.approx(p99s, abs=0.01)
    assert report["targets"]["applies"] is True
    assert isinstance(report["targets"]["cpu_met"], bool)
    projection = report["projection"]
    rows = projection["rows"]
    assert [row["cores"] for row in rows] == [2, 8]
    for row in rows:  # Redis on the same cores costs cores; never above Redis's ceiling
        assert row["actions_per_s_redis_on_these_cores"] <= row["actions_per_s_redis_elsewhere"]
        assert row["actions_per_s_redis_elsewhere"] <= projection["redis_ceiling_actions_per_s"]
    assert rows[0]["actions_per_s_redis_elsewhere"] <= rows[1]["actions_per_s_redis_elsewhere"]
    assert report["redis_cpu_us_per_action"]["n_nodes"] > 0


def test_the_printed_report_names_the_targets_and_labels_the_projection(
    report: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_nodes(report)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("server --nodes 2: 2 solrace serve processes on one Redis")
    assert "4 of 4 races with their two racers on different nodes" in lines[1]
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["round", "setup"])
    rows = [line.split() for line in lines[header + 1 : header + 7]]
    assert [row[:3] for row in rows] == [
        ["1", "1", "node"],
        ["1", "2", "nodes"],
        ["1", "2", "within"],
        ["2", "1", "node"],
        ["2", "2", "nodes"],
        ["2", "2", "within"],
    ]
    text = "\n".join(lines)
    assert "each race within one node (0 of 4 across)" in lines[1]
    assert "(no traffic between nodes)" in text and "the traffic between nodes itself" in text
    assert "target <= 1.2x" in text and "target <= 1.5x" in text
    assert "PROJECTION (arithmetic, not measured)" in text
    assert "the racer's node" in text and "the following node(s)" in text


def test_each_round_reads_every_nodes_idle_upkeep_and_the_cpu_above_it(
    report: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A node spends CPU with nobody acting (its ticker over the races it holds, its
    connections' pings, its duties): each round reads every node's with all players idle,
    and each phase's CPU above what its serving nodes would have spent idle meanwhile is
    given beside the whole, with its ratio; the target stays on the whole."""
    for trio in report["rounds"]:
        idle = trio["idle_cpu_pct_by_node"]
        assert len(idle) == 2 and all(pct >= 0 for pct in idle)
        serving = {"one_node": [0], "n_nodes": [0, 1], "n_nodes_within": [0, 1]}
        for name, nodes in serving.items():
            phase = trio[name]
            upkeep = sum(idle[i] for i in nodes) / 100 * phase["wall_s"]
            assert phase["serving_idle_cpu_s"] == pytest.approx(upkeep, rel=0.02, abs=1e-4)
            above = 1e6 * (phase["server_cpu_s"] - phase["serving_idle_cpu_s"]) / phase["actions"]
            assert phase["server_cpu_above_idle_ms_per_1000"] == pytest.approx(above, abs=0.1)
    ratios = report["ratios"]
    by_round = [
        pair["n_nodes"]["server_cpu_above_idle_ms_per_1000"]
        / pair["one_node"]["server_cpu_above_idle_ms_per_1000"]
        for pair in report["rounds"]
    ]
    assert ratios["cpu_above_idle_vs_one_node_by_round"] == pytest.approx(by_round, abs=0.01)
    assert ratios["cpu_above_idle_vs_one_node"] == pytest.approx(sum(by_round) / 2, abs=0.01)
    assert report["targets"]["cpu_met"] == (ratios["cpu_per_1000_vs_one_node"] <= 1.2)
    print_nodes(report)
    text = capsys.readouterr().out
    assert "every player idle, each node used" in text
    assert "above each node's idle upkeep" in text
