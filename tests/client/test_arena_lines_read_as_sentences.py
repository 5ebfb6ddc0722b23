"""What the arena screens say of an arena (``client/web/js/arena_lines.js``, run by node as
the browser runs it; docs/browser.md, "Arenas"): the countdown, to the second, on the
server's clock; who may enter; where I stand; a streak's mark; and the lines shown (the
top, then mine when I am below it, never twice)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

LINES_JS = Path(__file__).parents[2] / "client" / "web" / "js" / "arena_lines.js"

# node reads [function, arguments] pairs on stdin and prints each one's answer
ASK = f"""
import * as lines from {json.dumps(LINES_JS.as_uri())};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const asked = JSON.parse(input);
console.log(JSON.stringify(asked.map(([name, args]) => lines[name](...args))));
"""

ARENA = {"start_ms": 1_000_000, "end_ms": 1_000_000 + 3_600_000}


def answers(*asked: tuple[str, list[Any]]) -> list[Any]:
    """What node's arena_lines.js answers to each (function, arguments)."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", ASK],
        input=json.dumps(asked),
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    result: list[Any] = json.loads(done.stdout)
    return result


def line(player: str, rank: int, **fields: Any) -> dict[str, Any]:
    base = {"rank": rank, "player": player, "name": player, "points": 0, "heats": 1}
    return {**base, "wins": 0, "streak": 0, "on_streak": False, "risk_wins": 0, **fields}


def test_an_arena_to_come_counts_down_to_its_start_to_the_second() -> None:
    before = ARENA["start_ms"] - (12 * 60 + 9) * 1000
    assert answers(
        ("countdownText", [ARENA, before]), ("countdownText", [ARENA, before + 1000])
    ) == [
        "starts in 12 min 09 s",
        "starts in 12 min 08 s",
    ]


def test_a_running_arena_counts_down_to_its_end_hours_included() -> None:
    assert answers(
        ("countdownText", [{**ARENA, "end_ms": ARENA["end_ms"] + 123_000}, ARENA["start_ms"]])
    ) == ["ends in 1 h 02 min 03 s"]


def test_an_arena_past_its_end_is_over() -> None:
    assert answers(("countdownText", [ARENA, ARENA["end_ms"]])) == ["over"]


@pytest.mark.parametrize(
    ("conditions", "said"),
    [
        ({}, "accounts in good standing"),
        (
            {"rating_min": 1200, "rating_max": 1800, "min_rated_games": None},
            "accounts in good standing, rated 1200–1800",
        ),
        ({"rating_min": 1200}, "accounts in good standing, rated 1200 or more"),
        ({"rating_max": 1800}, "accounts in good standing, rated 1800 or less"),
        (
            {"min_rated_games": 10},
            "accounts in good standing, at least 10 rated games in the game",
        ),
    ],
    ids=["anyone", "band", "low-end", "high-end", "games"],
)
def test_who_may_enter_says_every_condition_the_arena_has(
    conditions: dict[str, Any], said: str
) -> None:
    assert answers(("conditionsText", [conditions])) == [said]


def test_where_i_stand_says_my_place_points_and_streak() -> None:
    page = {"players": 14, "me": line("me", 3, points=5, streak=2, on_streak=True)}
    assert answers(
        ("mineText", [page, False]),
        ("mineText", [{**page, "me": line("me", 1, points=1)}, True]),
        ("mineText", [{"players": 4, "me": None}, False]),
        ("mineText", [{"players": 4, "me": None}, True]),
    ) == [
        "You are 3rd of 14, 5 points, on a streak (x2).",
        "You placed 1st of 14, 1 point.",
        "You have no heat scored yet.",
        "You raced no heat that counted.",
    ]


def test_a_player_on_a_streak_is_marked_x2_and_one_who_is_not_by_their_wins_in_a_row() -> None:
    assert answers(
        ("streakText", [line("a", 1, streak=3, on_streak=True)]),
        ("streakText", [line("b", 2, streak=1)]),
        ("streakText", [line("c", 3)]),
    ) == ["x2 (3 wins in a row)", "1 won", "—"]


def test_my_line_follows_the_top_when_i_am_below_it_and_is_never_shown_twice() -> None:
    top = [line("a", 1), line("b", 2), line("c", 3)]
    below = {"top": top, "me": line("me", 7)}
    within = {"top": top, "me": top[1]}
    shown = answers(
        ("shownLines", [below, 2]),
        ("shownLines", [within, 3]),
        ("shownLines", [None, 5]),
    )
    assert [[one["player"] for one in lines] for lines in shown] == [
        ["a", "b", "me"],
        ["a", "b", "c"],
        [],
    ]
