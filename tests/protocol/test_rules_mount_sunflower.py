"""RULES.md, "Mount Sunflower (1 deck) and Mount Sunflower Easy": the layout, building
regardless of suit, runs in one suit, the deal onto the seven piles, and the lock."""

from __future__ import annotations

import pytest
from positions import card_list, legal, play, refusal, state

from protocol.engine import Rules
from protocol.events import Dealt
from protocol.games import rules_for
from protocol.notation import TABLEAU_PILES

SUNFLOWER = rules_for("mount_sunflower")
EASY = rules_for("mount_sunflower_easy")
BOTH = pytest.mark.parametrize("rules", [SUNFLOWER, EASY], ids=lambda rules: rules.name)
FULL_ROW = ["KC", "KS", "KH", "KD", "QC", "QS", "QH"]


@BOTH
def test_the_layout_is_seven_piles_of_four_in_a_low_pyramid_and_a_24_card_stock(
    rules: Rules,
) -> None:
    dealt = rules.deal(1)
    assert [len(pile) for pile in dealt.tableau] == [4] * 7
    assert dealt.face_down == (3, 2, 1, 0, 1, 2, 3)
    assert len(dealt.stock) == 24
    assert len(dealt.foundations) == 4
    assert dealt.waste == ()
    assert dealt.reserves == ()


@BOTH
def test_a_card_goes_on_a_card_one_rank_higher_regardless_of_suit(rules: Rules) -> None:
    start = state(rules, tableau=["6C", "5H", "5C", "5S"])
    assert {"t1 1 t0", "t2 1 t0", "t3 1 t0"} <= set(legal(rules, start))
    assert play(rules, start, "t1 1 t0").state.position.tableau[0] == card_list("6C 5H")
    assert play(rules, start, "t2 1 t0").state.position.tableau[0] == card_list("6C 5C")


@BOTH
def test_a_card_cannot_go_on_a_card_that_is_not_one_rank_higher(rules: Rules) -> None:
    start = state(rules, tableau=["7C", "5H"])
    error = refusal(rules, start, "t1 1 t0")
    assert (error.code, error.message) == (
        "does_not_fit",
        "5♥ cannot go on 7♣: it needs a 6 of any suit",
    )
    assert refusal(rules, state(rules, tableau=["5C", "5H"]), "t1 1 t0").code == "does_not_fit"


@BOTH
def test_a_king_goes_only_on_an_empty_pile(rules: Rules) -> None:
    start = state(rules, tableau=["KD", "QS", "AH"])
    assert refusal(rules, start, "t0 1 t2").message == (
        "K♦ cannot go on A♥: a king goes only on an empty pile"
    )
    assert "t0 1 t3" in legal(rules, start)


@BOTH
def test_a_run_in_one_suit_moves_as_a_unit(rules: Rules) -> None:
    start = state(rules, tableau=["9D 8D 7D", "10C"])
    assert "t0 3 t1" in legal(rules, start)
    assert play(rules, start, "t0 3 t1").state.position.tableau[1] == card_list("10C 9D 8D 7D")


@BOTH
def test_an_upper_part_of_a_run_in_one_suit_may_move(rules: Rules) -> None:
    start = state(rules, tableau=["9D 8D 7D", "9S"])
    after = play(rules, start, "t0 2 t1").state.position
    assert after.tableau == (card_list("9D"), card_list("9S 8D 7D"), (), (), (), (), ())


@BOTH
def test_a_build_in_mixed_suits_never_moves_as_a_unit(rules: Rules) -> None:
    start = state(rules, tableau=["8D 7C", "9S", "", "8H"])
    error = refusal(rules, start, "t0 2 t1")
    assert (error.code, error.message) == (
        "group_not_movable",
        "only a run in one suit moves together, and 7♣ lies on 8♦",
    )
    assert "t0 2 t1" not in legal(rules, start)
    assert "t0 1 t3" in legal(rules, start)


@BOTH
def test_a_run_stops_at_the_first_card_out_of_suit_or_sequence(rules: Rules) -> None:
    start = state(rules, tableau=["9C 9D 8D 6D", "7S", "10H", "KC", "KS", "KH", "KD"])
    assert refusal(rules, start, "t0 2 t1").code == "group_not_movable"
    assert refusal(rules, start, "t0 3 t2").code == "group_not_movable"
    assert [a for a in legal(rules, start) if a.startswith("t0")] == ["t0 1 t1"]


@BOTH
def test_an_empty_pile_takes_any_movable_card_or_run(rules: Rules) -> None:
    start = state(rules, tableau=["KS", "9D 8D"])
    assert play(rules, start, "t1 2 t2").state.position.tableau[2] == card_list("9D 8D")
    assert play(rules, start, "t0 1 t3").state.position.tableau[3] == card_list("KS")


@BOTH
def test_an_empty_pile_refuses_a_build_in_mixed_suits(rules: Rules) -> None:
    start = state(rules, tableau=["8D 7C"])
    assert refusal(rules, start, "t0 2 t1").code == "group_not_movable"
    assert "t0 2 t1" not in legal(rules, start)


@BOTH
def test_there_are_four_foundations_in_suit(rules: Rules) -> None:
    start = state(rules, tableau=["AS", "2H"], foundations=["AC", "AH", "AD"])
    assert play(rules, start, "t0 1 f3").state.position.foundations[3] == card_list("AS")
    assert play(rules, start, "t1 1 f").state.position.foundations[1][-1] == card_list("2H")[0]
    assert refusal(rules, start, "t1 1 f0").code == "foundation_refuses"
    assert refusal(rules, start, "t0 1 f4").code == "unknown_pile"


@BOTH
def test_there_is_no_waste(rules: Rules) -> None:
    start = state(rules, tableau=["5S"])
    error = refusal(rules, start, "w 1 t0")
    assert (error.code, error.message) == ("unknown_pile", "this game has no pile w")
    assert refusal(rules, start, "t0 1 t7").code == "unknown_pile"


@BOTH
def test_deal_puts_one_card_face_up_on_each_of_the_seven_piles(rules: Rules) -> None:
    stock = "2C 3C 4C 5C 6C 7C 8C 9C 10C"
    outcome = play(rules, state(rules, tableau=FULL_ROW, stock=stock), "deal")
    after = outcome.state.position
    assert [pile[-1] for pile in after.tableau] == list(card_list(stock)[:7])
    assert after.stock == card_list("9C 10C")
    assert after.face_down == (0,) * 7
    assert outcome.events == [Dealt(TABLEAU_PILES[:7], card_list(stock)[:7])]


@BOTH
def test_the_last_deal_has_only_three_cards_for_t0_to_t2(rules: Rules) -> None:
    outcome = play(rules, state(rules, tableau=FULL_ROW, stock="2C 3C 4C"), "deal")
    after = outcome.state.position
    assert [len(pile) for pile in after.tableau] == [2, 2, 2, 1, 1, 1, 1]
    assert after.stock == ()
    assert outcome.events == [Dealt(TABLEAU_PILES[:3], card_list("2C 3C 4C"))]


@BOTH
def test_deal_is_refused_when_the_stock_is_empty(rules: Rules) -> None:
    start = state(rules, tableau=FULL_ROW)
    assert refusal(rules, start, "deal").code == "stock_empty"
    assert "deal" not in legal(rules, start)


def test_mount_sunflower_deals_only_while_no_tableau_pile_is_empty() -> None:
    start = state(SUNFLOWER, tableau=FULL_ROW[:6], stock="2C 3C")
    error = refusal(SUNFLOWER, start, "deal")
    assert (error.code, error.message) == (
        "deal_refused",
        "in Mount Sunflower you may deal only while no tableau pile is empty",
    )
    assert "deal" not in legal(SUNFLOWER, start)
    assert "deal" in legal(SUNFLOWER, state(SUNFLOWER, tableau=FULL_ROW, stock="2C"))


def test_mount_sunflower_easy_deals_at_any_time_while_the_stock_has_cards() -> None:
    start = state(EASY, tableau=FULL_ROW[:2], stock="2C 3C 4C 5C")
    assert "deal" in legal(EASY, start)
    after = play(EASY, start, "deal").state.position
    assert after.tableau[2] == card_list("4C")
    assert after.stock == ()


def test_the_standard_game_locks_with_no_card_left_in_the_tableau_and_cards_in_stock() -> None:
    locked = state(SUNFLOWER, foundations=["QC", "KS"], tableau=[], stock="KC")
    assert legal(SUNFLOWER, locked) == []
    assert SUNFLOWER.is_stuck(locked)
    assert not EASY.is_stuck(state(EASY, foundations=["QC", "KS"], stock="KC"))


def test_a_locked_standard_game_is_not_stuck_while_a_move_remains() -> None:
    few = state(SUNFLOWER, foundations=["JC", "KS", "KH", "KD"], tableau=["QC"], stock="KC")
    assert "deal" not in legal(SUNFLOWER, few)
    assert "t0 1 t1" in legal(SUNFLOWER, few)
    assert not SUNFLOWER.is_stuck(few)
