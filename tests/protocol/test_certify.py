"""``first_certified``: iterative widening over candidate deals finds a deal the solver
proves winnable, the same one on every process, within its node and time budgets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.games import GAMES, rules_for
from protocol.replay import replay
from protocol.solver import UNKNOWN, UNWINNABLE, WON, Solution
from protocol.solver.certify import Certified, Uncertified, first_certified, round_budgets
from protocol.solver.search import SCREEN_NODES, screen

# Shady Lanes deal 16 is won within 10,000 positions; deals 1-15 are not (docs/solver.md).
SHADY_CANDIDATES = [1, 2, 16, 3]


def fake(
    thresholds: dict[int, int | None], calls: list[tuple[int, int]]
) -> Callable[[int, int, Callable[[], bool] | None], Solution]:
    """A solver that wins deal n once given ``thresholds[n]`` positions, proves it
    unwinnable when the threshold is None, and spends its whole budget otherwise."""

    def attempt(number: int, nodes: int, stop: Callable[[], bool] | None) -> Solution:
        calls.append((number, nodes))
        threshold = thresholds.get(number, 10**12)
        if threshold is None:
            return Solution(UNWINNABLE, (), 1)
        if nodes >= threshold:
            return Solution(WON, ("deal",), threshold)
        return Solution(UNKNOWN, (), nodes)

    return attempt


def test_round_budgets_grow_by_the_factor_up_to_the_cap() -> None:
    assert round_budgets(8_000, 4, 200_000) == [8_000, 32_000, 128_000, 200_000]
    assert round_budgets(8_000, 4, 5_000) == [5_000]
    with pytest.raises(ValueError):
        round_budgets(8_000, 1, 200_000)


@pytest.mark.parametrize("game", list(GAMES))
def test_it_finds_a_winnable_deal_whose_solution_replays_to_a_win(game: str) -> None:
    rules = rules_for(game)
    candidates = SHADY_CANDIDATES if game == "shady_lanes" else [1, 2, 3]
    result = first_certified(rules, candidates, max_nodes=20_000)
    assert isinstance(result, Certified)
    assert result.solution.verdict == WON
    assert result.number in candidates
    assert rules.is_won(replay(rules, result.number, result.solution.actions).position)
    assert result.tried >= 1 and result.nodes >= result.solution.nodes


def test_a_small_budget_first_lets_a_later_candidate_win_before_an_earlier_one() -> None:
    calls: list[tuple[int, int]] = []
    thresholds: dict[int, int | None] = {10: 30_000, 11: None, 12: 5_000}
    result = first_certified(
        rules_for("sanibel"), [10, 11, 12], max_nodes=200_000, attempt=fake(thresholds, calls)
    )
    assert isinstance(result, Certified)
    assert (result.number, result.round, result.tried) == (12, 0, 3)
    assert calls == [(10, 8_000), (11, 8_000), (12, 8_000)]
    assert result.nodes == 8_000 + 1 + 5_000


def test_an_unwinnable_candidate_is_dropped_and_the_rounds_widen() -> None:
    calls: list[tuple[int, int]] = []
    thresholds: dict[int, int | None] = {10: 100_000, 11: None}
    result = first_certified(
        rules_for("sanibel"), [10, 11], max_nodes=200_000, attempt=fake(thresholds, calls)
    )
    assert isinstance(result, Certified) and (result.number, result.round) == (10, 2)
    assert calls == [(10, 8_000), (11, 8_000), (10, 32_000), (10, 128_000)]


def test_the_total_node_budget_is_never_passed() -> None:
    calls: list[tuple[int, int]] = []
    result = first_certified(
        rules_for("sanibel"),
        [1, 2, 3],
        max_nodes=200_000,
        total_nodes=50_000,
        attempt=fake({}, calls),
    )
    # 3 x 8,000 spent; a 32,000 attempt would pass 50,000, so it is not started
    assert result == Uncertified(stopped=False, tried=3, nodes=24_000)
    assert sum(nodes for _, nodes in calls) <= 50_000


def test_the_time_budget_stops_everything_after_the_search_it_cut() -> None:
    calls: list[tuple[int, int]] = []
    asked = [0]

    def should_stop() -> bool:
        asked[0] += 1
        return asked[0] > 2  # time runs out during the second attempt

    result = first_certified(
        rules_for("sanibel"),
        [10, 11, 12],
        should_stop=should_stop,
        attempt=fake({12: 1}, calls),  # 12 would win at once: it must not be tried
    )
    assert isinstance(result, Uncertified) and result.stopped
    assert [number for number, _ in calls] == [10, 11]


def test_a_screen_orders_the_rounds_most_promising_first_ties_in_order() -> None:
    calls: list[tuple[int, int]] = []
    promise = {10: 5, 11: 9, 12: 5, 13: 9}
    looked: list[int] = []

    def screen(number: int) -> tuple[int, int]:
        looked.append(number)
        return promise[number], 100

    result = first_certified(
        rules_for("sanibel"),
        [10, 11, 12, 13],
        max_nodes=32_000,
        attempt=fake({12: 20_000}, calls),
        screen=screen,
    )
    assert looked == [10, 11, 12, 13]  # every candidate, once, before any attempt
    assert isinstance(result, Certified) and (result.number, result.round) == (12, 1)
    assert calls == [
        (11, 8_000),
        (13, 8_000),
        (10, 8_000),
        (12, 8_000),
        (11, 32_000),
        (13, 32_000),
        (10, 32_000),
        (12, 32_000),
    ]
    assert result.nodes == 4 * 100 + 4 * 8_000 + 3 * 32_000 + 20_000


def test_the_screen_is_cut_by_the_time_and_node_budgets() -> None:
    calls: list[tuple[int, int]] = []
    result = first_certified(
        rules_for("sanibel"),
        [10, 11],
        attempt=fake({}, calls),
        screen=lambda number: (0, 100),
        should_stop=lambda: True,
    )
    assert result == Uncertified(stopped=True, tried=0, nodes=0)
    result = first_certified(
        rules_for("sanibel"),
        [10, 11, 12],
        total_nodes=250,
        attempt=fake({}, calls),
        screen=lambda number: (0, 100),
    )
    assert result == Uncertified(stopped=False, tried=0, nodes=300)
    assert calls == []


def test_the_shady_lanes_screen_is_a_cheap_greedy_pass_and_other_games_have_none() -> None:
    shady = rules_for("shady_lanes")
    home, nodes = screen(shady, shady.deal(1_000_019))
    assert 0 < home < 104 and 0 < nodes <= SCREEN_NODES
    assert screen(shady, shady.deal(1_000_019)) == (home, nodes)  # deterministic
    sanibel = rules_for("sanibel")
    assert screen(sanibel, sanibel.deal(1)) == (0, 0)


def test_the_real_solver_obeys_the_time_budget() -> None:
    result = first_certified(rules_for("shady_lanes"), [1, 2, 3], should_stop=lambda: True)
    assert result == Uncertified(stopped=True, tried=0, nodes=0)


@given(
    st.lists(
        st.one_of(st.none(), st.integers(min_value=1, max_value=300_000)),
        min_size=1,
        max_size=8,
    ),
    st.integers(min_value=1, max_value=20_000),
    st.integers(min_value=2, max_value=5),
    st.integers(min_value=1, max_value=300_000),
)
def test_the_answer_is_the_first_win_in_the_order_of_rounds(
    thresholds: list[int | None], first: int, growth: int, cap: int
) -> None:
    """Against a model: the candidate won in the earliest round, the earliest in the list
    within it; none when no budget reaches any threshold."""
    numbers = list(range(100, 100 + len(thresholds)))
    budgets = round_budgets(first, growth, cap)
    expected = None
    for index, nodes in enumerate(budgets):
        won = [n for n, t in zip(numbers, thresholds, strict=True) if t is not None and t <= nodes]
        if won:
            expected = (won[0], index)
            break
    calls: list[tuple[int, int]] = []
    result = first_certified(
        rules_for("sanibel"),
        numbers,
        first_nodes=first,
        growth=growth,
        max_nodes=cap,
        attempt=fake(dict(zip(numbers, thresholds, strict=True)), calls),
    )
    if expected is None:
        assert isinstance(result, Uncertified) and not result.stopped
    else:
        assert isinstance(result, Certified) and (result.number, result.round) == expected
    assert all(nodes in budgets for _, nodes in calls)
    assert result.tried == len(calls)


SCRIPT = """
import json
from protocol.games import rules_for
from protocol.solver.certify import first_certified
result = first_certified(rules_for("shady_lanes"), [1, 2, 16, 3], max_nodes=20_000)
print(json.dumps([result.number, result.round, result.tried, result.nodes,
                  list(result.solution.actions)]))
"""


def test_every_process_certifies_the_same_deal_with_the_same_solution() -> None:
    answers = []
    for seed in ("1", "2"):  # string hashing differs between these processes
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        answers.append(json.loads(done.stdout))
    assert answers[0] == answers[1]
    assert answers[0][0] == 16
