"""What solrace's /metrics say of a ``bench server`` phase: the growth of its histograms
between two readings."""

from __future__ import annotations

from typing import Any

from bench.serverreadings import answer_times


def _act_histogram(within: dict[str, float], count: float) -> dict[tuple[str, Any], float]:
    samples: dict[tuple[str, Any], float] = {
        ("solrace_act_seconds_bucket", (("le", le),)): n for le, n in within.items()
    }
    samples[("solrace_act_seconds_count", ())] = count
    samples[("solrace_act_seconds_sum", ())] = 0.0
    return samples


def test_the_server_s_own_answer_times_are_what_its_act_histogram_grew_by_in_the_phase() -> None:
    earlier = {"0.0005": 50, "0.001": 90, "0.002": 100, "0.005": 100, "0.01": 100, "+Inf": 100}
    grown = {"0.0005": 600, "0.001": 950, "0.002": 985, "0.005": 1000, "0.01": 1000, "+Inf": 1000}
    before = _act_histogram(earlier, 100)
    after = _act_histogram({le: earlier[le] + n for le, n in grown.items()}, 1100)
    answered = answer_times(before, after)
    assert answered["actions"] == 1000
    assert answered["share_within_ms"]["0.5"] == 0.6
    assert answered["share_within_ms"]["2"] == 0.985
    assert answered["share_within_ms"]["10"] == 1.0
    assert answered["p99_at_most_ms"] == 5.0  # 98.5 % within 2 ms, all within 5


def test_a_server_without_the_act_histogram_reports_no_answer_times() -> None:
    assert answer_times({}, {}) == {"actions": 0}
