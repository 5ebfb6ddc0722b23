"""What the browser client's page says of the games agrees with the games the server
serves (issue 25: the name screen said "three games"; there are four)."""

from __future__ import annotations

import re
from pathlib import Path

from protocol.games import GAMES

PAGE = Path(__file__).resolve().parents[2] / "client" / "web" / "index.html"
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def test_the_name_screen_counts_the_games_the_server_serves() -> None:
    counted = re.findall(r"the (\w+) games", PAGE.read_text())
    assert counted, "the name screen says how many games there are"
    assert [NUMBERS[word] for word in counted] == [len(GAMES)] * len(counted)


def test_the_page_lists_no_game_of_its_own_the_server_s_list_fills_it() -> None:
    page = PAGE.read_text()
    games = PAGE.parent / "js" / "games.js"
    for game, rules in GAMES.items():
        assert f'data-game="{game}"' not in page and f'value="{game}"' not in page
        assert rules.title not in games.read_text()
