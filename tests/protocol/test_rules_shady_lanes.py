"""RULES.md, "Shady Lanes": the sheet's rules on PySolFC's deal. Reserves that refill
themselves, a tableau that takes one card at a time, and empty piles filled from a reserve
only."""

from __future__ import annotations

from positions import card_list, legal, play, refusal, state

from protocol.events import Dealt, Moved, Refilled
from protocol.games import rules_for
from protocol.notation import (
    FOUNDATION_PILES,
    RESERVE_PILES,
    STOCK_PILE,
    TABLEAU_PILES,
    WASTE_PILE,
)

SHADY = rules_for("shady_lanes")


def test_the_layout_is_a_card_on_each_reserve_and_tableau_pile_one_on_the_waste() -> None:
    dealt = SHADY.deal(2)
    assert dealt.reserves == tuple(card_list(c) for c in ("7D", "3S", "QS", "7S"))
    assert dealt.tableau == tuple(card_list(c) for c in ("7H", "10D", "9H", "9D"))
    assert dealt.face_down == (0, 0, 0, 0)
    assert dealt.waste == card_list("JD")
    assert len(dealt.stock) == 95
    assert len(dealt.foundations) == 8


# ---------------------------------------------------------------- foundations


def test_any_ace_goes_to_any_empty_foundation() -> None:
    start = state(SHADY, reserves=["AH"], foundations=["AS", "AH"], stock="9C")
    after = play(SHADY, start, "r0 1 f6").state.position
    assert after.foundations[6] == card_list("AH")


def test_a_foundation_goes_up_in_suit() -> None:
    start = state(SHADY, tableau=["2H", "2D"], foundations=["AH"])
    assert play(SHADY, start, "t0 1 f0").state.position.foundations[0] == card_list("AH 2H")
    error = refusal(SHADY, start, "t1 1 f0")
    assert (error.code, error.message) == (
        "foundation_refuses",
        "2♦ cannot go to f0: it needs A♦ on top",
    )


def test_a_foundation_holds_at_most_thirteen_cards() -> None:
    start = state(SHADY, reserves=["AS"], foundations=["KS"], stock="9C")
    assert refusal(SHADY, start, "r0 1 f0").code == "foundation_refuses"
    assert play(SHADY, start, "r0 1 f").state.position.foundations[1] == card_list("AS")


def test_a_card_never_comes_back_off_a_foundation() -> None:
    start = state(SHADY, foundations=["5H"], tableau=["6S"])
    error = refusal(SHADY, start, "f0 1 t0")
    assert (error.code, error.message) == (
        "foundation_is_final",
        "cards on a foundation never leave it",
    )


# ---------------------------------------------------------------- reserves


def test_no_card_may_be_put_into_a_reserve() -> None:
    start = state(SHADY, reserves=["", "9C"], tableau=["5H"], waste="6D")
    for action in ("t0 1 r0", "w 1 r0", "r1 1 r0", "t0 1 r1"):
        error = refusal(SHADY, start, action)
        assert (error.code, error.message) == (
            "wrong_destination",
            "no card may be moved into a reserve",
        )


def test_a_reserve_card_may_go_on_a_tableau_pile_by_the_build() -> None:
    start = state(SHADY, reserves=["7H"], tableau=["8S"], waste="2C")
    assert "r0 1 t0" in legal(SHADY, start)
    assert play(SHADY, start, "r0 1 t0").state.position.tableau[0] == card_list("8S 7H")


def test_a_reserve_card_must_fit_the_non_empty_pile_it_goes_on() -> None:
    start = state(SHADY, reserves=["7H"], tableau=["8D", "9C", "10H", "6S"])
    error = refusal(SHADY, start, "r0 1 t0")
    assert error.message == "7♥ cannot go on 8♦: it needs an 8 of the other colour"
    assert [a for a in legal(SHADY, start) if a.startswith("r0")] == []


def test_a_reserve_card_may_fill_an_empty_tableau_pile_with_any_card() -> None:
    start = state(SHADY, reserves=["QD"], tableau=["", "5C"], waste="2C")
    assert "r0 1 t0" in legal(SHADY, start)
    assert play(SHADY, start, "r0 1 t0").state.position.tableau[0] == card_list("QD")


def test_a_reserve_card_may_go_to_a_foundation() -> None:
    start = state(SHADY, reserves=["AC"], waste="2C")
    assert "r0 1 f" in legal(SHADY, start)
    assert play(SHADY, start, "r0 1 f").state.position.foundations[0] == card_list("AC")


def test_an_emptied_reserve_takes_the_top_card_of_the_waste() -> None:
    start = state(SHADY, reserves=["7H"], tableau=["8S"], waste="2C 9D", stock="4S")
    outcome = play(SHADY, start, "r0 1 t0")
    after = outcome.state.position
    assert after.reserves[0] == card_list("9D")
    assert after.waste == card_list("2C")
    assert after.stock == card_list("4S")
    assert outcome.events == [
        Moved(RESERVE_PILES[0], TABLEAU_PILES[0], card_list("7H")),
        Refilled(RESERVE_PILES[0], WASTE_PILE, card_list("9D")[0]),
    ]


def test_an_emptied_reserve_takes_the_top_of_the_stock_when_the_waste_is_empty() -> None:
    start = state(SHADY, reserves=["", "AH"], stock="4S 5S")
    outcome = play(SHADY, start, "r1 1 f")
    assert outcome.state.position.reserves[1] == card_list("4S")
    assert outcome.state.position.stock == card_list("5S")
    assert outcome.events[-1] == Refilled(RESERVE_PILES[1], STOCK_PILE, card_list("4S")[0])


def test_an_emptied_reserve_stays_empty_when_waste_and_stock_are_empty() -> None:
    start = state(SHADY, reserves=["AH"], tableau=["9C"])
    outcome = play(SHADY, start, "r0 1 f")
    assert outcome.state.position.reserves[0] == ()
    assert outcome.events == [Moved(RESERVE_PILES[0], FOUNDATION_PILES[0], card_list("AH"))]
    assert refusal(SHADY, outcome.state, "r0 1 t1").code == "empty_source"


# ---------------------------------------------------------------- tableau


def test_the_tableau_builds_down_by_alternate_colour() -> None:
    start = state(SHADY, tableau=["8S", "7H"])
    assert play(SHADY, start, "t1 1 t0").state.position.tableau[0] == card_list("8S 7H")


def test_the_tableau_refuses_a_card_of_the_same_colour() -> None:
    start = state(SHADY, tableau=["8S", "7C"])
    error = refusal(SHADY, start, "t1 1 t0")
    assert error.message == "7♣ cannot go on 8♠: it needs an 8 of the other colour"


def test_only_one_card_moves_at_a_time_never_a_sequence() -> None:
    start = state(SHADY, tableau=["9H 8S", "10C", "", "7D"])
    error = refusal(SHADY, start, "t0 2 t1")
    assert (error.code, error.message) == (
        "group_not_movable",
        "in Shady Lanes only one card moves at a time, never a sequence",
    )
    assert "t0 2 t1" not in legal(SHADY, start)
    assert "t3 1 t0" in legal(SHADY, start)


def test_a_tableau_top_card_may_go_to_a_foundation() -> None:
    start = state(SHADY, tableau=["5C AD"])
    assert play(SHADY, start, "t0 1 f").state.position.foundations[0] == card_list("AD")


def test_an_empty_tableau_pile_cannot_be_filled_from_another_tableau_pile() -> None:
    start = state(SHADY, tableau=["8S 7H", ""])
    error = refusal(SHADY, start, "t0 1 t1")
    assert (error.code, error.message) == (
        "fill_refused",
        "an empty tableau pile may be filled only from a reserve",
    )
    assert "t0 1 t1" not in legal(SHADY, start)


def test_the_waste_card_cannot_fill_an_empty_tableau_pile() -> None:
    start = state(SHADY, tableau=["", "9S"], waste="5D")
    assert refusal(SHADY, start, "w 1 t0").code == "fill_refused"
    assert "w 1 t0" not in legal(SHADY, start)


def test_the_waste_card_may_go_on_a_non_empty_tableau_pile() -> None:
    start = state(SHADY, tableau=["8C"], waste="7H")
    assert "w 1 t0" in legal(SHADY, start)
    assert play(SHADY, start, "w 1 t0").state.position.tableau[0] == card_list("8C 7H")


def test_the_waste_card_may_go_to_a_foundation() -> None:
    start = state(SHADY, foundations=["", "9S"], waste="10S")
    assert play(SHADY, start, "w 1 f").state.position.foundations[1][-1] == card_list("10S")[0]


def test_only_the_top_card_of_the_waste_may_move() -> None:
    start = state(SHADY, tableau=["9S"], waste="8D 7H")
    assert refusal(SHADY, start, "w 2 t0").code == "group_not_movable"


# ---------------------------------------------------------------- stock


def test_deal_turns_one_stock_card_onto_the_waste() -> None:
    outcome = play(SHADY, state(SHADY, waste="JD", stock="QS QC"), "deal")
    assert outcome.state.position.waste == card_list("JD QS")
    assert outcome.state.position.stock == card_list("QC")
    assert outcome.events == [Dealt((WASTE_PILE,), card_list("QS"))]


def test_the_stock_is_turned_once() -> None:
    start = state(SHADY, waste="JD QS")
    assert refusal(SHADY, start, "deal").code == "stock_empty"
    assert "deal" not in legal(SHADY, start)
