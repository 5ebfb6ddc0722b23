"""``solrace bench fairplay --quick`` runs end to end against a real server (a Redis of its
own, real accounts, ranked daily attempts, the moderators' reviews), and its report holds
together: every kind of player, shares that are shares, every run ranked and reviewed with
the server's line. No figure is held to a target here (``--quick`` plays at a fiftieth of
a person's pace)."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import time
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from bench import fairplaybench
from bench.fairplaybench import print_fairplay, solvable_deal
from bench.fairplayoffline import judged, kind_figures, print_offline
from bench.fairplaypeople import Plan
from bench.fairplaypeople import cheater as cheater_plan
from client.api import ServerError
from protocol.games import rules_for


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    command = [sys.executable, "-m", "solrace.cli", "bench", "fairplay", "--quick", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_every_kind_of_player_is_reported_with_its_share_flagged(report: dict[str, Any]) -> None:
    kinds = report["kinds"]
    assert list(kinds) == ["honest", "cheater", "bot", "knower", "lucky"]
    assert [kinds[kind]["runs"] for kind in kinds] == [4, 4, 1, 2, 1]
    for row in kinds.values():
        assert 0 <= row["flagged"] <= row["runs"] and 0 <= row["won"] <= row["runs"]
        assert row["flagged_share"] == round(row["flagged"] / row["runs"], 4)
        assert sum(sub["runs"] for sub in row["by_label"].values()) in (0, row["runs"])
    assert len(kinds["cheater"]["by_label"]) == 4  # two speeds, each with two detour counts
    assert len(kinds["knower"]["by_label"]) == 2  # a knower at each of the two speeds


def test_every_run_was_ranked_and_reviewed_against_the_server_s_line(
    report: dict[str, Any],
) -> None:
    assert report["quick"] and report["all_ranked"] and report["line_known_share"] == 1.0
    assert 0 < report["review_cpu_p95_ms"] <= report["review_cpu_max_ms"]
    assert set(report["targets_met"]) == {
        "cheaters_flagged",
        "bots_flagged",
        "knowers_flagged",
        "honest_flagged",
        "review_p95",
        "all_served",
    }
    assert report["not_served"] == [] and report["targets_met"]["all_served"]


def test_the_printed_report_has_a_row_per_kind_and_names_the_targets(
    report: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    print_fairplay(report)
    out = capsys.readouterr().out
    assert out.startswith("fairplay: mount_sunflower_easy deal ")
    assert "QUICK" in out and "honest runs flagged: " in out and "review, one core: p95 " in out
    rows = [line.split()[0] for line in out.splitlines()[3:]]
    assert rows[0] == "honest" and rows[1] == "cheater"
    assert "knower" in rows and "lucky" in rows
    assert out.splitlines()[-1].startswith("targets: cheaters_flagged ")


def test_the_offline_review_of_a_plan_is_the_server_s_and_each_kind_is_counted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--offline``'s review of a plan is the rule's, with its reveals; the report counts
    each kind and tries the reveals' thresholds (the figures are in docs/bench-notes.md)."""
    game = "mount_sunflower_easy"
    rules = rules_for(game)
    number, line = solvable_deal(game, random.Random(1))
    plan = cheater_plan(rules, rules.deal(number), list(line), random.Random(2), 918, 3)
    run = {**judged(game, number, line, plan), "player": 0}
    assert run["kind"] == "cheater" and run["won"] and run["kept_share"] == 1.0
    assert "solver_line" in run["reasons"] and run["blind"] >= 1
    row = kind_figures([run, {**run, "reasons": [], "z": 9.0, "blind": 10, "player": 1}])
    assert (row["runs"], row["won"], row["flagged"]) == (2, 2, 1)
    assert row["accounts"] <= 2 and len(row["account_z"]) in (0, 6)  # one run an account
    assert row["trials"]["z>=3.5 over >=10"] == 1 and row["trials"]["z>=3.5 over >=5"] >= 1
    kinds = {kind: row for kind in ("honest", "cheater", "bot", "lucky")}
    kinds["knower"] = kind_figures([])  # --knowers 0: a kind with no runs
    print_offline(
        {
            "deals": {game: [number]},
            "seconds": 1.0,
            "kinds": kinds,
            "review_cpu_p95_ms": 1.0,
            "review_cpu_max_ms": 2.0,
        }
    )
    out = capsys.readouterr().out
    assert "knower" in out and "z>=2.0 over >=5" in out and "review, one core: p95 1.0 ms" in out
    assert "knower -" in out.splitlines()[-2]  # no share of no runs


async def test_a_request_refused_as_busy_is_asked_again_ever_less_often_then_given_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[float] = []

    async def busy() -> None:
        asked.append(time.monotonic())
        raise ServerError("auth_rate_limited", "the server is busy signing others in", None)

    monkeypatch.setattr(fairplaybench, "REFUSED_S", 4.0)
    with pytest.raises(fairplaybench.NotServed, match="still auth_rate_limited after 4 s"):
        await fairplaybench.when_served(busy, "auth_rate_limited")
    pauses = [later - earlier for earlier, later in itertools.pairwise(asked)]
    assert 3 <= len(asked) <= 7 and pauses[-1] > 1.0  # 0.5 s doubling: not every 0.5-2 s


async def test_a_request_the_server_never_answers_is_named_and_its_run_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server that takes the connection and answers nothing: the bench does not wait
    forever (a run once did not end under load), it names the player and the request."""

    async def silent(connection: ServerConnection) -> None:
        async for _ in connection:
            pass

    monkeypatch.setattr(fairplaybench, "ANSWER_S", 0.5)
    plan = Plan("honest", "silent", (("t1 1 t2", 10),), False)
    async with serve(silent, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        runs = await fairplaybench.run_population(
            f"ws://127.0.0.1:{port}", [("mount_sunflower_easy", plan)], {}, 1.0
        )
    why = "player 0: connect not answered in 0.5 s"
    assert runs == [{"kind": "honest", "not_served": why}]
    result = fairplaybench.summary(runs)
    assert result["not_served"] == [why]
    assert result["kinds"]["honest"]["runs"] == 0 and not result["targets_met"]["all_served"]
