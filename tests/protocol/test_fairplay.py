"""The fair-play rule (protocol/fairplay.py, docs/fairness.md): each sentence, flagged and
not flagged, and the signals' invariants."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol.fairplay import (
    BEYOND_HISTORY,
    MACHINE_PACE,
    SOLVER_LINE,
    Signals,
    reasons,
    signals_of,
)

LINE = [f"t{i % 7} t{(i + 1) % 7}" for i in range(30)]


def paced(actions: list[str], gaps: list[int]) -> list[tuple[str, int]]:
    """``actions`` played with the think times ``gaps`` (ms), from the start."""
    out, t_ms = [], 0
    for action, gap in zip(actions, gaps, strict=True):
        t_ms += gap
        out.append((action, t_ms))
    return out


HUMAN_GAPS = [900, 2400, 700, 1500, 3100, 800, 650, 4000, 1200, 900] * 3  # pauses, then rushes


def test_playing_the_solver_s_line_move_for_move_is_flagged() -> None:
    played = paced(LINE, HUMAN_GAPS)
    assert SOLVER_LINE in reasons(signals_of(played, True, played[-1][1], LINE))


def test_leaving_the_solver_s_line_early_is_not_flagged() -> None:
    own = LINE[:5] + ["undo"] + LINE[6:]  # off the line from the sixth move
    played = paced(own, HUMAN_GAPS)
    signals = signals_of(played, True, played[-1][1], LINE)
    assert signals.line_followed == 5 and reasons(signals) == []


def test_a_short_solver_line_is_not_held_against_anyone() -> None:
    played = paced(LINE[:9], HUMAN_GAPS[:9])
    assert reasons(signals_of(played, True, played[-1][1], LINE[:9])) == []


def test_without_a_solver_line_only_the_other_signals_count() -> None:
    played = paced(LINE, HUMAN_GAPS)
    signals = signals_of(played, True, played[-1][1], None)
    assert signals.line_length is None and reasons(signals) == []


def test_a_median_think_time_faster_than_a_person_reads_is_flagged() -> None:
    gaps = [120, 180, 90, 150, 600] * 4
    played = paced(LINE[:20], gaps)
    assert reasons(signals_of(played, False, 0)) == [MACHINE_PACE]


def test_think_times_too_even_for_a_person_are_flagged() -> None:
    played = paced(LINE[:20], [1000, 1050, 980, 1020] * 5)
    assert reasons(signals_of(played, False, 0)) == [MACHINE_PACE]


def test_a_pace_is_not_judged_on_fewer_than_twenty_actions() -> None:
    played = paced(LINE[:19], [100] * 19)
    assert reasons(signals_of(played, False, 0)) == []


def test_a_person_s_uneven_pace_is_not_flagged() -> None:
    played = paced(LINE, HUMAN_GAPS)
    assert reasons(signals_of(played, False, 0)) == []


def test_a_time_far_beyond_the_account_s_history_is_flagged() -> None:
    played = paced(LINE[:3], [900, 2400, 700])
    history = [300_000, 280_000, 350_000, 310_000, 290_000]
    assert reasons(signals_of(played, True, 60_000, None, history)) == [BEYOND_HISTORY]


def test_a_time_within_the_account_s_history_is_not_flagged() -> None:
    played = paced(LINE[:3], [900, 2400, 700])
    history = [300_000, 280_000, 350_000, 310_000, 290_000]
    assert reasons(signals_of(played, True, 150_000, None, history)) == []


def test_history_counts_from_five_finished_runs_and_only_for_a_finished_run() -> None:
    played = paced(LINE[:3], [900, 2400, 700])
    assert reasons(signals_of(played, True, 10_000, None, [300_000] * 4)) == []
    assert reasons(signals_of(played, False, 10_000, None, [300_000] * 5)) == []


def test_undos_are_counted() -> None:
    played = paced(["t1 t2", "undo", "t1 t3", "undo"], [900, 800, 700, 600])
    assert signals_of(played, False, 0).undos == 2


@given(
    st.lists(
        st.tuples(st.sampled_from(["t1 t2", "undo", "deal", "w f"]), st.integers(0, 60_000)),
        max_size=60,
    ),
    st.one_of(st.none(), st.lists(st.sampled_from(["t1 t2", "deal", "w f"]), max_size=40)),
    st.lists(st.integers(1, 10**7), max_size=10),
    st.booleans(),
)
def test_signals_are_sound_and_survive_their_json(
    steps: list[tuple[str, int]], line: list[str] | None, history: list[int], finished: bool
) -> None:
    played, t_ms = [], 0
    for action, gap in steps:
        t_ms += gap
        played.append((action, t_ms))
    signals = signals_of(played, finished, t_ms, line, history)
    assert signals.actions == len(played)
    assert 0 <= signals.undos <= signals.actions
    assert 0 <= signals.line_followed <= min(len(played), len(line or []))
    assert signals.think_cv is None or signals.think_cv >= 0
    assert Signals.from_dict(signals.as_dict()) == signals
    assert set(reasons(signals)) <= {SOLVER_LINE, MACHINE_PACE, BEYOND_HISTORY}
    if not line:
        assert SOLVER_LINE not in reasons(signals)
