"""RULES.md, "Sanibel": the layout, the stock, the waste, Yukon-style group moves, empty
piles and the eight foundations."""

from __future__ import annotations

from positions import card_list, legal, play, refusal, state

from protocol import cards
from protocol.events import Dealt
from protocol.games import rules_for
from protocol.notation import WASTE_PILE

SANIBEL = rules_for("sanibel")


def test_the_standard_layout_is_ten_piles_of_3_down_and_7_up_then_waste_and_stock() -> None:
    dealt = SANIBEL.deal(1)
    assert [len(pile) for pile in dealt.tableau] == [10] * 10
    assert dealt.face_down == (3,) * 10
    assert len(dealt.waste) == 1
    assert len(dealt.stock) == 3
    assert len(dealt.foundations) == 8
    assert dealt.reserves == ()
    assert dealt.progress() == 0


def test_deal_turns_the_top_stock_card_face_up_onto_the_waste() -> None:
    outcome = play(SANIBEL, state(SANIBEL, waste="4C", stock="5S 6S"), "deal")
    after = outcome.state.position
    assert after.waste == card_list("4C 5S")
    assert after.stock == card_list("6S")
    assert outcome.events == [Dealt((WASTE_PILE,), card_list("5S"))]


def test_the_stock_is_turned_once_with_no_redeal() -> None:
    start = state(SANIBEL, waste="4C 5S 6S")
    error = refusal(SANIBEL, start, "deal")
    assert (error.code, error.message) == ("stock_empty", "the stock is empty")
    assert "deal" not in legal(SANIBEL, start)


def test_the_waste_card_may_go_on_a_tableau_pile_one_rank_higher_of_the_other_colour() -> None:
    start = state(SANIBEL, tableau=["8S"], waste="7H")
    assert "w 1 t0" in legal(SANIBEL, start)
    assert play(SANIBEL, start, "w 1 t0").state.position.tableau[0] == card_list("8S 7H")


def test_the_waste_card_must_fit_the_tableau_pile_it_goes_on() -> None:
    start = state(SANIBEL, tableau=["9S"], waste="7H")
    error = refusal(SANIBEL, start, "w 1 t0")
    assert error.code == "does_not_fit"
    assert error.message == "7♥ cannot go on 9♠: it needs an 8 of the other colour"
    assert "w 1 t0" not in legal(SANIBEL, start)


def test_the_waste_card_may_go_to_a_foundation() -> None:
    start = state(SANIBEL, foundations=["2D"], waste="3D")
    assert "w 1 f" in legal(SANIBEL, start)
    assert play(SANIBEL, start, "w 1 f").state.position.foundations[0][-1] == cards.parse("3D")


def test_only_the_top_card_of_the_waste_may_move() -> None:
    start = state(SANIBEL, tableau=["9S"], waste="8D 7H")
    error = refusal(SANIBEL, start, "w 2 t0")
    assert error.code == "group_not_movable"
    assert error.message == "only the top card of the waste may move"


def test_any_face_up_card_moves_with_every_card_on_top_of_it_in_sequence_or_not() -> None:
    start = state(SANIBEL, tableau=["QC | 8H 2S KD", "9S"])
    assert "t0 3 t1" in legal(SANIBEL, start)
    after = play(SANIBEL, start, "t0 3 t1").state.position
    assert after.tableau[1] == card_list("9S 8H 2S KD")
    assert after.tableau[0] == card_list("QC")
    assert after.face_down[0] == 0


def test_a_group_cannot_take_a_face_down_card_along() -> None:
    start = state(SANIBEL, tableau=["9H | 8H 2S", "10S"])
    assert refusal(SANIBEL, start, "t0 3 t1").code == "not_enough_cards"


def test_a_group_lands_on_a_card_one_rank_higher_of_the_other_colour() -> None:
    start = state(SANIBEL, tableau=["8H 2S", "9C"])
    assert play(SANIBEL, start, "t0 2 t1").state.position.tableau[1] == card_list("9C 8H 2S")


def test_a_group_cannot_land_on_a_card_of_the_same_colour() -> None:
    start = state(SANIBEL, tableau=["8H 2S", "9D"])
    error = refusal(SANIBEL, start, "t0 2 t1")
    assert (error.code, error.message) == (
        "does_not_fit",
        "8♥ cannot go on 9♦: it needs a 9 of the other colour",
    )
    assert "t0 2 t1" not in legal(SANIBEL, start)


def test_a_group_cannot_land_on_a_card_of_the_wrong_rank() -> None:
    start = state(SANIBEL, tableau=["8H", "10C"])
    assert refusal(SANIBEL, start, "t0 1 t1").message == (
        "8♥ cannot go on 10♣: it needs a 9 of the other colour"
    )


def test_a_king_goes_only_on_an_empty_pile() -> None:
    start = state(SANIBEL, tableau=["KS", "QH"])
    error = refusal(SANIBEL, start, "t0 1 t1")
    assert error.message == "K♠ cannot go on Q♥: a king goes only on an empty pile"
    assert "t0 1 t2" in legal(SANIBEL, start)


def test_a_pile_cannot_move_onto_itself() -> None:
    start = state(SANIBEL, tableau=["9C 8H"])
    assert refusal(SANIBEL, start, "t0 1 t0").code == "same_pile"


def test_an_empty_pile_takes_any_group() -> None:
    start = state(SANIBEL, tableau=["4D | 8H 2S"])
    after = play(SANIBEL, start, "t0 2 t1").state.position
    assert after.tableau[1] == card_list("8H 2S")
    assert after.tableau[0] == card_list("4D")


def test_an_empty_pile_takes_the_waste_card() -> None:
    start = state(SANIBEL, tableau=["9C"], waste="3H")
    assert play(SANIBEL, start, "w 1 t1").state.position.tableau[1] == card_list("3H")


def test_legal_actions_list_every_group_to_every_empty_pile_including_a_whole_pile() -> None:
    full = ["9C", "9C", "9C", "9C", "9C", "9C", "9C", "4D | 8H 2S"]
    start = state(SANIBEL, tableau=full)
    actions = legal(SANIBEL, start)
    for group in ("t7 1", "t7 2"):
        assert f"{group} t8" in actions
        assert f"{group} t9" in actions
    assert "t7 3 t8" not in actions
    assert "t0 1 t8" in actions


def test_a_tableau_top_card_may_go_to_a_foundation() -> None:
    start = state(SANIBEL, tableau=["AD"])
    assert play(SANIBEL, start, "t0 1 f").state.position.foundations[0] == card_list("AD")


def test_a_card_that_is_not_on_top_cannot_go_to_a_foundation() -> None:
    start = state(SANIBEL, tableau=["AD 7C"])
    assert refusal(SANIBEL, start, "t0 2 f").code == "one_card_to_foundation"
    assert "t0 1 f" not in legal(SANIBEL, start)


def test_there_are_eight_foundations_and_two_aces_of_a_suit_start_two_of_them() -> None:
    start = state(SANIBEL, foundations=["AS"], waste="AS")
    assert play(SANIBEL, start, "w 1 f").state.position.foundations[1] == card_list("AS")
    assert play(SANIBEL, start, "w 1 f7").state.position.foundations[7] == card_list("AS")


def test_sanibel_has_no_reserve() -> None:
    start = state(SANIBEL, tableau=["AS"])
    assert refusal(SANIBEL, start, "r0 1 t1").code == "unknown_pile"
    assert refusal(SANIBEL, start, "t0 1 r0").code == "wrong_destination"
