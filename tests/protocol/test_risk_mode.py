"""Risk mode in a race (docs/arenas.md, "Risk mode", sentence 10, and docs/protocol.md,
"Race info"): the racers the settings name play without undo, the others as the game's
options say; their views and replies say so; a log showing an undo by one of them does not
verify; the settings keep them through storage."""

from __future__ import annotations

from typing import Any

from harness import winning_actions
from hypothesis import given
from hypothesis import strategies as st
from races import make_race, started

from protocol.race import Ending, Now, RaceSettings
from protocol.race_views import public_log, racer_view
from protocol.verify import check_log

GAME, DEAL = "mount_sunflower", 18
WINS = winning_actions(GAME, DEAL)


def a_race_with_bob_in_risk_mode() -> Any:
    race = make_race(GAME, DEAL, max_players=2, nonce="ab" * 16, risk=("bob",))
    race.join("bob", "Bob")
    return started(race, at=0)


def test_a_racer_in_risk_mode_is_refused_undo_and_their_game_is_unchanged() -> None:
    race = a_race_with_bob_in_risk_mode()
    assert race.act("bob", 1, WINS[0], Now(10, 10)).ok
    before = race.racers["bob"].state
    refused = race.act("bob", 2, "undo", Now(20, 20))
    assert not refused.ok
    assert refused.reply["code"] == "undo_disabled"
    assert race.racers["bob"].state is before
    assert race.act("bob", 3, WINS[1], Now(30, 30)).ok  # and plays on


def test_a_racer_not_in_risk_mode_in_the_same_race_may_undo() -> None:
    race = a_race_with_bob_in_risk_mode()
    assert race.act("ann", 1, WINS[0], Now(10, 10)).ok
    assert race.act("ann", 2, "undo", Now(20, 20)).ok


def test_a_risk_racer_s_view_offers_no_undo_and_the_other_s_does() -> None:
    race = a_race_with_bob_in_risk_mode()
    for player in ("ann", "bob"):
        assert race.act(player, 1, WINS[0], Now(10, 10)).ok
    assert racer_view(race, "bob")["you"]["view"]["can_undo"] is False
    assert "undo" not in racer_view(race, "bob")["you"]["legal"]
    assert racer_view(race, "ann")["you"]["view"]["can_undo"] is True


def test_a_log_showing_an_undo_by_a_risk_racer_does_not_verify() -> None:
    race = make_race(GAME, DEAL, max_players=2, nonce="ab" * 16)
    race.join("bob", "Bob")
    started(race, at=0)
    for seq, action in enumerate([WINS[0], "undo", WINS[0]], start=1):
        assert race.act("bob", seq, action, Now(seq * 10, seq * 10)).ok
    race.retire("bob", Ending.RESIGNED, Now(500, 500))
    race.retire("ann", Ending.RESIGNED, Now(600, 600))
    log = public_log(race)
    assert check_log(log) == []
    log["settings"]["risk"] = ["bob"]  # as if Bob had raced in risk mode
    assert any("undo is switched off" in problem for problem in check_log(log))


def test_a_risk_racer_s_winning_log_verifies() -> None:
    race = a_race_with_bob_in_risk_mode()
    for seq, action in enumerate(WINS, start=1):
        assert race.act("bob", seq, action, Now(seq * 10, seq * 10)).ok
    race.retire("ann", Ending.RESIGNED, Now(99_000, 99_000))
    log = public_log(race)
    assert log["settings"]["risk"] == ["bob"]
    assert check_log(log) == []


@given(st.lists(st.sampled_from(["ann", "bob", "cy"]), unique=True).map(tuple))
def test_the_settings_keep_who_races_in_risk_mode_through_storage(risk: tuple[str, ...]) -> None:
    settings = RaceSettings(game=GAME, options={"undo": True}, deal=DEAL, risk=risk)
    assert RaceSettings.from_dict(settings.as_dict()) == settings
    assert settings.public_dict()["risk"] == list(risk)
