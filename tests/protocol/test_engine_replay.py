"""Replay: (game, options, deal number, actions) rebuilds the state, or names the first
action that is malformed or illegal; fingerprints say whether two positions are the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.games import rules_for
from protocol.notation import AUTO, DEAL, UNDO, parse_action
from protocol.replay import ReplayFailure, replay, replay_steps

SANIBEL = rules_for("sanibel")
SUNFLOWER = rules_for("mount_sunflower")
# Mount Sunflower deal 1: AS tops t0 and AH t1; after the deal 3S (t4) fits 4H (t0).
# A winning line of Mount Sunflower deal 18 (found by a search, kept as a regression).
WON_18 = Path(__file__).with_name("won-mount-sunflower-18.txt").read_text("utf-8").split("\n")
SUNFLOWER_1 = ["t0 1 f", "t1 1 f", "deal", "t4 1 t0", "undo", "auto"]


def test_replay_of_no_action_is_the_start() -> None:
    assert replay(SANIBEL, 1, []) == SANIBEL.start(1)


def test_replay_reaches_the_position_that_applying_the_actions_reaches() -> None:
    state = SUNFLOWER.start(1)
    for text in SUNFLOWER_1:
        state = SUNFLOWER.apply(state, parse_action(text)).state
    replayed = replay(SUNFLOWER, 1, SUNFLOWER_1)
    assert replayed.position == state.position
    assert replayed.position.fingerprint() == state.position.fingerprint()
    assert replayed.undo_depth == state.undo_depth == 4


def test_replay_takes_actions_as_values_as_well_as_text() -> None:
    assert replay(SANIBEL, 1, [DEAL, "deal", UNDO]) == replay(SANIBEL, 1, ["deal"])


def test_replay_steps_yield_the_start_then_one_state_per_action() -> None:
    steps = list(replay_steps(SUNFLOWER, 1, SUNFLOWER_1))
    assert len(steps) == len(SUNFLOWER_1) + 1
    assert steps[0] == SUNFLOWER.start(1)
    assert [step.last_action for step in steps[1:3]] == ["t0 1 f", "t1 1 f"]


def test_replay_stops_at_the_first_illegal_action() -> None:
    with pytest.raises(ReplayFailure) as caught:
        replay(SANIBEL, 1, ["deal", "deal", "deal", "deal", "undo"])
    failure = caught.value
    assert failure.as_dict() == {
        "index": 3,
        "action": "deal",
        "code": "stock_empty",
        "message": "the stock is empty",
    }


def test_replay_stops_at_a_malformed_action_with_its_code() -> None:
    with pytest.raises(ReplayFailure) as caught:
        replay(SANIBEL, 1, ["deal", "t0 1 t99"])
    assert (caught.value.index, caught.value.code) == (1, "malformed_pile")
    assert caught.value.action == "t0 1 t99"


def test_a_replay_failure_quotes_at_most_64_characters_of_the_action() -> None:
    with pytest.raises(ReplayFailure) as caught:
        replay(SANIBEL, 1, ["x" * 500])
    assert caught.value.action == "x" * 64
    assert caught.value.code == "malformed_action"


def test_replay_uses_the_options_of_the_rules() -> None:
    no_undo = rules_for("sanibel", {"undo": False})
    with pytest.raises(ReplayFailure) as caught:
        replay(no_undo, 1, ["deal", "undo"])
    assert caught.value.code == "undo_disabled"


def test_a_fingerprint_is_stable_hex_and_tells_positions_apart() -> None:
    start = SANIBEL.deal(1)
    assert len(start.fingerprint()) == 32
    assert int(start.fingerprint(), 16) >= 0
    assert start.fingerprint() == SANIBEL.deal(1).fingerprint()
    assert start.fingerprint() != replay(SANIBEL, 1, ["deal"]).position.fingerprint()
    turned = start._replace(face_down=(2,) + start.face_down[1:])
    assert turned.fingerprint() != start.fingerprint()
    moved = start._replace(waste=(), stock=start.waste + start.stock)
    assert moved.fingerprint() != start.fingerprint()


def test_a_winning_line_replays_to_a_won_game_with_every_move_counted() -> None:
    actions = [line for line in WON_18 if line]
    state, counted = SUNFLOWER.start(18), 0
    for text in actions:
        outcome = SUNFLOWER.apply(state, parse_action(text))
        state, counted = outcome.state, counted + outcome.counted
    assert replay(SUNFLOWER, 18, actions) == state
    assert SUNFLOWER.is_won(state.position)
    assert state.position.progress() == 52
    assert not SUNFLOWER.is_stuck(state)
    assert SUNFLOWER.legal_actions(state) == [UNDO]
    autos = actions.count(str(AUTO))
    assert autos > 0
    assert counted > len(actions)
