"""Commitments to deals and the check of a race's public log, pure: the commitment is the
documented hash, shown from the start and the same in every message; a log replays to its
result, and any change to a log (an action, a time, the deal, the nonce, the ranking) is
caught."""

from __future__ import annotations

import copy
import hashlib
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.fairness import commitment, commitment_bytes, daily_scope, race_scope
from protocol.games import rules_for
from protocol.race import Ending, Now, Race, RaceSettings
from protocol.race_views import public_info, public_log, race_result
from protocol.verify import check_log

WINS = Path(__file__).resolve().parents[1] / "data" / "wins"
NONCE = "0123456789abcdef0123456789abcdef"
START = 1_000_000  # the start signal, on both clocks


def win(game: str, deal: int) -> list[str]:
    lines = (WINS / f"{game}-{deal}.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def finished_race(**changes: Any) -> Race:
    """A race on Mount Sunflower 18: Ann wins with one detour undone, Bob plays ten
    actions and resigns, Cy plays nothing and drops out."""
    rules = rules_for("mount_sunflower", changes.pop("options", None))
    settings = RaceSettings(
        game="mount_sunflower",
        options=rules.options,
        deal=18,
        nonce=NONCE,
        max_players=3,
        **changes,
    )
    race = Race("r1", settings, rules, host="ann")
    for player in ("ann", "bob", "cy"):
        race.join(player, player.title())
    race.schedule_start(None, Now(START - settings.countdown_ms, START - settings.countdown_ms))
    race.begin()
    actions = win("mount_sunflower", 18)
    ann = actions[:5] + ["undo"] + actions[4:]
    for seq, action in enumerate(ann, start=1):
        at = START + 700 * seq
        assert race.act("ann", seq, action, Now(at, at)).ok
    for seq, action in enumerate(actions[:10], start=1):
        at = START + 900 * seq
        assert race.act("bob", seq, action, Now(at, at)).ok
    race.retire("bob", Ending.RESIGNED, Now(START + 20_000, START + 20_000))
    race.retire("cy", Ending.DROPPED, Now(START + 30_000, START + 30_000))
    return race


def test_the_commitment_is_the_sha256_of_the_documented_lines() -> None:
    lines = b"solrace-commitment-v1\nsanibel\nrace:r1\n" + b'{"down":3,"undo":true,"up":7}\n42\n'
    expected = hashlib.sha256(lines + NONCE.encode()).hexdigest()
    options = {"up": 7, "undo": True, "down": 3}  # any key order: the JSON sorts them
    assert commitment_bytes("sanibel", "race:r1", options, 42, NONCE) == lines + NONCE.encode()
    assert commitment("sanibel", "race:r1", options, 42, NONCE) == expected
    assert re.fullmatch(r"[0-9a-f]{64}", expected)


@given(
    st.sampled_from(["game", "scope", "options", "deal", "nonce"]),
    st.integers(min_value=1, max_value=2**31),
)
def test_a_commitment_changes_with_every_part_it_fixes(part: str, other_deal: int) -> None:
    parts: dict[str, Any] = {
        "game": "sanibel",
        "scope": daily_scope("2026-12-01"),
        "options": {"undo": True},
        "deal": 7,
        "nonce": NONCE,
    }
    changed = dict(parts)
    changed[part] = {
        "game": "shady_lanes",
        "scope": race_scope("2026-12-01"),
        "options": {"undo": False},
        "deal": other_deal if other_deal != 7 else 8,
        "nonce": NONCE[::-1],
    }[part]
    assert commitment(**parts) != commitment(**changed)


def test_a_race_shows_its_commitment_from_the_start_and_reveals_what_it_hides_at_the_end() -> None:
    rules = rules_for("sanibel")
    settings = RaceSettings(game="sanibel", options=rules.options, deal=99, nonce=NONCE)
    race = Race("r9", settings, rules, host="ann")
    race.join("ann", "Ann")
    info = public_info(race)
    assert info["commitment"] == commitment("sanibel", "race:r9", rules.options, 99, NONCE)
    assert info["deal"] is None and NONCE not in str(info)
    race.schedule_start(None, Now(0, 0))
    race.begin()
    race.retire("ann", Ending.RESIGNED, Now(5000, 5000))
    result = race_result(race)
    assert (result["deal"], result["nonce"]) == ("99", NONCE)
    assert result["commitment"] == info["commitment"]


def test_a_daily_run_commits_to_the_day_not_the_run_and_hides_its_nonce_all_day() -> None:
    race = finished_race(mode="daily", day="2026-12-01")
    scope = daily_scope("2026-12-01")
    assert race.commitment == commitment("mount_sunflower", scope, race.settings.options, 18, NONCE)
    log = public_log(race, today="2026-12-01")
    assert (log["deal"], log["nonce"], log["result"]["nonce"]) == (None, None, None)
    assert check_log(log) == [
        "the log does not show the deal and its nonce yet (its day is not over)"
    ]
    assert check_log(public_log(race, today="2026-12-02")) == []


def test_a_finished_race_s_log_replays_to_its_result() -> None:
    log = public_log(finished_race())
    assert [r["outcome"] for r in log["racers"]] == ["finished", "resigned", "dropped"]
    assert [e["name"] for e in log["result"]["ranking"]] == ["Ann", "Bob", "Cy"]
    assert log["racers"][0]["actions"][5][1] == "undo"  # the undo is in the log, as played
    assert check_log(log) == []


def test_a_race_where_a_player_is_stuck_replays_to_stuck() -> None:
    rules = rules_for("mount_sunflower", {"undo": False})
    settings = RaceSettings(
        game="mount_sunflower", options=rules.options, deal=1, nonce=NONCE, countdown_ms=0
    )
    race = Race("r2", settings, rules, host="ann")
    race.join("ann", "Ann")
    race.schedule_start(None, Now(0, 0))
    race.begin()
    choose = random.Random(1).choice  # random legal actions get this deal stuck in 15
    for seq in range(1, 400):
        state = race.racers["ann"].state
        assert state is not None
        assert race.act("ann", seq, str(choose(rules.legal_actions(state))), Now(seq, seq)).ok
        if race.racers["ann"].outcome is not None:
            break
    log = public_log(race)
    assert log["racers"][0]["outcome"] == "stuck"
    assert check_log(log) == []
    log["racers"][0]["actions"].pop()
    assert "Ann is said to be stuck but the replay has a legal action" in check_log(log)


def tampered(change: str) -> dict[str, Any]:
    log = copy.deepcopy(public_log(finished_race()))
    ann, bob = log["racers"][0], log["racers"][1]
    ranking = log["result"]["ranking"]
    match change:
        case "an illegal action":
            ann["actions"][0][1] = "t0 13 f"
        case "a faster time in the result than in the log":
            ranking[0]["time_ms"] -= 1
        case "an action dropped":
            del ann["actions"][6]
        case "actions out of order":
            ann["actions"][3], ann["actions"][4] = ann["actions"][4], ann["actions"][3]
        case "another deal":
            log["deal"] = "19"
        case "another nonce":
            log["nonce"] = NONCE[::-1]
        case "another commitment":
            log["commitment"] = log["result"]["commitment"] = "0" * 64
        case "the ranking reordered":
            ranking[1], ranking[2] = ranking[2], ranking[1]
        case "an action count lowered":
            ranking[0]["actions"] -= 1
        case "a loser said to have finished":
            bob["outcome"] = "finished"
        case "a racer missing from the ranking":
            ranking.pop()
    return log


@pytest.mark.parametrize(
    "change",
    [
        "an illegal action",
        "a faster time in the result than in the log",
        "an action dropped",
        "actions out of order",
        "another deal",
        "another nonce",
        "another commitment",
        "the ranking reordered",
        "an action count lowered",
        "a loser said to have finished",
        "a racer missing from the ranking",
    ],
)
def test_any_change_to_a_log_is_caught(change: str) -> None:
    problems = check_log(tampered(change))
    assert problems, f"{change} was not caught"
    assert all(isinstance(p, str) and p for p in problems)
