"""``solrace bench idle`` runs end to end on a tiny load and reports the server's RSS
before and with the idle connections, and the cost per connection."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_idle_benchmark_reports_memory_per_connection() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "idle", "--connections", "50"]
    done = subprocess.run(
        [*command, "--wait", "0.5", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["players_connected"] == 50
    assert result["rss_with_them_mib"] >= result["rss_before_mib"] > 0
    assert isinstance(result["target_met"], bool)
    per_connection = (result["rss_with_them_mib"] - result["rss_before_mib"]) * 1024 / 50
    # each RSS figure is rounded to 0.1 MiB, so their difference is within 0.1 MiB
    assert abs(result["kib_per_connection"] - per_connection) <= 0.1 * 1024 / 50 + 0.01


def test_the_report_names_the_target() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "idle", "--connections", "10"]
    done = subprocess.run(
        [*command, "--wait", "0"], capture_output=True, text=True, timeout=120, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("idle: 10 connections")
    assert lines[1].startswith("server RSS: ")
    assert lines[2].startswith("per idle connection: ") and "target <= 20 KiB" in lines[2]
