"""What the browser client's page says agrees with the server: the games it serves (issue
25: the name screen said "three games"; there are four), and what makes a quick race rated
(issue 32: the lobby left out the address, the 3 moves and the finish)."""

from __future__ import annotations

import re
from pathlib import Path

from protocol.games import GAMES
from protocol.rated import MIN_ACTIONS, PAIR_RACES_A_DAY

PAGE = Path(__file__).resolve().parents[2] / "client" / "web" / "index.html"
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def test_the_name_screen_counts_the_games_the_server_serves() -> None:
    counted = re.findall(r"the (\w+) games", PAGE.read_text())
    assert counted, "the name screen says how many games there are"
    assert [NUMBERS[word] for word in counted] == [len(GAMES)] * len(counted)


def test_the_page_lists_no_game_of_its_own_the_server_s_list_fills_it() -> None:
    page = PAGE.read_text()
    for game, entry in GAMES.items():
        assert f'data-game="{game}"' not in page and f'value="{game}"' not in page
        assert entry.rules.title not in page


def test_no_script_of_the_page_names_a_game_it_reads_them_all_from_the_catalog() -> None:
    """Issue 34: layouts, deals, example moves and rules texts come from the server's
    catalog; no script branches on a game's name or says its title."""
    for script in sorted((PAGE.parent / "js").glob("*.js")):
        text = script.read_text()
        for game, entry in GAMES.items():
            assert f'"{game}"' not in text and f"{game}:" not in text, (script.name, game)
            assert entry.rules.title not in text, (script.name, entry.rules.title)


def test_the_lobby_says_every_rule_that_makes_a_quick_race_rated() -> None:
    panel = PAGE.read_text().split('id="quick-panel"')[1].split("</div>")[0]
    words = " ".join(panel.split())  # as it reads, across the source's lines
    for rule in (
        "between accounts",
        "not seen on one address that day",
        f"at least {MIN_ACTIONS} moves each",
        "someone finished or the time ran out",
        f"at most {PAIR_RACES_A_DAY} rated races a day",
        "never with a bot",
    ):
        assert rule in words, rule
