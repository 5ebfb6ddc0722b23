"""The registry of games and their options: Sanibel's layout option from the inventor's
note, ``undo`` for every game, and refusals with stable codes."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.cards import HIDDEN
from protocol.errors import BadGame
from protocol.games import GAMES, rules_for


def test_the_games_are_found_by_their_stable_names() -> None:
    assert list(GAMES) == ["sanibel", "shady_lanes", "mount_sunflower", "mount_sunflower_easy"]
    for name in GAMES:
        assert rules_for(name).name == name


def test_the_standard_options_are_three_down_seven_up_with_undo() -> None:
    assert rules_for("sanibel").options == {"undo": True, "down": 3, "up": 7}
    assert rules_for("sanibel", {}).options == rules_for("sanibel", None).options
    assert rules_for("shady_lanes").options == {"undo": True}


def test_sanibel_zero_down_ten_up_deals_every_card_face_up_except_the_last_four() -> None:
    rules = rules_for("sanibel", {"down": 0, "up": 10})
    dealt = rules.deal(1)
    assert sum(len(pile) for pile in dealt.tableau) == 100
    assert dealt.face_down == (0,) * 10
    assert HIDDEN not in [card for pile in dealt.masked().tableau for card in pile]
    assert len(dealt.waste) == 1
    assert len(dealt.stock) == 3


def test_sanibel_with_fewer_rounds_leaves_the_rest_in_the_stock() -> None:
    rules = rules_for("sanibel", {"down": 2, "up": 5})
    dealt = rules.deal(1)
    assert [len(pile) for pile in dealt.tableau] == [7] * 10
    assert dealt.face_down == (2,) * 10
    assert len(dealt.waste) == 1
    assert len(dealt.stock) == 33


def test_the_layout_option_keeps_the_order_of_the_cards() -> None:
    standard, open_ = (
        rules_for("sanibel").deal(5),
        rules_for("sanibel", {"down": 0, "up": 10}).deal(5),
    )
    assert open_.tableau == standard.tableau
    assert open_.face_down == (0,) * 10


@pytest.mark.parametrize(
    "options",
    [
        {"down": -1},
        {"up": 0},
        {"down": 5, "up": 6},
        {"down": 0, "up": 11},
        {"down": "3"},
        {"down": 3.0},
        {"down": True},
        {"up": None},
        {"undo": 1},
        {"undo": "yes"},
        {"colour": "red"},
    ],
)
def test_bad_sanibel_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadGame) as caught:
        rules_for("sanibel", options)
    assert caught.value.code == "bad_options"


def test_the_refusal_of_an_option_says_what_is_allowed() -> None:
    with pytest.raises(BadGame) as caught:
        rules_for("shady_lanes", {"down": 3})
    assert caught.value.message == "shady_lanes has no option 'down'; its options are undo"
    with pytest.raises(BadGame) as caught:
        rules_for("sanibel", {"down": 8, "up": 7})
    assert caught.value.message == (
        "Sanibel deals at most 10 rounds: 'down' from 0 and 'up' from 1, together at most 10"
    )
    with pytest.raises(BadGame) as caught:
        rules_for("mount_sunflower", {"undo": "no"})
    assert caught.value.message == "option 'undo' must be true or false"


@pytest.mark.parametrize("game", ["shady_lanes", "mount_sunflower", "mount_sunflower_easy"])
def test_only_sanibel_has_a_layout_option(game: str) -> None:
    assert rules_for(game, {"undo": False}).undo_allowed is False
    with pytest.raises(BadGame) as caught:
        rules_for(game, {"up": 10})
    assert caught.value.code == "bad_options"


@pytest.mark.parametrize("game", ["klondike", "", "Sanibel", "sanibel ", None, 201])
def test_an_unknown_game_is_refused(game: object) -> None:
    with pytest.raises(BadGame) as caught:
        rules_for(game)  # type: ignore[arg-type]
    assert caught.value.code == "unknown_game"
    assert caught.value.message.endswith(
        "is not a game here; the games are sanibel, shady_lanes, mount_sunflower, "
        "mount_sunflower_easy"
    )
