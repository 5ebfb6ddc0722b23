"""RULES.md, "Common ground": cards, face-down cards, foundations, auto, undo, dealing,
won and stuck. Each rule sentence has a test of what it allows and of what it refuses."""

from __future__ import annotations

from collections import Counter

import pytest
from positions import legal, play, position, refusal, state

from protocol import cards
from protocol.engine import GameState, Rules
from protocol.events import Dealt, Moved, Revealed, Undone
from protocol.games import GAMES, rules_for
from protocol.notation import FOUNDATION_PILES, TABLEAU_PILES, WASTE_PILE

SANIBEL = rules_for("sanibel")
SHADY_LANES = rules_for("shady_lanes")
SUNFLOWER = rules_for("mount_sunflower")


# ---------------------------------------------------------------- cards


@pytest.mark.parametrize("game", list(GAMES))
def test_a_deal_holds_each_card_once_per_deck(game: str) -> None:
    rules = rules_for(game)
    dealt = rules.deal(7)
    every_card = [
        card
        for group in (dealt.tableau, dealt.foundations, dealt.reserves, (dealt.waste, dealt.stock))
        for pile in group
        for card in pile
    ]
    assert len(every_card) == 52 * rules.decks
    assert Counter(every_card) == Counter(cards.deck(rules.decks))
    assert set(Counter(every_card).values()) == {rules.decks}


# ---------------------------------------------------------------- face-down cards


def test_a_face_down_card_turns_face_up_when_it_becomes_the_top_of_its_pile() -> None:
    start = state(SANIBEL, tableau=["5C 3D | 8H", "9S"])
    outcome = play(SANIBEL, start, "t0 1 t1")
    assert outcome.state.position.tableau[0] == (cards.parse("5C"), cards.parse("3D"))
    assert outcome.state.position.face_down[0] == 1
    assert outcome.events[-1] == Revealed(TABLEAU_PILES[0], cards.parse("3D"))


def test_a_card_under_a_face_up_card_stays_face_down() -> None:
    start = state(SANIBEL, tableau=["5C 3D | 8H 7S", "8D"])
    outcome = play(SANIBEL, start, "t0 1 t1")
    assert outcome.state.position.face_down[0] == 2
    assert not any(isinstance(event, Revealed) for event in outcome.events)


def test_a_face_down_card_can_never_be_moved() -> None:
    start = state(SANIBEL, tableau=["5C 3D | 8H", "", "4S"])
    error = refusal(SANIBEL, start, "t0 2 t1")
    assert error.code == "not_enough_cards"
    assert error.message == "t0 has only 1 face-up card to move"
    assert "t0 2 t1" not in legal(SANIBEL, start)


def test_a_face_down_card_cannot_be_moved_in_mount_sunflower_either() -> None:
    start = state(SUNFLOWER, tableau=["7D | 6D", "7C"])
    assert refusal(SUNFLOWER, start, "t0 2 t1").code == "not_enough_cards"
    assert "t0 1 t1" in legal(SUNFLOWER, start)


# ---------------------------------------------------------------- foundations


def test_any_ace_may_start_any_empty_foundation() -> None:
    start = state(SANIBEL, waste="AH")
    for index, pile in enumerate(FOUNDATION_PILES):
        after = play(SANIBEL, start, f"w 1 {pile}").state.position
        assert after.foundations[index] == (cards.parse("AH"),)


def test_an_ace_cannot_go_on_a_foundation_that_holds_cards() -> None:
    start = state(SANIBEL, foundations=["AS"], waste="AH")
    error = refusal(SANIBEL, start, "w 1 f0")
    assert error.code == "foundation_refuses"
    assert error.message == "A♥ cannot go to f0: an ace needs an empty foundation"


def test_a_card_other_than_an_ace_cannot_start_a_foundation() -> None:
    start = state(SANIBEL, waste="2S")
    error = refusal(SANIBEL, start, "w 1 f")
    assert error.code == "foundation_refuses"
    assert error.message == "2♠ cannot go to a foundation: it needs A♠ on top"
    assert "w 1 f" not in legal(SANIBEL, start)


def test_a_foundation_takes_the_next_rank_of_the_same_suit() -> None:
    start = state(SANIBEL, foundations=["AS"], waste="2S")
    after = play(SANIBEL, start, "w 1 f0").state.position
    assert after.foundations[0] == (cards.parse("AS"), cards.parse("2S"))


def test_a_foundation_refuses_the_next_rank_of_another_suit() -> None:
    start = state(SANIBEL, foundations=["AS"], waste="2C")
    error = refusal(SANIBEL, start, "w 1 f0")
    assert (error.code, error.message) == (
        "foundation_refuses",
        "2♣ cannot go to f0: it needs A♣ on top",
    )


def test_a_foundation_refuses_a_card_that_skips_a_rank() -> None:
    start = state(SANIBEL, foundations=["AS"], waste="3S")
    assert refusal(SANIBEL, start, "w 1 f0").code == "foundation_refuses"


def test_a_foundation_is_built_up_to_the_king() -> None:
    start = state(SANIBEL, foundations=["QS"], waste="KS")
    after = play(SANIBEL, start, "w 1 f").state.position
    assert len(after.foundations[0]) == 13


def test_any_foundation_picks_the_lowest_numbered_foundation_that_accepts() -> None:
    start = state(SANIBEL, foundations=["3C", "AS", "", "AS"], waste="2S")
    after = play(SANIBEL, start, "w 1 f").state.position
    assert after.foundations[1][-1] == cards.parse("2S")
    assert after.foundations[3][-1] == cards.parse("AS")


@pytest.mark.parametrize("rules", [SANIBEL, SHADY_LANES, SUNFLOWER], ids=lambda r: r.name)
def test_a_card_on_a_foundation_never_leaves_it(rules: Rules) -> None:
    start = state(rules, foundations=["5H"], tableau=["", "6C"])
    for action in ("f0 1 t0", "f0 1 t1", "f 1 t0", "f0 1 f1"):
        assert refusal(rules, start, action).code == "foundation_is_final"
    assert not any(text.startswith("f") for text in legal(rules, start))


def test_cards_go_to_a_foundation_one_at_a_time() -> None:
    start = state(SANIBEL, tableau=["2S AS"])
    error = refusal(SANIBEL, start, "t0 2 f")
    assert error.code == "one_card_to_foundation"
    assert play(SANIBEL, start, "t0 1 f").state.position.foundations[0] == (cards.parse("AS"),)


# ---------------------------------------------------------------- auto


def test_auto_moves_cards_to_the_foundations_one_at_a_time_while_any_can_go() -> None:
    start = state(SANIBEL, tableau=["AS", "5D 3S", "9C"], waste="2S")
    outcome = play(SANIBEL, start, "auto")
    after = outcome.state.position
    assert after.foundations[0] == tuple(cards.parse(c) for c in ("AS", "2S", "3S"))
    assert after.tableau[:3] == ((), (cards.parse("5D"),), (cards.parse("9C"),))
    assert outcome.events == [
        Moved(TABLEAU_PILES[0], FOUNDATION_PILES[0], (cards.parse("AS"),)),
        Moved(WASTE_PILE, FOUNDATION_PILES[0], (cards.parse("2S"),)),
        Moved(TABLEAU_PILES[1], FOUNDATION_PILES[0], (cards.parse("3S"),)),
    ]
    assert outcome.counted == 3


def test_auto_plays_a_card_it_has_just_turned_face_up() -> None:
    start = state(SANIBEL, tableau=["2S | AS"])
    outcome = play(SANIBEL, start, "auto")
    assert outcome.state.position.foundations[0] == (cards.parse("AS"), cards.parse("2S"))
    assert outcome.counted == 2


def test_auto_takes_from_the_reserves_and_refills_them() -> None:
    start = state(SHADY_LANES, reserves=["AD", "9C"], tableau=["5S"], waste="2D", stock="3D")
    outcome = play(SHADY_LANES, start, "auto")
    after = outcome.state.position
    assert after.foundations[0] == tuple(cards.parse(c) for c in ("AD", "2D", "3D"))
    assert outcome.counted == 3


def test_auto_is_listed_when_a_card_can_go_to_a_foundation() -> None:
    assert "auto" in legal(SANIBEL, state(SANIBEL, tableau=["AS"]))


def test_auto_is_refused_when_no_card_can_go_to_a_foundation() -> None:
    start = state(SANIBEL, tableau=["2S"], waste="5H", stock="AS")
    error = refusal(SANIBEL, start, "auto")
    assert (error.code, error.message) == ("nothing_to_auto", "no card can go to a foundation now")
    assert "auto" not in legal(SANIBEL, start)


def test_auto_never_plays_a_face_down_card_or_a_stock_card() -> None:
    start = state(SUNFLOWER, tableau=["AS | 9H", "AH | 8C"], stock="AC AD")
    assert refusal(SUNFLOWER, start, "auto").code == "nothing_to_auto"


# ---------------------------------------------------------------- undo


def test_undo_takes_back_the_last_action_and_turns_the_revealed_card_face_down() -> None:
    start = state(SANIBEL, tableau=["5C 3D | 8H", "9S"])
    moved = play(SANIBEL, start, "t0 1 t1")
    assert "undo" in legal(SANIBEL, moved.state)
    undone = play(SANIBEL, moved.state, "undo")
    assert undone.state.position == start.position
    assert undone.state.position.face_down[0] == 2
    assert undone.state.position.fingerprint() == start.position.fingerprint()


def test_undo_puts_a_dealt_card_back_in_the_stock() -> None:
    start = SANIBEL.start(1)
    after = play(SANIBEL, start, "deal", "undo").state.position
    assert after.stock == start.position.stock
    assert after.waste == start.position.waste


def test_undo_takes_back_a_whole_auto_as_one_action() -> None:
    start = state(SANIBEL, tableau=["AS", "5D 3S"], waste="2S")
    assert play(SANIBEL, start, "auto", "undo").state.position == start.position


def test_undo_walks_back_one_action_at_a_time() -> None:
    start = state(SANIBEL, tableau=["8H", "9S", "10D"], stock="4C 5C")
    first = play(SANIBEL, start, "t0 1 t1")
    second = play(SANIBEL, first.state, "t1 2 t2")
    once = play(SANIBEL, second.state, "undo")
    assert once.state.position == first.state.position
    assert play(SANIBEL, once.state, "undo").state.position == start.position


def test_undoing_reveals_nothing_new() -> None:
    start = state(SANIBEL, tableau=["5C 3D | 8H", "9S"])
    undone = play(SANIBEL, start, "t0 1 t1", "undo")
    assert undone.events == [Undone("t0 1 t1")]
    assert SANIBEL.view(undone.state).position == SANIBEL.view(start).position


def test_each_undo_counts_as_an_action() -> None:
    assert play(SANIBEL, SANIBEL.start(1), "deal", "undo").counted == 1


def test_undo_is_refused_when_there_is_nothing_to_undo() -> None:
    start = SANIBEL.start(1)
    error = refusal(SANIBEL, start, "undo")
    assert (error.code, error.message) == ("nothing_to_undo", "there is nothing to undo")
    assert "undo" not in legal(SANIBEL, start)


def test_undo_is_refused_when_the_race_switches_it_off() -> None:
    rules = rules_for("sanibel", {"undo": False})
    dealt = play(rules, rules.start(1), "deal").state
    error = refusal(rules, dealt, "undo")
    assert (error.code, error.message) == ("undo_disabled", "undo is switched off in this game")
    assert "undo" not in legal(rules, dealt)
    assert "undo" in legal(SANIBEL, play(SANIBEL, SANIBEL.start(1), "deal").state)


# ---------------------------------------------------------------- no automatic dealing


def test_emptying_the_waste_does_not_turn_the_stock() -> None:
    start = state(SANIBEL, waste="KS", stock="5H")
    after = play(SANIBEL, start, "w 1 t0").state.position
    assert after.waste == ()
    assert after.stock == (cards.parse("5H"),)


def test_emptying_a_tableau_pile_does_not_deal() -> None:
    start = state(SUNFLOWER, tableau=["5H", "6C", "2S", "2H", "4S", "4H", "8C"], stock="9D")
    after = play(SUNFLOWER, start, "t0 1 t1").state.position
    assert after.tableau[0] == ()
    assert after.stock == (cards.parse("9D"),)


def test_deal_is_the_players_action_and_reports_the_card() -> None:
    outcome = play(SANIBEL, state(SANIBEL, stock="5H 6H"), "deal")
    assert outcome.events == [Dealt((WASTE_PILE,), (cards.parse("5H"),))]


# ---------------------------------------------------------------- won and stuck


def test_a_game_is_won_when_every_card_is_on_the_foundations() -> None:
    won = state(SUNFLOWER, foundations=["KC", "KS", "KH", "KD"])
    assert SUNFLOWER.is_won(won.position)
    assert not SUNFLOWER.is_stuck(won)
    assert legal(SUNFLOWER, won) == []


def test_a_game_is_not_won_while_a_card_is_off_the_foundations() -> None:
    almost = state(SUNFLOWER, foundations=["KC", "KS", "KH", "QD"], tableau=["KD"])
    assert not SUNFLOWER.is_won(almost.position)
    assert not SUNFLOWER.is_stuck(almost)
    assert "t0 1 f" in legal(SUNFLOWER, almost)


def test_a_two_deck_game_is_won_only_with_all_104_cards_home() -> None:
    suits = ["KC", "KS", "KH", "KD"]
    assert SANIBEL.is_won(position(SANIBEL, foundations=suits * 2))
    assert not SANIBEL.is_won(position(SANIBEL, foundations=suits + suits[:3]))


LOCKED = ["2S", "4S", "6S", "8S", "10S", "QS", "2H"]


def test_a_position_is_stuck_when_no_action_but_undo_is_legal() -> None:
    locked = position(SUNFLOWER, tableau=LOCKED)
    fresh = GameState(locked)
    with_history = GameState(locked, GameState(locked), "t0 1 t1")
    assert SUNFLOWER.is_stuck(fresh)
    assert legal(SUNFLOWER, fresh) == []
    assert SUNFLOWER.is_stuck(with_history)
    assert legal(SUNFLOWER, with_history) == ["undo"]


def test_a_position_with_a_move_left_is_not_stuck() -> None:
    open_move = state(SUNFLOWER, tableau=["2S", "4S", "6S", "8S", "10S", "QS", "KH"])
    assert legal(SUNFLOWER, open_move) == ["t5 1 t6"]
    assert not SUNFLOWER.is_stuck(open_move)


def test_a_deal_left_in_the_stock_keeps_a_position_from_being_stuck() -> None:
    dealable = state(SUNFLOWER, tableau=LOCKED, stock="9H")
    assert legal(SUNFLOWER, dealable) == ["deal"]
    assert not SUNFLOWER.is_stuck(dealable)
