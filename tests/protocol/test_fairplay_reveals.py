"""Clairvoyance, measured (protocol/fairplay_reveals.py, docs/fairness.md "Measured, not
kept: clairvoyance"): one test per sentence of what the signal counts, on a hand-made
Mount Sunflower Easy position, and a property on random deals of every game: the signal
reads no hidden card the player never turned up."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import make
from protocol.errors import IllegalAction
from protocol.fairplay import reasons, signals_of
from protocol.fairplay_reveals import Reveals, reveals_of
from protocol.games import GAMES, rules_for
from protocol.notation import parse_action
from protocol.position import Position

EASY = rules_for("mount_sunflower_easy")
ACE_D, TWO_C = make(1, 3), make(2, 0)


def table(under_t0: int, under_t2: int, stock: tuple[int, ...] = ()) -> Position:
    """Two face-down cards, under t0 (its 5♠ may go onto t1's 6♥) and under t2 (its 9♣
    may go onto t3's 10♦); t1's 6♥ may go onto t6's 7♣; kings elsewhere; the foundations
    empty."""
    tableau = (
        (under_t0, make(5, 1)),
        (make(6, 2),),
        (under_t2, make(9, 0)),
        (make(10, 3),),
        (make(13, 0),),
        (make(13, 1),),
        (make(7, 0),),
    )
    return Position(tableau, (1, 0, 1, 0, 0, 0, 0), ((),) * 4, (), (), stock)


def legal(start: Position, run: list[str]) -> list[str]:
    """``run``, checked to be legal from ``start`` (the rules would refuse it otherwise)."""
    positions = [start]
    for action in run:
        if action == "undo":
            positions.pop()
        else:
            positions.append(EASY.play(positions[-1], parse_action(action))[0])
    return run


def test_a_move_that_turns_up_an_unseen_card_is_a_blind_reveal_lucky_when_useful() -> None:
    # the ace turned up goes home at once; the 2 under t2 would have had no move there
    assert reveals_of(
        EASY, table(ACE_D, TWO_C), legal(table(ACE_D, TWO_C), ["t0 1 t1"])
    ) == Reveals(1, 1, 0.5, 0.25)


def test_a_useless_card_turned_up_is_a_blind_reveal_that_was_not_lucky() -> None:
    assert reveals_of(EASY, table(TWO_C, ACE_D), ["t0 1 t1"]) == Reveals(1, 0, 0.5, 0.25)


def test_its_chance_is_the_share_of_every_unseen_card_useful_there_the_stock_s_too() -> None:
    # unseen after the move: the 2 under t2 and three stock cards, two of them aces
    stock = (make(1, 0), make(2, 2), make(1, 2))
    assert reveals_of(EASY, table(ACE_D, TWO_C, stock), ["t0 1 t1"]).expected == 0.6


def test_moves_that_turn_up_nothing_and_deals_are_no_blind_reveals() -> None:
    start = table(ACE_D, TWO_C, (make(3, 0),) * 7)
    assert reveals_of(EASY, start, legal(start, ["t1 1 t6", "deal"])) == Reveals()


def test_cards_auto_turns_up_are_no_blind_reveals() -> None:
    # auto sends the A♠ home, turns up the 2♠ under it and sends it home too
    start = table(ACE_D, TWO_C)
    tableau = ((make(2, 1), make(1, 1)), *start.tableau[1:])
    start = start._replace(tableau=tableau)
    assert reveals_of(EASY, start, legal(start, ["auto"])) == Reveals()


def test_a_card_seen_then_hidden_by_undo_is_known_turning_it_up_again_is_not_blind() -> None:
    run = legal(table(ACE_D, TWO_C), ["t0 1 t1", "undo", "t0 1 t1"])
    assert reveals_of(EASY, table(ACE_D, TWO_C), run) == Reveals(1, 1, 0.5, 0.25)


def test_a_card_seen_through_a_probe_and_undo_is_no_longer_among_the_unseen() -> None:
    # it sees the 2 under t0 (a blind reveal, not lucky: the ace was the other unseen
    # card), takes it back, turns up t2's ace: the 2 is known, so the ace was certain
    run = legal(table(TWO_C, ACE_D), ["t0 1 t1", "undo", "t2 1 t3"])
    assert reveals_of(EASY, table(TWO_C, ACE_D), run) == Reveals(2, 1, 1.5, 0.25)


def test_stock_cards_dealt_then_taken_back_are_no_longer_among_the_unseen() -> None:
    aces_and_threes = (make(1, 0), make(1, 1), make(1, 2), *(make(3, suit) for suit in range(4)))
    start = table(ACE_D, TWO_C, aces_and_threes)
    # unseen: the 2 under t2 and the 7 stock cards, 3 of them aces: (1 + 3) / 9
    assert reveals_of(EASY, start, legal(start, ["t0 1 t1"])).expected == 0.444
    run = legal(start, ["deal", "undo", "t0 1 t1"])
    assert reveals_of(EASY, start, run) == Reveals(1, 1, 0.5, 0.25)


def test_an_action_the_rules_refuse_ends_the_count() -> None:
    with pytest.raises(IllegalAction):
        legal(table(ACE_D, TWO_C), ["t4 1 t5"])
    assert reveals_of(EASY, table(ACE_D, TWO_C), ["t4 1 t5", "t0 1 t1"]) == Reveals()


def test_z_is_how_many_standard_deviations_the_lucky_reveals_lie_above_expectation() -> None:
    assert Reveals(4, 4, 2.0, 1.0).z() == 2.0
    assert Reveals(1, 1, 1.0, 0.0).z() is None  # no spread: no z


def test_the_signals_keep_the_reveals_and_one_run_s_flag_nothing_however_lucky() -> None:
    lucky = Reveals(30, 30, 10.0, 6.0)
    actions = [("t0 1 t1", 2_000), ("t1 1 t6", 4_500)]
    signals = signals_of(actions, False, 4_500, None, reveals=lucky)
    assert (signals.blind_reveals, signals.lucky_reveals, signals.lucky_expected) == (30, 30, 10.0)
    assert signals.lucky_z == round(20 / 6**0.5, 2)
    assert reasons(signals) == []


def never_seen_swap(rules_name: str, seed: int, length: int) -> tuple[Reveals, Reveals]:
    """A random legal run (its picks from the view alone) on a random deal, and the same
    run on that deal with two hidden cards it never turned up exchanged: both reveals."""
    rules, rng = rules_for(rules_name), random.Random(seed)
    start = rules.deal(rng.randrange(1, 1_000_000))
    position, actions, seen = start, list[str](), set(visible(start))
    for _ in range(length):
        legal = [str(a) for a in rules.moves(position.masked())]
        if not legal:
            break
        action = rng.choice(legal)
        position = rules.play(position, parse_action(action))[0]
        actions.append(action)
        seen |= set(visible(position))
    hidden = [(i, p) for i, down in enumerate(start.face_down) for p in range(down)]
    hidden = [(i, p) for i, p in hidden if start.tableau[i][p] not in seen]
    if len(hidden) < 2:
        return Reveals(), Reveals()
    (a, pa), (b, pb) = rng.sample(hidden, 2)
    tableau = [list(pile) for pile in start.tableau]
    tableau[a][pa], tableau[b][pb] = tableau[b][pb], tableau[a][pa]
    other = start._replace(tableau=tuple(map(tuple, tableau)))
    return reveals_of(rules, start, actions), reveals_of(rules, other, actions)


def visible(position: Position) -> list[int]:
    """The cards face up in ``position``."""
    shown = position.masked()
    return (
        [card for pile in shown.tableau for card in pile]
        + list(shown.waste)
        + [card for pile in shown.reserves for card in pile]
    )


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(GAMES)), st.integers(0, 2**32), st.integers(5, 80))
def test_hidden_cards_never_turned_up_change_nothing(game: str, seed: int, length: int) -> None:
    before, after = never_seen_swap(game, seed, length)
    assert before == after
