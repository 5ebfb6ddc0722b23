"""The solver's line whatever the order of moves that commute (protocol/fairplay_order.py):
a run's standing moves are put in the line's order where the rules let two adjacent moves
trade places, so a cheater who trades them does not hide the line; what is put in order is
the same run (the same moves, legal, to the same position), and moves that do not commute
keep their order."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.fairplaypeople import cheater, traded
from protocol.engine import GameState, Rules
from protocol.errors import IllegalAction
from protocol.fairplay import LINE_SHARE, SOLVER_LINE, reasons, signals_of
from protocol.fairplay_line import common_length, standing_actions
from protocol.fairplay_order import line_order, toward_line
from protocol.games import rules_for
from protocol.notation import format_action, parse_action

WINS = Path(__file__).resolve().parents[1] / "data" / "wins"
DEALS = [
    ("mount_sunflower_easy", 1),
    ("mount_sunflower_easy", 2),
    ("mount_sunflower", 18),
    ("sanibel", 1),
    ("sanibel", 2),
    ("shady_lanes", 16),
    ("shady_lanes", 27),
]


def replayed(rules: Rules, start: GameState, actions: list[str]) -> list[GameState]:
    """The states from ``start`` after each of ``actions`` (``start`` first)."""
    states = [start]
    for action in actions:
        states.append(rules.apply(states[-1], parse_action(action)).state)
    return states


def win(game: str, deal: int) -> list[str]:
    lines = (WINS / f"{game}-{deal}.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize(("game", "deal"), DEALS)
def test_the_line_with_its_commuting_moves_traded_is_the_whole_line_again(
    game: str, deal: int
) -> None:
    rules, line = rules_for(game), win(game, deal)
    start = rules.start(deal)
    for seed in range(3):
        run = traded(rules, start.position, line, random.Random(seed))
        assert sorted(run) == sorted(line)
        assert common_length(line, toward_line(rules, start, run, line)) == len(line)


def test_trading_commuting_moves_hides_most_of_the_line_from_a_comparison_in_order() -> None:
    rules, line = rules_for("sanibel"), win("sanibel", 1)
    run = traded(rules, rules.deal(1), line, random.Random(0))
    assert common_length(line, run) < 0.8 * len(line)  # why the moves are put in order


def test_a_run_of_the_traded_line_is_flagged_for_the_solver_s_line() -> None:
    rules, line = rules_for("sanibel"), win("sanibel", 1)
    start = rules.start(1)
    run = traded(rules, start.position, line, random.Random(0))
    entries = [(action, 900 * (seq + 1) + 400 * (seq % 3)) for seq, action in enumerate(run)]

    def in_order(standing: list[str]) -> list[str]:
        return toward_line(rules, start, standing, line)

    assert SOLVER_LINE in reasons(signals_of(entries, True, entries[-1][1], line, order=in_order))
    assert SOLVER_LINE not in reasons(signals_of(entries, True, entries[-1][1], line))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(DEALS), st.randoms(use_true_random=False), st.integers(0, 150))
def test_put_in_order_a_run_is_the_same_moves_legal_to_the_same_position(
    deal_of: tuple[str, int], rng: random.Random, length: int
) -> None:
    game, deal = deal_of
    rules, line = rules_for(game), win(game, deal)
    start = rules.start(deal)
    state, run = start, []
    for _ in range(length):  # a run of its own: random legal moves, no undo
        choices = [a for a in rules.legal_actions(state) if format_action(a) != "undo"]
        if not choices:
            break
        action = rng.choice(choices)
        run.append(format_action(action))
        state = rules.apply(state, action).state
    ordered = toward_line(rules, start, run, line)
    assert not Counter(ordered) - Counter(run)  # its moves, but those that came back
    assert replayed(rules, start, ordered)[-1].position == state.position  # legal, same end


def straight_back(rules: Rules, state: GameState) -> list[str]:
    """A move from ``state`` and the move straight back, if it has one."""
    for out in rules.legal_actions(state):
        if format_action(out) == "undo":
            continue
        after = rules.apply(state, out).state
        for back in rules.legal_actions(after):
            if format_action(back) != "undo" and rules.apply(after, back).state.position == (
                state.position
            ):
                return [format_action(out), format_action(back)]
    return []


@pytest.mark.parametrize(("game", "deal"), DEALS)
def test_cards_moved_and_moved_straight_back_between_traded_moves_hide_nothing(
    game: str, deal: int
) -> None:
    rules, line = rules_for(game), win(game, deal)
    start = rules.start(deal)
    run: list[str] = []
    for index, move in enumerate(traded(rules, start.position, line, random.Random(0))):
        if index % 10 == 5:  # the detours the bench's cheaters make
            run += straight_back(rules, replayed(rules, start, run)[-1])
        run.append(move)
    assert len(run) > len(line)
    assert common_length(line, run) < LINE_SHARE * len(line)  # in order, it hides
    assert common_length(line, toward_line(rules, start, run, line)) >= LINE_SHARE * len(line)


def test_the_line_s_next_move_played_early_and_taken_back_hides_nothing() -> None:
    shortfalls, tried = [], 0
    for game, deal in DEALS:
        rules, line = rules_for(game), win(game, deal)
        start = rules.start(deal)
        run = traded(rules, start.position, line, random.Random(0))
        states = replayed(rules, start, run)
        for at in range(len(run) - 1):  # before the run's move at ``at``, its next, and back
            early = played_and_taken_back(rules, states[at], run[at + 1])
            if not early:
                continue
            tried += 1
            detoured = [*run[:at], *early, *run[at:]]
            kept = common_length(line, toward_line(rules, start, detoured, line))
            if kept < len(line):
                shortfalls.append((game, deal, at, early, kept, len(line)))
    assert tried > 100
    assert shortfalls == []


@pytest.mark.parametrize(("game", "deal"), DEALS)
def test_cheaters_who_trade_and_make_many_detours_keep_the_line_once_in_order(
    game: str, deal: int
) -> None:
    rules, line = rules_for(game), win(game, deal)
    start = rules.start(deal)
    order = line_order(rules, start, line)
    for seed in range(10):
        plan = cheater(rules, start.position, line, random.Random(seed), 1500, 12, trades=True)
        standing, _ = standing_actions([action for action, _ in plan.steps])
        assert common_length(line, order(standing)) >= LINE_SHARE * len(line), seed


def played_and_taken_back(rules: Rules, state: GameState, move: str) -> list[str]:
    """``move`` from ``state`` and the move that takes it straight back, if both are legal."""
    try:
        after = rules.apply(state, parse_action(move)).state
    except IllegalAction:
        return []
    for back in rules.moves(after.position):
        if rules.apply(after, back).state.position == state.position:
            return [move, format_action(back)]
    return []


def test_moves_that_do_not_commute_keep_their_order() -> None:
    rules, line = rules_for("mount_sunflower_easy"), win("mount_sunflower_easy", 1)
    start = rules.start(1)
    states = replayed(rules, start, line)
    # the first pair of the line whose second move needs the first: never traded back
    at = next(
        index
        for index in range(len(line) - 1)
        if line[index + 1] not in {format_action(a) for a in rules.legal_actions(states[index])}
    )
    run = line[: at + 2]
    backwards = [*line[:at], line[at + 1], line[at]]  # what it would be, traded
    assert toward_line(rules, start, run, backwards) == run
