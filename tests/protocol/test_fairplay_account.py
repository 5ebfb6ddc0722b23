"""Clairvoyance over an account's runs (protocol/fairplay_account.py, docs/fairness.md,
"Clairvoyance over an account's runs"): each sentence of the rule, flagged and not
flagged, its evidence, and the sums' invariants."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import fairplay_account as account
from protocol.fairplay import LUCKY_ACCOUNT, evidence, reasons, signals_of
from protocol.fairplay_account import ACCOUNT_RUNS, ACCOUNT_Z, combined, judged_runs
from protocol.fairplay_reveals import Reveals

PLAYED = [("t0 1 t1", 2_000), ("t1 1 t6", 4_500)]  # a run's actions: no other rule flags it
A_LITTLE_LUCKY = Reveals(4, 3, 2.0, 1.0)  # one useful card over chance: z 1 in one run
LUCKY = Reveals(4, 4, 2.0, 1.0)  # two over chance: z 2 in one run, 2 x sqrt(n) over n


def reviewed(earlier: list[Reveals], this: Reveals) -> list[str]:
    """The reasons a run with reveals ``this`` is flagged for, after ``earlier`` runs."""
    return reasons(signals_of(PLAYED, False, 4_500, None, reveals=this, earlier_reveals=earlier))


def test_the_reveals_of_an_account_s_runs_are_added_up() -> None:
    summed = combined([Reveals(4, 3, 2.0, 1.0), Reveals(6, 2, 2.5, 1.5)])
    assert summed == Reveals(10, 5, 4.5, 2.5)
    assert summed.z() == (5 - 4.5) / math.sqrt(2.5)


def test_a_run_that_turned_up_no_card_blind_does_not_count() -> None:
    runs = [A_LITTLE_LUCKY, Reveals(), A_LITTLE_LUCKY]
    assert judged_runs(runs) == [A_LITTLE_LUCKY, A_LITTLE_LUCKY]
    figures = account.account_figures(runs)
    assert (figures["account_runs"], figures["account_z"]) == (2, round(2 / math.sqrt(2), 2))
    assert reviewed([LUCKY] * (ACCOUNT_RUNS - 1), Reveals()) == []  # one run short


def test_a_run_whose_account_is_luckier_than_chance_over_enough_runs_is_flagged() -> None:
    earlier = [A_LITTLE_LUCKY] * (ACCOUNT_RUNS - 1)
    this = Reveals(12, 12, 4.0, 3.0)  # with it: z = (ACCOUNT_RUNS + 7) / sqrt(ACCOUNT_RUNS + 2)
    assert (ACCOUNT_RUNS + 7) / math.sqrt(ACCOUNT_RUNS + 2) >= ACCOUNT_Z
    assert reviewed(earlier, this) == [LUCKY_ACCOUNT]


def test_the_z_needed_is_reached_at_exactly_its_threshold() -> None:
    each = Reveals(2, 1, 0.0, ACCOUNT_RUNS / ACCOUNT_Z**2)  # n runs: z = n / sqrt(n * n / Z^2)
    earlier, this = [each] * (ACCOUNT_RUNS - 1), each
    figures = account.account_figures([*earlier, this])
    assert (figures["account_runs"], figures["account_z"]) == (ACCOUNT_RUNS, ACCOUNT_Z)
    assert reviewed(earlier, this) == [LUCKY_ACCOUNT]


def test_as_lucky_over_one_run_fewer_than_needed_is_not_flagged() -> None:
    earlier = [LUCKY] * (ACCOUNT_RUNS - 2)  # z 2 x sqrt(ACCOUNT_RUNS - 1) with this one
    assert 2 * math.sqrt(ACCOUNT_RUNS - 1) >= ACCOUNT_Z
    assert reviewed(earlier, LUCKY) == []


def test_an_account_below_the_z_needed_over_many_runs_is_not_flagged() -> None:
    earlier = [A_LITTLE_LUCKY] * (ACCOUNT_RUNS - 1)
    unlucky = Reveals(4, 0, 2.0, 1.0)  # with it: z = (ACCOUNT_RUNS - 3) / sqrt(ACCOUNT_RUNS)
    assert (ACCOUNT_RUNS - 3) / math.sqrt(ACCOUNT_RUNS) < ACCOUNT_Z
    assert reviewed(earlier, unlucky) == []
    assert not account.lucky_account(40, ACCOUNT_Z - 0.01)


def test_a_single_run_however_lucky_is_not_flagged_by_itself() -> None:
    assert reviewed([], Reveals(30, 30, 10.0, 6.0)) == []


def test_the_flag_s_evidence_holds_the_account_s_sums_against_the_thresholds() -> None:
    earlier = [LUCKY] * (ACCOUNT_RUNS - 1)
    signals = signals_of(PLAYED, False, 4_500, None, reveals=LUCKY, earlier_reveals=earlier)
    assert evidence(signals)[LUCKY_ACCOUNT] == {
        "account_runs": ACCOUNT_RUNS,
        "runs_needed": ACCOUNT_RUNS,
        "account_lucky": 4 * ACCOUNT_RUNS,
        "account_expected": 2.0 * ACCOUNT_RUNS,
        "account_variance": 1.0 * ACCOUNT_RUNS,
        "account_z": round(2 * ACCOUNT_RUNS / math.sqrt(ACCOUNT_RUNS), 2),
        "z_needed": ACCOUNT_Z,
        "run_lucky": 4,
        "run_expected": 2.0,
        "run_z": 2.0,
    }


runs_of = st.lists(
    st.builds(
        lambda blind, share, chances: Reveals(
            blind, round(blind * share), chances[0] * blind, chances[1] * blind
        ),
        st.integers(0, 12),
        st.floats(0, 1),
        st.tuples(st.floats(0.05, 0.95), st.floats(0.01, 0.25)),
    ),
    max_size=30,
)


@settings(deadline=None)  # a shared machine: no time limit on an example
@given(runs_of, st.randoms())
def test_the_order_of_an_account_s_runs_does_not_matter(
    runs: list[Reveals], rng: random.Random
) -> None:
    shuffled = list(runs)
    rng.shuffle(shuffled)
    before, after = combined(runs), combined(shuffled)
    assert (before.blind, before.lucky) == (after.blind, after.lucky)
    assert math.isclose(before.expected, after.expected, abs_tol=1e-9)
    assert math.isclose(before.variance, after.variance, abs_tol=1e-9)


@settings(deadline=None)
@given(runs_of, st.integers(1, 12), st.floats(0.05, 0.95), st.floats(0.01, 0.25), st.floats(0, 1))
def test_a_run_no_luckier_than_chance_never_raises_the_evidence_above_zero_or_where_it_was(
    runs: list[Reveals], blind: int, chance: float, spread: float, share: float
) -> None:
    expected = chance * blind
    plain = Reveals(blind, math.floor(expected * share), expected, spread * blind)
    before = combined(judged_runs(runs)).z()
    after = combined(judged_runs([*runs, plain])).z()
    assert after is not None
    assert after <= max(before or 0.0, 0.0) + 1e-9
