"""Positions drawn as plain text, for the command line and the terminal client."""

from __future__ import annotations

from protocol.cards import HIDDEN, name
from protocol.engine import Rules
from protocol.position import Position


def _cards(cards: tuple[int, ...]) -> str:
    return " ".join(name(c) for c in cards) if cards else "-"


def draw(position: Position, rules: Rules, show_all: bool = True) -> str:
    """The position, one pile a line, face-down cards in brackets. With ``show_all`` false
    face-down and stock cards are not shown (what a player sees)."""
    lines = []
    for i, (pile, down) in enumerate(zip(position.tableau, position.face_down, strict=True)):
        hidden = pile[:down]
        if hidden and (not show_all or HIDDEN in hidden):
            head = f"[{down} down] "
        elif hidden:
            head = f"[{_cards(hidden)}] "
        else:
            head = ""
        lines.append(f"t{i}: {head}{_cards(pile[down:]) if pile[down:] or not head else ''}")
    for i, reserve in enumerate(position.reserves):
        lines.append(f"r{i}: {_cards(reserve)}")
    if rules.has_waste:
        lines.append(f"w:  {_cards(position.waste)}")
    stock = position.stock
    if show_all and stock and HIDDEN not in stock:
        lines.append(f"s:  {len(stock)} cards, next first: {_cards(stock)}")
    else:
        lines.append(f"s:  {len(stock)} cards")
    tops = [name(p[-1]) if p else "-" for p in position.foundations]
    lines.append(f"f:  {' '.join(tops)}  ({position.progress()}/{rules.card_total} home)")
    return "\n".join(line.rstrip() for line in lines)
