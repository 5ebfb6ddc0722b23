"""The fair-play rule (protocol/fairplay.py, docs/fairness.md): each sentence, flagged and
not flagged, each flag's evidence, and the signals' invariants."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol.fairplay import (
    BEYOND_HISTORY,
    MACHINE_PACE,
    NARROW_PACE,
    QUICK_PACE,
    REASONS,
    SOLVER_LINE,
    Signals,
    evidence,
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


def test_the_solver_s_line_after_a_move_and_its_undo_is_flagged() -> None:
    detoured = ["t3 t5", "undo", *LINE]  # the one move+undo before the line
    played = paced(detoured, HUMAN_GAPS + [800, 1900])
    assert SOLVER_LINE in reasons(signals_of(played, True, played[-1][1], LINE))


def test_the_solver_s_line_with_detours_and_moves_taken_back_is_flagged() -> None:
    detoured = [*LINE[:8], "w t2", "t2 w", *LINE[8:20], "s", "t6 f", "undo", "undo", *LINE[20:]]
    played = paced(detoured, (HUMAN_GAPS * 2)[: len(detoured)])
    signals = signals_of(played, True, played[-1][1], LINE)
    assert signals.line_kept == len(LINE) and signals.taken_back == 2
    assert SOLVER_LINE in reasons(signals)


def test_a_run_that_holds_less_than_nine_tenths_of_the_line_is_not_flagged() -> None:
    own = LINE[:5] + ["w t4", "t0 f", "s"] + LINE[8:26]  # 23 of the line's 30 moves
    played = paced(own, HUMAN_GAPS[: len(own)])
    signals = signals_of(played, True, played[-1][1], LINE)
    assert signals.line_kept == 23 and reasons(signals) == []


def test_the_line_s_moves_that_were_taken_back_do_not_count() -> None:
    undone = [*LINE, *["undo"] * 6]  # the line played, its last six moves undone
    played = paced(undone, (HUMAN_GAPS * 2)[: len(undone)])
    signals = signals_of(played, False, 0, LINE)
    assert signals.line_kept == 24 and reasons(signals) == []


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
    assert MACHINE_PACE in reasons(signals_of(played, False, 0))


BOT_GAPS = [310, 220, 395, 260, 340, 205, 380, 290, 240, 360]  # 200 to 400 ms, jittered


def test_think_times_in_a_narrow_band_are_flagged_though_neither_fast_nor_even() -> None:
    played = paced(LINE[:20], BOT_GAPS * 2)
    signals = signals_of(played, False, 0)
    assert signals.think_median_ms is not None and signals.think_median_ms > 200
    assert signals.think_cv is not None and signals.think_cv > 0.15
    assert reasons(signals) == [NARROW_PACE, QUICK_PACE]


def test_a_slower_narrow_band_is_flagged_as_narrow_only() -> None:
    played = paced(LINE[:20], [gap * 2 for gap in BOT_GAPS] * 2)  # 400 to 800 ms
    assert reasons(signals_of(played, False, 0)) == [NARROW_PACE]


def test_a_short_run_of_quick_think_times_in_a_band_is_flagged() -> None:
    played = paced(LINE[:8], BOT_GAPS[:8])  # a bot stuck after 8 moves
    signals = signals_of(played, False, 0)
    assert reasons(signals) == [QUICK_PACE]
    assert evidence(signals)[QUICK_PACE]["think_median_ms"] < 400


def test_a_quick_pace_is_not_judged_on_fewer_than_eight_actions() -> None:
    played = paced(LINE[:7], BOT_GAPS[:7])
    assert reasons(signals_of(played, False, 0)) == []


def test_a_short_run_in_a_band_at_a_person_s_median_is_not_flagged() -> None:
    gaps = [500, 700, 600, 450, 800, 550, 650, 900, 480, 620]  # a band, median over 400 ms
    assert reasons(signals_of(paced(LINE[:10], gaps), False, 0)) == []


def test_a_short_quick_run_with_pauses_is_not_flagged() -> None:
    gaps = [250, 300, 380, 260, 1200, 350, 900, 280, 320, 700]  # quick, but it pauses
    assert reasons(signals_of(paced(LINE[:10], gaps), False, 0)) == []


def test_a_person_s_fast_and_slow_moves_are_not_a_narrow_band() -> None:
    gaps = [400, 650, 500, 2100, 450, 900, 1300, 380, 700, 1600] * 2  # fast, with pauses
    played = paced(LINE[:20], gaps)
    assert reasons(signals_of(played, False, 0)) == []


def test_a_fast_or_even_pace_is_not_judged_on_fewer_than_twenty_actions() -> None:
    played = paced(LINE[:19], [100, 1200] * 9 + [100])  # fast median, far from a band
    assert reasons(signals_of(played, False, 0)) == []
    even = paced(LINE[:19], [1000, 1050, 980, 1020] * 4 + [1000] * 3)
    assert reasons(signals_of(even, False, 0)) == []


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


def test_each_flag_carries_the_figures_that_flag_it_and_the_rule_s_threshold() -> None:
    played = paced(["t3 t5", "undo", *LINE], BOT_GAPS * 3 + [300, 250])
    signals = signals_of(played, True, played[-1][1], LINE)
    found = evidence(signals)
    assert list(found) == reasons(signals) == [SOLVER_LINE, NARROW_PACE, QUICK_PACE]
    assert found[SOLVER_LINE]["line_kept"] == found[SOLVER_LINE]["line_length"] == 30
    assert found[SOLVER_LINE]["taken_back"] == 1 and found[SOLVER_LINE]["share_needed"] == 0.9
    assert found[NARROW_PACE]["think_p90_ms"] < 2 * found[NARROW_PACE]["think_p10_ms"]
    assert set(found) <= set(REASONS)


def test_a_run_flagged_for_nothing_has_no_evidence() -> None:
    played = paced(LINE, HUMAN_GAPS)
    assert evidence(signals_of(played, True, played[-1][1], None)) == {}


def test_signals_kept_before_the_detour_figures_still_read() -> None:
    played = paced(LINE, HUMAN_GAPS)
    old = signals_of(played, True, 1, LINE).as_dict()
    for later in ("line_kept", "standing", "taken_back", "think_p10_ms", "think_p90_ms"):
        del old[later]
    assert reasons(Signals.from_dict(old)) == []  # an old review: no line figure, no flag


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
    st.lists(st.integers(1, 10**7), max_size=30),
)
def test_signals_are_sound_and_survive_their_json(
    steps: list[tuple[str, int]],
    line: list[str] | None,
    history: list[int],
    finished: bool,
    field: list[int],
) -> None:
    played, t_ms = [], 0
    for action, gap in steps:
        t_ms += gap
        played.append((action, t_ms))
    signals = signals_of(played, finished, t_ms, line, history, field)
    assert signals.actions == len(played)
    assert 0 <= signals.undos <= signals.actions
    assert 0 <= signals.line_followed <= min(len(played), len(line or []))
    assert 0 <= signals.line_kept <= min(signals.standing, len(line or []))
    assert signals.standing + 2 * signals.taken_back <= signals.actions
    assert signals.think_cv is None or signals.think_cv >= 0
    assert Signals.from_dict(signals.as_dict()) == signals
    assert set(reasons(signals)) == set(evidence(signals)) <= set(REASONS)
    assert signals.field_runs == len(field)
    if not line:
        assert SOLVER_LINE not in reasons(signals)
