"""The fair-play rule's day's field (protocol/fairplay.py, docs/fairness.md): a finished
daily run faster than the fastest tenth of the day's finished runs, by an account with no
earlier time of the game within twice its own, is flagged with its evidence; each part of
the sentence, allowed and refused."""

from __future__ import annotations

from protocol.fairplay import BEYOND_FIELD, FIELD_RUNS, evidence, reasons, signals_of

GAPS = [900, 2400, 700, 1500, 3100, 800, 650, 4000, 1200, 900]  # a person's pace
PLAYED = [(f"t{i % 7} t{(i + 1) % 7}", sum(GAPS[: i + 1])) for i in range(len(GAPS))]
FIELD = [300_000 + 10_000 * i for i in range(FIELD_RUNS)]  # 300 to 490 s; p10 319 s


def flags(time_ms: int, history: list[int], field: list[int], finished: bool = True) -> list[str]:
    return reasons(signals_of(PLAYED, finished, time_ms, None, history, field))


def test_a_first_time_faster_than_the_day_s_field_is_flagged_with_its_evidence() -> None:
    signals = signals_of(PLAYED, True, 200_000, None, [], FIELD)
    assert reasons(signals) == [BEYOND_FIELD]
    shown = evidence(signals)[BEYOND_FIELD]
    assert shown["time_ms"] == 200_000 and shown["field_runs"] == FIELD_RUNS
    assert shown["field_fast_ms"] == 319_000 and shown["field_median_ms"] == 395_000
    assert shown["history_best_ms"] is None and shown["field_runs_needed"] == FIELD_RUNS


def test_a_time_far_beyond_the_account_s_best_is_flagged() -> None:
    assert flags(200_000, [400_000, 900_000], FIELD) == [BEYOND_FIELD]


def test_an_account_with_such_a_time_before_is_not_flagged() -> None:
    assert flags(200_000, [390_000, 900_000], FIELD) == []  # its best: under twice this time


def test_a_time_within_the_field_s_fastest_tenth_is_not_flagged() -> None:
    assert flags(320_000, [], FIELD) == []


def test_the_field_counts_from_twenty_finished_runs() -> None:
    assert flags(200_000, [], FIELD[: FIELD_RUNS - 1]) == []


def test_an_unfinished_run_is_not_held_against_the_field() -> None:
    assert flags(200_000, [], FIELD, finished=False) == []
