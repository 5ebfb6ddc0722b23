"""Issue 32, "tap-to-best-place ignores suit": the page's own choice of a tapped card's
place (``client/web/js/moves.js``, run by node as the browser runs it), asked for every
card that may move in positions of every game reached by random legal play. The place is
one of the server's legal actions for that card; home when home is legal; onto a card
rather than an empty pile; and onto a card of the same suit when one is free (Mount
Sunflower builds regardless of suit but moves only same-suit runs)."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

from protocol.games import GAMES, rules_for
from protocol.notation import format_action
from protocol.race import view_json

MOVES_JS = Path(__file__).parents[2] / "client" / "web" / "js" / "moves.js"
DEALS, STEPS = range(1, 7), 60

# node reads the cases on stdin and prints each one's choice (null when none)
CHOOSE = f"""
import {{ bestPlace }} from {json.dumps(MOVES_JS.as_uri())};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);
console.log(JSON.stringify(cases.map((c) => bestPlace(c.legal, c.view, c.grab))));
"""


def cases_of(game: str) -> list[dict[str, Any]]:
    """Each (position, card that may move) met on random legal play of a few deals."""
    rules, found = rules_for(game), []
    for deal in DEALS:
        chance, state = random.Random(deal), rules.start(deal)
        for _ in range(STEPS):
            legal = [format_action(action) for action in rules.legal_actions(state)]
            view = view_json(rules.view(state))
            grabs = {tuple(a.split()[:2]) for a in legal if len(a.split()) == 3}
            found += [
                {"legal": legal, "view": view, "grab": {"pile": pile, "count": int(count)}}
                for pile, count in sorted(grabs)
            ]
            playable = [a for a in rules.legal_actions(state) if format_action(a) != "undo"]
            if not playable:
                break
            state = rules.apply(state, chance.choice(playable)).state
    return found


def chosen(cases: list[dict[str, Any]]) -> list[str | None]:
    done = subprocess.run(
        ["node", "--input-type=module", "-e", CHOOSE],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    answer: list[str | None] = json.loads(done.stdout)
    return answer


def moved_card(view: dict[str, Any], pile: str, count: int) -> str:
    if pile == "w":
        return str(view["waste"][-1])
    if pile[0] == "r":
        return str(view["reserves"][int(pile[1:])][-1])
    return str(view["tableau"][int(pile[1:])][-count])


def top_of(view: dict[str, Any], pile: str) -> str | None:
    """The card a move onto ``pile`` lands on; None for home and an empty pile."""
    if pile[0] != "t" or not view["tableau"][int(pile[1:])]:
        return None
    return str(view["tableau"][int(pile[1:])][-1])


def faults(case: dict[str, Any], choice: str | None) -> list[str]:
    """What is wrong with ``choice`` for ``case``: not legal, or not the most sensible."""
    view, grab = case["view"], case["grab"]
    prefix = f"{grab['pile']} {grab['count']} "
    places = [a.removeprefix(prefix) for a in case["legal"] if a.startswith(prefix)]
    if choice is None:
        onto = [p for p in places if p == "f" or top_of(view, p)]
        return [f"nothing chosen among {onto}"] if onto else []
    if not choice.startswith(prefix) or choice not in case["legal"]:
        return [f"{choice} is not a legal action for {prefix}"]
    place = choice.removeprefix(prefix)
    suit = moved_card(view, grab["pile"], grab["count"])[-1]
    same_suit = [p for p in places if (top_of(view, p) or " ")[-1] == suit]
    if "f" in places:
        return [] if place == "f" else [f"{choice} chosen while home is free"]
    if same_suit and place not in same_suit:
        return [f"{choice} chosen while {same_suit} hold the same suit"]
    if top_of(view, place) is None and any(top_of(view, p) for p in places):
        return [f"{choice} (an empty pile) chosen while a card is free"]
    return []


def test_a_tap_chooses_a_legal_and_sensible_place_in_every_game() -> None:
    problems, suit_choices = [], 0
    for game in GAMES:
        cases = cases_of(game)
        for case, choice in zip(cases, chosen(cases), strict=True):
            problems += [f"{game}: {fault}" for fault in faults(case, choice)]
            if game == "mount_sunflower":
                view, grab = case["view"], case["grab"]
                tops = {
                    (top_of(view, a.split()[2]) or " ")[-1]
                    for a in case["legal"]
                    if a.startswith(f"{grab['pile']} {grab['count']} ")
                }
                suit_choices += len(tops - {" "}) > 1
    assert problems == []
    assert suit_choices > 0  # positions where the suit decided were met


def test_a_four_of_clubs_goes_onto_the_five_of_clubs_not_the_five_of_hearts() -> None:
    view = {
        "tableau": [["9D", "5H"], ["4C"], ["KS", "5C"]],
        "face_down": [0, 0, 0],
        "waste": [],
        "stock": 0,
        "foundations": [[], [], [], []],
    }
    legal = ["t1 1 t0", "t1 1 t2", "deal"]
    assert chosen([{"legal": legal, "view": view, "grab": {"pile": "t1", "count": 1}}]) == [
        "t1 1 t2"
    ]
