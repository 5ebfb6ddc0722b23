"""What tests look for in frames: every card a decoded message names, and the cards a
racer's position hides (face down in the tableau, and the stock)."""

from __future__ import annotations

import re
from typing import Any

from protocol.cards import name
from protocol.engine import GameState

CARD = re.compile(r"^(A|[2-9]|10|J|Q|K)[CSHD]$")


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a decoded message, but in the welcome's game catalog:
    its rules' example boards are the same on every server, whatever the deal."""
    if isinstance(value, dict) and value.get("type") == "welcome":
        value = {key: field for key, field in value.items() if key != "games"}
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def hidden(state: GameState) -> set[str]:
    """The cards its racer cannot see: face down in the tableau, and the stock."""
    position = state.position
    down = {
        name(card)
        for pile, count in zip(position.tableau, position.face_down, strict=True)
        for card in pile[:count]
    }
    return down | {name(card) for card in position.stock}
