"""An arena's signed final result against forgeries (protocol/verify_arena.py): a valid
result of four heats (one won in risk mode, one with an undo, one whose race never
opened) checks; every field of its log, heats and standings changed, one at a time and in
pairs, is refused; so is each heat's race log changed, dropped or swapped, and a signed
result refuses every change."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from harness import winning_actions
from hypothesis import given, settings
from hypothesis import strategies as st
from races import started
from test_verify_mutations import mutate, paths

from protocol.arena import HeatResult, Racer, entry_as_dict, entry_from_dict, heat_from_runs
from protocol.games import rules_for
from protocol.race import Ending, Now, Race, RaceSettings
from protocol.race_views import public_log, race_runs
from protocol.signing import Signer, signature_problem
from protocol.verify_arena import BadArenaResult, check_arena, final_result

GAME, DEAL, FIRST_DEAL = "mount_sunflower", 18, 1
ARENA = "mount_sunflower-hourly-20261206T0400"
SIGNER = Signer.new()
KEYS = {SIGNER.key_id: SIGNER.public_hex}
WINS = winning_actions(GAME, DEAL)


def heat(heat_id: str, players: list[str], risk: tuple[str, ...] = (), deal: int = DEAL) -> Race:
    rules = rules_for(GAME)
    race_settings = RaceSettings(
        game=GAME,
        options=rules.options,
        deal=deal,
        max_players=len(players),
        ranked=True,
        paired=True,
        arena=ARENA,
        risk=risk,
        nonce="ab" * 16,
    )
    race = Race(heat_id, race_settings, rules, host=players[0])
    for player in players:
        race.join(player, player.title())
    return started(race, at=0)


def played(race: Race, winner: str, actions: list[str]) -> Race:
    """``winner`` plays ``actions`` (a win); everyone else two actions, then resigns."""
    for seq, action in enumerate(actions, start=1):
        assert race.act(winner, seq, action, Now(seq * 10, seq * 10)).ok
    for player in race.racers:
        if player != winner:
            for seq, action in enumerate(actions[:2], start=1):
                assert race.act(player, seq, action, Now(seq * 15, seq * 15)).ok
            race.retire(player, Ending.RESIGNED, Now(9_000, 9_000))
    return race


def a_valid_arena() -> tuple[dict[str, Any], dict[str, dict[str, Any] | None]]:
    """Wave 1 (deal 1): Ann wins in risk mode against Bob. Wave 2 (deal 18): Cy wins with
    an undo against Ann (risk), Dee against Bob, and Eve and Fay's heat never opened."""
    first = winning_actions(GAME, FIRST_DEAL)
    races = [
        played(heat("h1", ["ann", "bob"], risk=("ann",), deal=FIRST_DEAL), "ann", first),
        played(heat("h2", ["cy", "ann"], risk=("ann",)), "cy", [*WINS[:2], "undo", *WINS[1:]]),
        played(heat("h3", ["dee", "bob"]), "dee", WINS),
    ]
    entries: list[HeatResult] = []
    for race in races:
        undos = {p: sum(e.action == "undo" for e in r.log) for p, r in race.racers.items()}
        runs = race_runs(race)
        entries.append(heat_from_runs(race.id, runs, frozenset(race.settings.risk), undos))
    entries.append(HeatResult("h4", (Racer("eve", 1, False, 0, 0), Racer("fay", 2, False, 0, 0))))
    heats = [
        {"heat": "h1", "wave": 1, "racers": ["ann", "bob"]},
        {"heat": "h2", "wave": 2, "racers": ["cy", "ann"]},
        {"heat": "h3", "wave": 2, "racers": ["dee", "bob"]},
        {"heat": "h4", "wave": 2, "racers": ["eve", "fay"]},
    ]
    arena = {
        "arena": ARENA,
        "game": GAME,
        "start_ms": 0,
        "length_ms": 1_800_000,
        "heat_size": 2,
        "made_by": "calendar",
        "status": "ended",
    }
    result = json.loads(json.dumps(final_result(arena, heats, entries)))
    logs: dict[str, dict[str, Any] | None] = {
        race.id: json.loads(json.dumps(public_log(race, arena_over=True))) for race in races
    }
    logs["h4"] = None
    return result, logs


VALID, LOGS = a_valid_arena()
PATHS = [path for path in paths(VALID) if path[0] in ("heats", "log", "standings", "status")]


def test_a_valid_arena_checks_and_its_standings_score_the_risk_win() -> None:
    assert check_arena(VALID, LOGS) == []
    ann = next(line for line in VALID["standings"] if line["player"] == "ann")
    assert (ann["risk_wins"], ann["risk_heats"], ann["points"]) == (1, 2, 4)  # 2 + risk 2


def refused(result: Any, logs: dict[str, Any] = LOGS) -> bool:
    try:
        return bool(check_arena(result, logs))
    except BadArenaResult:
        return True


def claims(result: dict[str, Any]) -> str:
    """What a result claims: its log's entries as read (a field left out reads as its
    default), its standings, and each heat's racers. (Not which wave a heat was in: the
    check holds only that heats of one wave played one deal, and waves run 1, 2, ...)"""
    entries = [entry_as_dict(entry_from_dict(fields)) for fields in result["log"]]
    heats = [(h["heat"], h["racers"]) for h in result["heats"]]
    return json.dumps([entries, result["standings"], heats, result["status"]], sort_keys=True)


@pytest.mark.parametrize("how", [0, 1, 2])
@pytest.mark.parametrize("path", PATHS, ids=lambda path: "/".join(map(str, path)))
def test_each_changed_field_of_the_result_is_refused_or_claims_nothing_new(
    path: tuple[Any, ...], how: int
) -> None:
    result = copy.deepcopy(VALID)
    mutate(result, path, how)
    assert refused(result) or claims(result) == claims(VALID)


def test_heats_of_one_wave_on_two_deals_are_refused() -> None:
    result = copy.deepcopy(VALID)
    result["heats"][0]["wave"] = 2  # h1 was on deal 1, wave 2's heats on deal 18
    assert refused(result)


changes = st.lists(
    st.tuples(st.sampled_from(PATHS), st.integers(0, 2)), min_size=1, max_size=2, unique=True
)


@settings(max_examples=300, deadline=None)
@given(changes)
def test_a_signed_result_changed_anywhere_is_refused(edits: list[tuple[Any, int]]) -> None:
    result = SIGNER.sign(copy.deepcopy(VALID))
    signed = copy.deepcopy(result)
    for path, how in edits:
        try:
            mutate(result, path, how)
        except (KeyError, IndexError, TypeError):
            return  # the first change removed the second's place
    if result == signed:
        return  # the changes undid each other
    assert refused(result) or signature_problem(result, KEYS) is not None


def test_a_heat_s_log_dropped_is_refused_unless_its_race_never_opened() -> None:
    assert refused(VALID, {**LOGS, "h2": None})
    assert not refused(VALID, {**LOGS, "h4": None})


def test_a_heat_s_log_swapped_for_another_heat_s_is_refused() -> None:
    assert refused(VALID, {**LOGS, "h3": LOGS["h1"]})


def test_a_heat_s_log_changed_is_refused() -> None:
    log = copy.deepcopy(LOGS["h1"])
    assert log is not None
    log["racers"][0]["actions"].pop()  # Ann's winning action gone
    assert refused(VALID, {**LOGS, "h1": log})


def test_a_heat_of_another_arena_is_refused() -> None:
    log = copy.deepcopy(LOGS["h3"])
    assert log is not None
    log["settings"]["arena"] = "sanibel-hourly-20261206T0400"
    assert refused(VALID, {**LOGS, "h3": log})


def test_a_risk_racer_s_undo_makes_the_result_refused() -> None:
    log = copy.deepcopy(LOGS["h2"])
    assert log is not None
    log["settings"]["risk"] = ["ann", "cy"]  # Cy undid: he cannot have been in risk mode
    assert refused(VALID, {**LOGS, "h2": log})


@pytest.mark.parametrize("bad", [[], "text", {"arena": ARENA}, {**VALID, "heats": [1]}])
def test_what_is_not_an_arena_result_is_one_sentence(bad: Any) -> None:
    with pytest.raises(BadArenaResult) as error:
        check_arena(bad, LOGS)
    assert error.value.message.startswith("this is not an arena's result: ")
