"""What a player may see: the masked position and the JSON view hide face-down cards and
the stock's order, and the legal actions follow from what is seen alone."""

from __future__ import annotations

import json

import pytest
from positions import card_list, play, state

from protocol.cards import HIDDEN
from protocol.engine import Rules
from protocol.games import GAMES, rules_for

SANIBEL = rules_for("sanibel")


def hidden_places(rules: Rules, number: int) -> None:
    """Assert that the masked deal has HIDDEN exactly where cards are face down or in stock."""
    dealt = rules.deal(number)
    masked = dealt.masked()
    for pile, seen, down in zip(dealt.tableau, masked.tableau, dealt.face_down, strict=True):
        assert seen[:down] == (HIDDEN,) * down
        assert seen[down:] == pile[down:]
        assert HIDDEN not in pile
    assert masked.stock == (HIDDEN,) * len(dealt.stock)
    assert (masked.foundations, masked.reserves, masked.waste) == (
        dealt.foundations,
        dealt.reserves,
        dealt.waste,
    )


@pytest.mark.parametrize("game", list(GAMES))
def test_the_masked_deal_hides_exactly_the_face_down_and_stock_cards(game: str) -> None:
    for number in (1, 32000, 10**20 - 1):
        hidden_places(rules_for(game), number)


def test_the_masked_position_keeps_the_shape_and_the_counts() -> None:
    dealt = SANIBEL.deal(1)
    masked = dealt.masked()
    assert masked.face_down == dealt.face_down
    assert [len(p) for p in masked.tableau] == [len(p) for p in dealt.tableau]
    assert len(masked.stock) == 3


def test_the_json_view_lists_face_up_cards_only_and_counts_the_rest() -> None:
    dealt = SANIBEL.deal(1)
    view = dealt.view_json()
    assert view["tableau"][0] == ["7D", "3S", "QS", "4S", "AD", "3H", "10S"]
    assert view["face_down"] == [3] * 10
    assert view["waste"] == ["4C"]
    assert view["stock"] == 3
    assert view["foundations"] == [[]] * 8
    assert "??" not in json.dumps(view)
    assert view == dealt.masked().view_json()


def test_the_json_view_of_shady_lanes_shows_the_reserves() -> None:
    view = rules_for("shady_lanes").deal(2).view_json()
    assert view["reserves"] == [["7D"], ["3S"], ["QS"], ["7S"]]
    assert view["stock"] == 95


def test_the_view_says_whether_undo_is_available() -> None:
    start = SANIBEL.start(1)
    assert SANIBEL.view(start).can_undo is False
    dealt = play(SANIBEL, start, "deal").state
    assert SANIBEL.view(dealt).can_undo is True
    no_undo = rules_for("sanibel", {"undo": False})
    assert no_undo.view(play(no_undo, no_undo.start(1), "deal").state).can_undo is False


@pytest.mark.parametrize("game", list(GAMES))
def test_the_legal_actions_from_the_view_equal_those_from_the_full_state(game: str) -> None:
    rules = rules_for(game)
    for number in (1, 2, 3, 32000):
        start = rules.start(number)
        assert rules.legal_actions_in_view(rules.view(start)) == rules.legal_actions(start)


def test_a_revealed_card_appears_in_the_view_only_once_it_is_face_up() -> None:
    start = state(SANIBEL, tableau=["5C 3D | 8H", "9S"])
    assert card_list("3D")[0] not in SANIBEL.view(start).position.tableau[0]
    after = play(SANIBEL, start, "t0 1 t1").state
    assert SANIBEL.view(after).position.tableau[0] == (HIDDEN,) + card_list("3D")
