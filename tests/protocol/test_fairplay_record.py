"""Wins beyond an account's own record (docs/fairness.md, "Wins beyond the account's
record"), one test per sentence of the rule, flagged and not flagged, and its arithmetic."""

from __future__ import annotations

from math import comb

from hypothesis import given
from hypothesis import strategies as st

from protocol.fairplay import BEYOND_RECORD, evidence, reasons, signals_of
from protocol.fairplay_record import (
    RECORD_CHANCE,
    RECORD_RACES,
    RECORD_RUNS,
    Record,
    beyond_record,
)

BLIND = Record(races=20, races_finished=0, runs=2, runs_finished=2)  # (1/22)^2 = 0.002


def test_a_player_s_share_counts_one_race_finished_and_one_not_beside_their_record() -> None:
    assert Record(races=8, races_finished=3).share() == 4 / 10
    assert Record().share() == 1 / 2  # no record: neither a finisher nor not


def test_the_chance_is_finishing_at_least_as_many_runs_at_the_races_share() -> None:
    record = Record(races=10, races_finished=4, runs=3, runs_finished=2)
    p = 5 / 12
    assert abs(record.chance() - (comb(3, 2) * p**2 * (1 - p) + p**3)) < 1e-12
    assert abs(Record(races=10, runs=3, runs_finished=0).chance() - 1) < 1e-12


def test_a_finished_run_is_flagged_when_finishing_that_many_runs_is_that_unlikely() -> None:
    assert BLIND.chance() < RECORD_CHANCE
    assert beyond_record(True, BLIND)


def test_an_unfinished_run_is_never_flagged() -> None:
    assert not beyond_record(False, BLIND)


def test_a_record_of_fewer_dealt_races_judges_nothing() -> None:
    few = Record(RECORD_RACES - 1, 0, 4, 4)
    assert few.chance() < RECORD_CHANCE and not beyond_record(True, few)


def test_a_first_ranked_daily_run_judges_nothing() -> None:
    first = Record(200, 0, RECORD_RUNS - 1, RECORD_RUNS - 1)
    assert first.chance() < RECORD_CHANCE and not beyond_record(True, first)


def test_an_account_that_finishes_its_races_as_often_is_not_flagged() -> None:
    assert not beyond_record(True, Record(races=20, races_finished=12, runs=4, runs_finished=4))
    assert not beyond_record(True, Record(races=20, races_finished=1, runs=12, runs_finished=1))


def test_a_run_s_signals_add_it_to_its_account_s_record_and_the_evidence_shows_it() -> None:
    earlier = Record(races=20, races_finished=0, runs=1, runs_finished=1)
    won = signals_of([("a", 5_000), ("b", 9_000)], True, 9_000, record=earlier)
    assert (won.record_runs, won.record_runs_finished) == (2, 2)
    assert BEYOND_RECORD in reasons(won)
    shown = evidence(won)[BEYOND_RECORD]
    assert shown["record_races"] == 20 and shown["record_chance"] < shown["chance_under"]
    lost = signals_of([("a", 5_000)], False, 5_000, record=earlier)
    assert (lost.record_runs, lost.record_runs_finished) == (2, 1)
    assert BEYOND_RECORD not in reasons(lost)


def test_a_run_judged_without_a_record_keeps_none() -> None:
    signals = signals_of([("a", 5_000)], True, 5_000)
    assert signals.record_runs == 0 and signals.record_chance is None
    assert BEYOND_RECORD not in reasons(signals)


records = st.builds(
    lambda races, done, runs, won: Record(races, min(done, races), runs, min(won, runs)),
    st.integers(0, 50),
    st.integers(0, 50),
    st.integers(0, 50),
    st.integers(0, 50),
)


@given(records)
def test_the_chance_is_a_probability_that_more_runs_finished_lowers_and_more_races_raises(
    record: Record,
) -> None:
    chance = record.chance()
    assert -1e-9 <= chance <= 1 + 1e-9
    if record.runs_finished < record.runs:
        more_runs = Record(
            record.races, record.races_finished, record.runs, record.runs_finished + 1
        )
        assert more_runs.chance() <= chance + 1e-12
    if record.races_finished < record.races:
        more_races = Record(
            record.races, record.races_finished + 1, record.runs, record.runs_finished
        )
        assert more_races.chance() >= chance - 1e-12
