"""Undo stays exact with the compact history (protocol/history.py): random playouts with
many undos give the same positions, views, legal actions, events, refusals, ``can_undo``,
undo depths and equalities as the straightforward chain of whole states the engine kept
before (``Chain`` below, a few lines), in every game, with undo on and off, back to the
start, and with a checkpoint every 1, 2, 3 and 8 actions as well as every
``CHECKPOINT_EVERY``.

A playout's choice ``k`` plays a burst of ``1 + (k >> 4) % 12`` undos when ``k % 10 == 0``
(sent even where undo is refused, and then refused the same way by both), else the legal
action ``legal[(k >> 4) % len(legal)]`` other than undo (undo when it is all there is).
Playouts of up to 160 choices go a few dozen actions deep, past several checkpoints.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import history
from protocol.deals import MAX_DEAL
from protocol.engine import GameState, Rules, View
from protocol.errors import IllegalAction
from protocol.events import Dealt, Event, Undone
from protocol.games import rules_for
from protocol.games.sanibel import Sanibel
from protocol.notation import DEAL, UNDO, WASTE_PILE, Action, parse_action
from protocol.position import Position

CONFIGURATIONS = [
    ("sanibel", {}),
    ("sanibel", {"down": 0, "up": 10}),
    ("shady_lanes", {}),
    ("mount_sunflower", {}),
    ("mount_sunflower_easy", {}),
    ("mount_sunflower", {"undo": False}),
    ("shady_lanes", {"undo": False}),
]
RULES = [rules_for(game, options) for game, options in CONFIGURATIONS]
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- the reference


class Chain(NamedTuple):
    """A state as the engine first kept it: the position and the whole previous state."""

    position: Position
    previous: Chain | None = None
    last_action: str = ""

    @property
    def depth(self) -> int:
        return 0 if self.previous is None else 1 + self.previous.depth


def chain_apply(rules: Rules, chain: Chain, action: Action) -> tuple[Chain, list[Event], int]:
    """``undo`` walks the chain back; any other action is the engine's on the bare position."""
    if action == UNDO:
        if not rules.undo_allowed:
            raise IllegalAction("undo is switched off in this game", "undo_disabled")
        if chain.previous is None:
            raise IllegalAction("there is nothing to undo", "nothing_to_undo")
        return chain.previous, [Undone(chain.last_action)], 1
    outcome = rules.apply(GameState(chain.position), action)
    return Chain(outcome.state.position, chain, str(action)), outcome.events, outcome.counted


def chain_view(rules: Rules, chain: Chain) -> View:
    return View(chain.position.masked(), rules.undo_allowed and chain.previous is not None)


def chain_legal(rules: Rules, chain: Chain) -> list[Action]:
    legal = rules.legal_actions(GameState(chain.position))
    if chain.previous is not None and rules.undo_allowed:
        legal.append(UNDO)
    return legal


# ---------------------------------------------------------------- playing both


def same_state(rules: Rules, state: GameState, chain: Chain) -> None:
    assert state.position == chain.position
    assert state.last_action == chain.last_action
    assert rules.view(state) == chain_view(rules, chain)
    assert rules.legal_actions(state) == chain_legal(rules, chain)
    assert rules.is_stuck(state) == rules.is_stuck(GameState(chain.position))
    assert state.undo_depth == chain.depth
    assert state.has_previous == (chain.previous is not None)


def step_both(
    rules: Rules, state: GameState, chain: Chain, action: Action
) -> tuple[GameState, Chain, bool]:
    """Apply ``action`` to both; the same outcome, or the same refusal (then nothing moves)."""
    try:
        expected = chain_apply(rules, chain, action)
    except IllegalAction as refusal:
        with pytest.raises(IllegalAction) as caught:
            rules.apply(state, action)
        assert (caught.value.code, caught.value.message) == (refusal.code, refusal.message)
        return state, chain, False
    outcome = rules.apply(state, action)
    assert (outcome.events, outcome.counted) == expected[1:]
    same_state(rules, outcome.state, expected[0])
    return outcome.state, expected[0], True


class Played(NamedTuple):
    rules: Rules
    pairs: list[tuple[GameState, Chain]]  # every state reached, with the chain's


def play_both(rules: Rules, number: int, choices: list[int]) -> Played:
    state, chain = rules.start(number), Chain(rules.deal(number))
    same_state(rules, state, chain)
    pairs = [(state, chain)]
    for choice in choices:
        if choice % 10 == 0:
            actions: list[Action] = [UNDO] * (1 + (choice >> 4) % 12)
        else:
            legal = [a for a in rules.legal_actions(state) if a != UNDO]
            if not legal and not rules.view(state).can_undo:
                break
            actions = [legal[(choice >> 4) % len(legal)] if legal else UNDO]
        for action in actions:
            state, chain, moved = step_both(rules, state, chain, action)
            if moved:
                pairs.append((state, chain))
    return Played(rules, pairs)


@contextmanager
def checkpoints_every(k: int) -> Iterator[None]:
    with patch.object(history, "CHECKPOINT_EVERY", k):
        yield


deals = st.one_of(st.integers(1, 31999), st.integers(32000, MAX_DEAL))
choice_lists = st.lists(st.integers(0, 1 << 16), min_size=20, max_size=160)


# ---------------------------------------------------------------- properties


@PROPERTY
@given(
    st.sampled_from(RULES),
    deals,
    choice_lists,
    st.sampled_from([history.CHECKPOINT_EVERY, 1, 2, 3, 8]),
)
def test_playouts_with_undos_match_the_chain_of_whole_states(
    rules: Rules, number: int, choices: list[int], every: int
) -> None:
    with checkpoints_every(every):
        play_both(rules, number, choices)


@PROPERTY
@given(st.sampled_from(RULES), deals, choice_lists)
def test_undo_goes_back_exactly_all_the_way_to_the_start(
    rules: Rules, number: int, choices: list[int]
) -> None:
    played = play_both(rules, number, choices)
    state, chain = played.pairs[-1]
    start = rules.start(number)
    while chain.previous is not None and rules.undo_allowed:
        state, chain, moved = step_both(rules, state, chain, UNDO)
        assert moved
    if rules.undo_allowed:
        assert state == start and state.undo_depth == 0
    refused = "nothing_to_undo" if rules.undo_allowed else "undo_disabled"
    with pytest.raises(IllegalAction) as caught:
        rules.apply(state, UNDO)
    assert caught.value.code == refused


@PROPERTY
@given(st.sampled_from(RULES), deals, choice_lists)
def test_states_are_equal_exactly_when_the_chains_are(
    rules: Rules, number: int, choices: list[int]
) -> None:
    pairs = play_both(rules, number, choices).pairs
    for i, (state, chain) in enumerate(pairs):
        for other_state, other_chain in pairs[i:]:
            equal = other_chain == chain
            assert (state == other_state) is equal
            assert (other_state == state) is equal
            if equal:
                assert hash(state) == hash(other_state)


@PROPERTY
@given(st.sampled_from(RULES), deals, choice_lists)
def test_the_previous_state_is_the_chains_previous_state(
    rules: Rules, number: int, choices: list[int]
) -> None:
    for state, chain in play_both(rules, number, choices).pairs:
        previous = state.previous
        if chain.previous is None:
            assert previous is None
        else:
            assert previous is not None
            same_state(rules, previous, chain.previous)


@PROPERTY
@given(st.sampled_from(RULES), deals, choice_lists)
def test_a_position_packs_into_bytes_and_back_exactly(
    rules: Rules, number: int, choices: list[int]
) -> None:
    for state, _ in play_both(rules, number, choices).pairs:
        packed = state.position.pack()
        assert packed == state.position.canonical_bytes()
        assert Position.unpack(packed) == state.position


# ---------------------------------------------------------------- examples


@pytest.mark.parametrize("rules", RULES[:1] + RULES[2:5], ids=lambda rules: rules.name)
def test_long_playouts_with_runs_of_undos_match_the_chain_of_whole_states(rules: Rules) -> None:
    rng = random.Random(rules.name)
    for number in (1, 2, 3):
        choices = [rng.randrange(1 << 16) for _ in range(600)]
        pairs = play_both(rules, number, choices).pairs
        deepest = max(chain.depth for _, chain in pairs)
        assert deepest >= 3 * history.CHECKPOINT_EVERY


SUNFLOWER = rules_for("mount_sunflower")


def test_a_state_made_by_hand_goes_back_to_the_previous_state_it_was_given() -> None:
    start = SUNFLOWER.start(1)
    moved = SUNFLOWER.apply(start, parse_action("t0 1 f")).state
    made = GameState(moved.position, start, "t0 1 f")
    assert made == moved and made.undo_depth == 1
    by_hand = GameState(start.position, moved, "t6 1 t0")  # no action leads there: kept as is
    after = SUNFLOWER.apply(by_hand, parse_action("t1 1 f")).state
    undone = SUNFLOWER.apply(after, UNDO)
    assert undone.state == by_hand and undone.events == [Undone("t1 1 f")]
    again = SUNFLOWER.apply(undone.state, UNDO)
    assert again.state == moved and again.events == [Undone("t6 1 t0")]
    assert SUNFLOWER.apply(again.state, UNDO).state == start


def test_a_position_with_cards_no_deck_has_is_kept_as_it_is() -> None:
    start = SUNFLOWER.start(1).position
    for stock in [(254,), (255,), (300,)]:  # 254 and 255 end piles in packed bytes
        odd = start._replace(stock=stock)
        with pytest.raises(ValueError):
            odd.pack()
        state = SUNFLOWER.apply(GameState(odd), parse_action("t0 1 f")).state
        undone = SUNFLOWER.apply(state, UNDO).state
        assert undone == GameState(odd) and undone.position.stock == stock


class BottomDeal(Sanibel):
    """Sanibel turning the bottom stock card instead of the top one: the same positions,
    another outcome of ``deal``."""

    def play_deal(self, position: Position) -> tuple[Position, list[Event]]:
        if not position.stock:
            raise IllegalAction("the stock is empty", "stock_empty")
        card = position.stock[-1]
        new = position._replace(waste=position.waste + (card,), stock=position.stock[:-1])
        return new, [Dealt((WASTE_PILE,), (card,))]


@pytest.mark.parametrize(
    ("one", "two"),
    [
        (rules_for("sanibel"), rules_for("sanibel")),
        (rules_for("mount_sunflower"), rules_for("mount_sunflower_easy")),
        (rules_for("sanibel"), BottomDeal()),
    ],
    ids=["two-sanibels", "sunflower-and-easy", "sanibel-and-bottom-deal"],
)
def test_a_state_played_by_other_rules_undoes_as_each_rules_played_it(
    one: Rules, two: Rules
) -> None:
    """Each run of steps is replayed by the rules that played it, whoever undoes."""
    state, chain = one.start(7), Chain(one.deal(7))
    for turn in range(48):
        rules = (one, two)[turn // 3 % 2]
        legal = [a for a in rules.legal_actions(state) if a != UNDO]
        if not legal:
            break
        if rules is two and DEAL in legal:  # the second rules deal, when they may
            action: Action = DEAL
        else:
            others = [a for a in legal if a != DEAL] or legal
            action = others[turn % len(others)]
        state, chain, _ = step_both(rules, state, chain, action)
    assert chain.depth > history.CHECKPOINT_EVERY
    while chain.previous is not None:
        state, chain, _ = step_both(one, state, chain, UNDO)
    assert state == one.start(7)


def test_states_that_differ_only_in_an_earlier_position_are_not_equal() -> None:
    start = SUNFLOWER.start(1)
    moved = SUNFLOWER.apply(start, parse_action("t0 1 f")).state
    other = GameState(SUNFLOWER.deal(2))
    assert GameState(moved.position, other, "t0 1 f") != moved  # kept by one, replayed
    assert GameState(moved.position, GameState(moved.position, other)) != GameState(
        moved.position, GameState(moved.position, start)
    )  # kept by both
    assert GameState(moved.position, GameState(moved.position, start)) == GameState(
        moved.position, GameState(moved.position, SUNFLOWER.start(1))
    )


def kept_positions(state: GameState) -> list[bool]:
    """Whether each earlier state keeps its position, from the start up."""
    kinds, step = [], state._earlier
    while step is not None:
        kinds.append(isinstance(step, history.Checkpoint))
        step = step.below
    return kinds[::-1]


@PROPERTY
@given(st.sampled_from(RULES[:3]), deals, choice_lists)
def test_positions_are_kept_every_checkpoint_every_actions_deep_whatever_the_path(
    rules: Rules, number: int, choices: list[int]
) -> None:
    every = history.CHECKPOINT_EVERY
    for state, chain in play_both(rules, number, choices).pairs:
        assert kept_positions(state) == [depth % every == 0 for depth in range(chain.depth)]


@PROPERTY
@given(st.sampled_from(RULES[:3]), deals, choice_lists)
def test_undoing_all_the_way_back_replays_each_action_at_most_once(
    rules: Rules, number: int, choices: list[int]
) -> None:
    state, chain = play_both(rules, number, choices).pairs[-1]
    with patch.object(type(rules), "play", autospec=True, side_effect=type(rules).play) as play:
        legal = [a for a in rules.legal_actions(state) if a != UNDO]
        if legal:  # an undo straight after an action replays nothing
            state, chain, _ = step_both(rules, state, chain, legal[0])
            calls = play.call_count
            state, chain, _ = step_both(rules, state, chain, UNDO)
            assert play.call_count == calls
        replays = play.call_count
        depth = chain.depth
        while chain.previous is not None:
            state, chain, _ = step_both(rules, state, chain, UNDO)
        assert play.call_count - replays <= depth
