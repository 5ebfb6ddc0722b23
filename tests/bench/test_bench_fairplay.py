"""``solrace bench fairplay --quick`` runs end to end against a real server (a Redis of its
own, real accounts, ranked daily attempts, the moderators' reviews), and its report holds
together: every kind of player, shares that are shares, every run ranked and reviewed with
the server's line. No figure is held to a target here (``--quick`` plays at a fiftieth of
a person's pace)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from bench.fairplaybench import print_fairplay


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    command = [sys.executable, "-m", "solrace.cli", "bench", "fairplay", "--quick", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_every_kind_of_player_is_reported_with_its_share_flagged(report: dict[str, Any]) -> None:
    kinds = report["kinds"]
    assert list(kinds) == ["honest", "cheater", "bot"]
    assert [kinds[kind]["runs"] for kind in kinds] == [4, 4, 1]
    for row in kinds.values():
        assert 0 <= row["flagged"] <= row["runs"] and 0 <= row["won"] <= row["runs"]
        assert row["flagged_share"] == round(row["flagged"] / row["runs"], 4)
        assert sum(sub["runs"] for sub in row["by_label"].values()) in (0, row["runs"])
    assert len(kinds["cheater"]["by_label"]) == 4  # two speeds, each with two detour counts


def test_every_run_was_ranked_and_reviewed_against_the_server_s_line(
    report: dict[str, Any],
) -> None:
    assert report["quick"] and report["all_ranked"] and report["line_known_share"] == 1.0
    assert 0 < report["review_cpu_p95_ms"] <= report["review_cpu_max_ms"]
    assert set(report["targets_met"]) == {
        "cheaters_flagged",
        "bots_flagged",
        "honest_flagged",
        "review_p95",
    }


def test_the_printed_report_has_a_row_per_kind_and_names_the_targets(
    report: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    print_fairplay(report)
    out = capsys.readouterr().out
    assert out.startswith("fairplay: mount_sunflower_easy deal ")
    assert "QUICK" in out and "honest runs flagged: " in out and "review, one core: p95 " in out
    rows = [line.split()[0] for line in out.splitlines()[3:6]]
    assert rows[0] == "honest" and rows[1] == "cheater"
    assert out.splitlines()[-1].startswith("targets: cheaters_flagged ")
