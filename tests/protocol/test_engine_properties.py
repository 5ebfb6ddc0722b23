"""Properties of the engine over random playouts of all four games: cards are conserved,
replay reproduces the position, the legal list is exactly what ``apply`` accepts, views
hide what they must, and ``undo`` goes back exactly one action.

A playout is a game, its options, a deal number and a list of choices; choice ``k`` picks
``auto`` when ``k % 4 == 0`` and auto is legal, else ``legal[k // 4 % len(legal)]``.
Playouts are short (at most 100 actions) and examples few, so the file runs in seconds;
shrinking still finds the shortest failing playout.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any, NamedTuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import position

from protocol import cards
from protocol.cards import HIDDEN
from protocol.deals import MAX_DEAL
from protocol.engine import GameState, Outcome, Rules, useful_by_moves
from protocol.errors import IllegalAction
from protocol.events import Dealt, Moved, Refilled, Revealed
from protocol.games import rules_for
from protocol.notation import (
    ANY_FOUNDATION,
    AUTO,
    DEAL,
    FOUNDATION,
    RESERVE,
    TABLEAU,
    UNDO,
    WASTE,
    Action,
    Move,
    parse_pile,
)
from protocol.position import Position
from protocol.replay import replay

CONFIGURATIONS: list[tuple[str, dict[str, Any]]] = [
    ("sanibel", {}),
    ("sanibel", {"down": 0, "up": 10}),
    ("shady_lanes", {}),
    ("mount_sunflower", {}),
    ("mount_sunflower_easy", {}),
    ("mount_sunflower", {"undo": False}),
]
RULES = [rules_for(game, options) for game, options in CONFIGURATIONS]
PILE_NAMES = ["s", "w", "f"] + [f"f{i}" for i in range(8)]
PILE_NAMES += [f"r{i}" for i in range(4)] + [f"t{i}" for i in range(10)]
PILES = [parse_pile(name) for name in PILE_NAMES]
REFUSAL_CODES = {
    "malformed_action",
    "stock_empty",
    "deal_refused",
    "undo_disabled",
    "nothing_to_undo",
    "empty_source",
    "not_enough_cards",
    "group_not_movable",
    "one_card_to_foundation",
    "unknown_pile",
    "same_pile",
    "does_not_fit",
    "fill_refused",
    "wrong_destination",
    "foundation_is_final",
    "wrong_source",
    "foundation_refuses",
    "nothing_to_auto",
}
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Step(NamedTuple):
    before: GameState
    action: Action
    outcome: Outcome


class Playout(NamedTuple):
    rules: Rules
    number: int
    steps: list[Step]
    end: GameState

    def states(self) -> Iterator[GameState]:
        yield from (step.before for step in self.steps)
        yield self.end


@st.composite
def playouts(draw: st.DrawFn, max_steps: int = 100) -> Playout:
    rules = draw(st.sampled_from(RULES))
    number = draw(st.one_of(st.integers(1, 31999), st.integers(32000, MAX_DEAL)))
    choices = draw(st.lists(st.integers(0, 1 << 16), min_size=max_steps // 2, max_size=max_steps))
    state = rules.start(number)
    steps = []
    for choice in choices:
        legal = rules.legal_actions(state)
        if not legal:
            break
        # One choice in four plays ``auto`` when it can, so playouts reach the foundations.
        if choice % 4 == 0 and AUTO in legal:
            action: Action = AUTO
        else:
            action = legal[(choice >> 2) % len(legal)]
        outcome = rules.apply(state, action)
        steps.append(Step(state, action, outcome))
        state = outcome.state
    return Playout(rules, number, steps, state)


def every_card(position: Position) -> Counter[int]:
    piles = (*position.tableau, *position.foundations, *position.reserves)
    return Counter(card for pile in (*piles, position.waste, position.stock) for card in pile)


def visible_cards(position: Position) -> set[int]:
    tableau = zip(position.tableau, position.face_down, strict=True)
    shown = {card for pile, down in tableau for card in pile[down:]}
    for pile in (*position.foundations, *position.reserves, position.waste):
        shown.update(pile)
    return shown


# ---------------------------------------------------------------- conservation and replay


@PROPERTY
@given(playouts())
def test_cards_are_conserved_and_face_down_cards_lie_under_a_face_up_card(
    playout: Playout,
) -> None:
    deck = Counter(cards.deck(playout.rules.decks))
    for state in playout.states():
        position = state.position
        assert every_card(position) == deck
        for pile, down in zip(position.tableau, position.face_down, strict=True):
            assert 0 <= down < len(pile) or (down == 0 and not pile)


@PROPERTY
@given(playouts())
def test_replay_of_the_actions_in_the_notation_reproduces_the_position(playout: Playout) -> None:
    written = [str(step.action) for step in playout.steps]
    replayed = replay(playout.rules, playout.number, written)
    assert replayed.position == playout.end.position
    assert replayed.position.fingerprint() == playout.end.position.fingerprint()


# ---------------------------------------------------------------- the legal list


@PROPERTY
@given(playouts(max_steps=60))
def test_every_listed_action_applies_and_the_list_has_no_repeats(playout: Playout) -> None:
    rules = playout.rules
    for state in playout.states():
        legal = rules.legal_actions(state)
        assert len(set(legal)) == len(legal)
        for action in legal:
            rules.apply(state, action)


def candidates(position: Position) -> Iterator[Action]:
    """Every ``SRC N DST`` over all the notation's piles for N from 0 to 3 and for each
    tableau pile's face-up count and one more; then ``deal``, ``auto``, ``undo``."""
    counts = {0, 1, 2, 3}
    for pile, down in zip(position.tableau, position.face_down, strict=True):
        counts.update((len(pile) - down, len(pile) - down + 1))
    for src in PILES:
        for count in sorted(counts):
            for dst in PILES:
                yield Move(src, count, dst)
    yield from (DEAL, AUTO, UNDO)


def top_card(position: Position, move: Move) -> int | None:
    index = move.src.index
    if move.src.kind == WASTE:
        pile = position.waste
    elif move.src.kind == RESERVE and index is not None:
        pile = position.reserves[index]
    elif move.src.kind == TABLEAU and index is not None:
        pile = position.tableau[index]
    else:
        return None
    return pile[-1] if pile else None


def accepted_by_the_rules(
    rules: Rules, position: Position, listed: set[Action], action: Action
) -> bool:
    """What RULES.md accepts, given the legal list: the listed actions, and a listed
    ``SRC 1 f`` sent to a numbered foundation that takes the card."""
    if action in listed:
        return True
    if not isinstance(action, Move) or action.dst.kind != FOUNDATION or action.dst.index is None:
        return False
    if Move(action.src, action.count, ANY_FOUNDATION) not in listed:
        return False
    if action.dst.index >= rules.foundation_piles:
        return False
    card = top_card(position, action)
    assert card is not None
    home = position.foundations[action.dst.index]
    same_suit = not home or cards.suit(home[-1]) == cards.suit(card)
    return same_suit and cards.rank(card) == len(home) + 1


def states_worth_probing(playout: Playout) -> list[GameState]:
    """The last state, and the first and last with an empty tableau pile or reserve (where
    the rules about empty piles apply); the state halfway when there is none."""
    states = list(playout.states())
    with_gaps = [
        state
        for state in states
        if not all(state.position.tableau) or not all(state.position.reserves)
    ]
    chosen = with_gaps[:1] + with_gaps[-1:] if with_gaps else [states[len(states) // 2]]
    return chosen + [playout.end]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(playouts(max_steps=40))
def test_an_action_not_listed_is_refused_with_a_code(playout: Playout) -> None:
    rules = playout.rules
    for state in states_worth_probing(playout):
        listed = set(rules.legal_actions(state))
        for action in candidates(state.position):
            expected = accepted_by_the_rules(rules, state.position, listed, action)
            try:
                rules.apply(state, action)
            except IllegalAction as error:
                assert not expected, f"{action} is listed but refused: {error.code}"
                assert error.code in REFUSAL_CODES
                assert error.message
            else:
                assert expected, f"{action} is accepted but not listed"


@PROPERTY
@given(playouts())
def test_stuck_means_not_won_with_no_action_but_undo(playout: Playout) -> None:
    rules = playout.rules
    for state in playout.states():
        others = [a for a in rules.legal_actions(state) if a != UNDO]
        assert rules.is_stuck(state) == (not others and not rules.is_won(state.position))


# ---------------------------------------------------------------- views


@PROPERTY
@given(playouts())
def test_no_view_shows_a_face_down_card_or_the_order_of_the_stock(playout: Playout) -> None:
    rules = playout.rules
    for state in playout.states():
        position, seen = state.position, rules.view(state).position
        piles = zip(position.tableau, seen.tableau, position.face_down, strict=True)
        for pile, shown, down in piles:
            assert shown == (HIDDEN,) * down + pile[down:]
        assert seen.stock == (HIDDEN,) * len(position.stock)
        assert (seen.foundations, seen.reserves, seen.waste) == (
            position.foundations,
            position.reserves,
            position.waste,
        )
        assert HIDDEN not in [c for p in (*seen.foundations, *seen.reserves, seen.waste) for c in p]
        view = position.view_json()
        assert "??" not in json.dumps(view)
        assert view["stock"] == len(position.stock)
        assert view == seen.view_json()


@PROPERTY
@given(playouts())
def test_the_legal_actions_from_the_view_equal_those_from_the_full_state(
    playout: Playout,
) -> None:
    rules = playout.rules
    for state in playout.states():
        assert rules.legal_actions_in_view(rules.view(state)) == rules.legal_actions(state)


@PROPERTY
@given(playouts())
def test_events_name_only_cards_that_are_face_up_after_the_action(playout: Playout) -> None:
    for step in playout.steps:
        shown = visible_cards(step.outcome.state.position)
        for event in step.outcome.events:
            if isinstance(event, Moved | Dealt):
                named = set(event.cards)
            elif isinstance(event, Revealed | Refilled):
                named = {event.card}
            else:
                named = set()
            assert named <= shown


# ---------------------------------------------------------------- undo


@PROPERTY
@given(playouts())
def test_undo_restores_the_position_before_the_last_action(playout: Playout) -> None:
    rules = playout.rules
    if not rules.undo_allowed:
        assert all(step.action != UNDO for step in playout.steps)
        return
    for step in playout.steps:
        if step.action == UNDO:
            continue
        undone = rules.apply(step.outcome.state, UNDO)
        assert undone.state == step.before
        assert undone.state.position.fingerprint() == step.before.position.fingerprint()
        assert undone.counted == 1


# ---------------------------------------------------------------- useful tops

VALUES = cards.deck(1)


@settings(PROPERTY, max_examples=20)
@given(playouts().filter(lambda playout: type(playout.rules).useful_tops is not Rules.useful_tops))
def test_a_game_s_own_useful_tops_answer_as_its_legal_moves_do(playout: Playout) -> None:
    """``Rules.useful_tops`` as a game answers it (Sanibel and Mount Sunflower answer
    without listing moves) says of every card on every pile what the legal moves of the
    position with that card on top say (`useful_by_moves`, the interface's own answer)."""
    rules = playout.rules
    for state in list(playout.states())[::4]:  # listing moves per card value is slow
        at = state.position
        for index, pile in enumerate(at.tableau):
            if len(pile) <= at.face_down[index]:
                continue  # no face-up top: no card is turned up there
            fast, listed = rules.useful_tops(at, index), useful_by_moves(rules, at, index)
            assert [fast(card) for card in VALUES] == [listed(card) for card in VALUES]


def test_the_waste_s_top_makes_a_sanibel_card_useful_when_it_would_go_on_it() -> None:
    """A case random playouts seldom reach: only the waste's 8♣ would go on t0's top."""
    sanibel = rules_for("sanibel")
    kings = ["KS", "KH"] * 4 + ["KC"]
    at_start = position(sanibel, tableau=["KD | 2S", *kings], waste="8C")
    fast = sanibel.useful_tops(at_start, 0)
    assert fast(cards.parse("9D")) and fast(cards.parse("9H"))
    assert not fast(cards.parse("9S")) and not fast(cards.parse("5D"))
    listed = useful_by_moves(sanibel, at_start, 0)
    assert [fast(card) for card in VALUES] == [listed(card) for card in VALUES]
