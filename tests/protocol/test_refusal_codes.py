"""Every refusal has a stable code and a sentence a person understands. One example per
code and message, a check that the engine raises no code without an example here, and a
check that docs/engine.md lists every code."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from positions import refusal, state

import protocol
from protocol.engine import Rules
from protocol.errors import IllegalAction
from protocol.games import rules_for
from protocol.notation import DEAL, TABLEAU_PILES, Move

SANIBEL = rules_for("sanibel")
SHADY = rules_for("shady_lanes")
SUNFLOWER = rules_for("mount_sunflower")
NO_UNDO = rules_for("sanibel", {"undo": False})
PROTOCOL_DIR = Path(protocol.__file__).parent
ENGINE_DOC = PROTOCOL_DIR.parent / "docs" / "engine.md"
ERROR_CLASSES = {"IllegalAction", "MalformedAction", "BadGame"}
ENGINE_SOURCES = ["engine.py", "notation.py", "cards.py", "deals.py", "games"]
# Codes shown by tests elsewhere: notation (test_action_notation), options and games
# (test_game_options), deal numbers (test_deal_numbers).
CODES_TESTED_ELSEWHERE = {
    "malformed_pile",
    "bad_options",
    "unknown_game",
    "bad_deal_number",
}

EXAMPLES: list[tuple[Rules, dict[str, Any], str, str, str]] = [
    (SANIBEL, {"stock": ""}, "deal", "stock_empty", "the stock is empty"),
    (
        SUNFLOWER,
        {"tableau": ["5C"], "stock": "9H"},
        "deal",
        "deal_refused",
        "in Mount Sunflower you may deal only while no tableau pile is empty",
    ),
    (NO_UNDO, {}, "undo", "undo_disabled", "undo is switched off in this game"),
    (SANIBEL, {}, "undo", "nothing_to_undo", "there is nothing to undo"),
    (SANIBEL, {"tableau": ["", "9C"]}, "t0 1 t1", "empty_source", "t0 is empty"),
    (
        SANIBEL,
        {"tableau": ["2C 9C | 8D 7S", "9C"]},
        "t0 3 t2",
        "not_enough_cards",
        "t0 has only 2 face-up cards to move",
    ),
    (
        SANIBEL,
        {"tableau": ["", "9C"], "waste": "2C 8D"},
        "w 2 t1",
        "group_not_movable",
        "only the top card of the waste may move",
    ),
    (
        SHADY,
        {"tableau": ["9H 8S", "10C"]},
        "t0 2 t1",
        "group_not_movable",
        "in Shady Lanes only one card moves at a time, never a sequence",
    ),
    (
        SUNFLOWER,
        {"tableau": ["9H 8S", "10C"]},
        "t0 2 t1",
        "group_not_movable",
        "only a run in one suit moves together, and 8♠ lies on 9♥",
    ),
    (
        SANIBEL,
        {"tableau": ["2S AS"]},
        "t0 2 f",
        "one_card_to_foundation",
        "cards go to a foundation one at a time",
    ),
    (SUNFLOWER, {"tableau": ["5C"]}, "t0 1 t7", "unknown_pile", "this game has no pile t7"),
    (SUNFLOWER, {"tableau": ["AC"]}, "t0 1 f4", "unknown_pile", "this game has no pile f4"),
    (SHADY, {"tableau": ["5C"]}, "t4 1 t0", "unknown_pile", "this game has no pile t4"),
    (SANIBEL, {"tableau": ["9C 8H"]}, "t0 1 t0", "same_pile", "a pile cannot move onto itself"),
    (
        SANIBEL,
        {"tableau": ["9S"], "waste": "7H"},
        "w 1 t0",
        "does_not_fit",
        "7♥ cannot go on 9♠: it needs an 8 of the other colour",
    ),
    (
        SUNFLOWER,
        {"tableau": ["10H", "8D"]},
        "t1 1 t0",
        "does_not_fit",
        "8♦ cannot go on 10♥: it needs a 9 of any suit",
    ),
    (
        SANIBEL,
        {"tableau": ["QH", "KS"]},
        "t1 1 t0",
        "does_not_fit",
        "K♠ cannot go on Q♥: a king goes only on an empty pile",
    ),
    (
        SHADY,
        {"tableau": ["", "8S"], "waste": "5D"},
        "w 1 t0",
        "fill_refused",
        "an empty tableau pile may be filled only from a reserve",
    ),
    (
        SANIBEL,
        {"tableau": ["5C"]},
        "t0 1 w",
        "wrong_destination",
        "no card may be moved onto the waste",
    ),
    (
        SANIBEL,
        {"tableau": ["5C"]},
        "t0 1 s",
        "wrong_destination",
        "no card may be moved onto the stock",
    ),
    (
        SHADY,
        {"tableau": ["5C"]},
        "t0 1 r0",
        "wrong_destination",
        "no card may be moved into a reserve",
    ),
    (
        SANIBEL,
        {"foundations": ["3C"]},
        "f0 1 t0",
        "foundation_is_final",
        "cards on a foundation never leave it",
    ),
    (
        SANIBEL,
        {"stock": "5C"},
        "s 1 t0",
        "wrong_source",
        "stock cards are turned with 'deal', never moved",
    ),
    (
        SANIBEL,
        {"waste": "4C"},
        "w 1 f",
        "foundation_refuses",
        "4♣ cannot go to a foundation: it needs 3♣ on top",
    ),
    (
        SANIBEL,
        {"foundations": ["2H"], "waste": "AH"},
        "w 1 f0",
        "foundation_refuses",
        "A♥ cannot go to f0: an ace needs an empty foundation",
    ),
    (
        SANIBEL,
        {"tableau": ["2C"]},
        "auto",
        "nothing_to_auto",
        "no card can go to a foundation now",
    ),
]


@pytest.mark.parametrize(
    ("rules", "piles", "action", "code", "message"),
    EXAMPLES,
    ids=[f"{example[3]}-{example[2]}" for example in EXAMPLES],
)
def test_each_refusal_has_its_code_and_message(
    rules: Rules, piles: dict[str, Any], action: str, code: str, message: str
) -> None:
    error = refusal(rules, state(rules, **piles), action)
    assert (error.code, error.message) == (code, message)
    assert error.as_dict() == {"code": code, "message": message}


def test_a_move_of_no_cards_is_refused_even_when_built_in_code() -> None:
    start = state(SANIBEL, tableau=["5C 3D | 8H"])
    with pytest.raises(IllegalAction) as caught:
        SANIBEL.apply(start, Move(TABLEAU_PILES[0], 0, TABLEAU_PILES[1]))
    assert (caught.value.code, caught.value.message) == (
        "malformed_action",
        "a move takes at least one card",
    )


def test_something_that_is_not_an_action_is_refused_by_apply() -> None:
    with pytest.raises(IllegalAction) as caught:
        SANIBEL.apply(SANIBEL.start(1), "deal")  # type: ignore[arg-type]
    assert caught.value.code == "malformed_action"
    assert SANIBEL.apply(SANIBEL.start(1), DEAL).counted == 1


def codes_in_source() -> set[str]:
    """Every code literal given to IllegalAction, MalformedAction or BadGame in the
    engine's modules, and the classes' default codes."""
    files = [PROTOCOL_DIR / "errors.py"]
    for name in ENGINE_SOURCES:
        path = PROTOCOL_DIR / name
        files += sorted(path.glob("*.py")) if path.is_dir() else [path]
    codes = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", "") in ERROR_CLASSES
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
            ):
                codes.add(str(node.args[1].value))
            if isinstance(node, ast.ClassDef) and path.name == "errors.py":
                for statement in node.body:
                    if isinstance(statement, ast.Assign) and isinstance(
                        statement.value, ast.Constant
                    ):
                        codes.add(str(statement.value.value))
    return codes - {"error"}


def test_every_code_the_engine_raises_has_an_example() -> None:
    shown = {example[3] for example in EXAMPLES} | CODES_TESTED_ELSEWHERE | {"malformed_action"}
    raised = codes_in_source()
    assert "does_not_fit" in raised
    assert raised - shown <= {"illegal_action", "bad_game"}


def test_docs_engine_md_lists_every_code() -> None:
    table_codes = set(re.findall(r"^\| `([a-z_]+)` \|", ENGINE_DOC.read_text("utf-8"), re.M))
    assert codes_in_source() <= table_codes
