"""The solver's line against a run's standing actions (protocol/fairplay_line.py): undos
take out what they took back, and the bit-parallel common subsequence is the textbook one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol.fairplay_line import common_length, line_match, standing_actions


def textbook_common_length(line: list[str], run: list[str]) -> int:
    """The longest common subsequence by the quadratic table."""
    row = [0] * (len(run) + 1)
    for item in line:
        diagonal = 0
        for index, other in enumerate(run, start=1):
            above = row[index]
            row[index] = diagonal + 1 if item == other else max(row[index], row[index - 1])
            diagonal = above
    return row[-1]


def test_an_undo_takes_out_itself_and_the_action_it_took_back() -> None:
    assert standing_actions(["a", "b", "undo", "c", "d", "undo", "undo", "e"]) == (["a", "e"], 3)


def test_an_undo_with_nothing_to_take_back_takes_out_only_itself() -> None:
    assert standing_actions(["undo", "a"]) == (["a"], 0)


def test_moves_added_anywhere_leave_the_whole_line_in_common() -> None:
    line = ["a", "b", "c", "d"]
    assert line_match(["x", "a", "y", "b", "c", "x", "undo", "z", "d"], line).kept == 4


def test_the_line_s_moves_played_out_of_order_count_only_once_in_order() -> None:
    assert common_length(["a", "b", "c", "d"], ["d", "c", "b", "a"]) == 1


@given(
    st.lists(st.sampled_from("abcd"), max_size=40),
    st.lists(st.sampled_from("abcde"), max_size=60),
)
def test_the_bit_parallel_length_is_the_textbook_one(line: list[str], run: list[str]) -> None:
    assert common_length(line, run) == textbook_common_length(line, run)
