"""Piles and actions, and their notation: ``t3 2 t5``, ``w 1 f``, ``deal``, ``auto``, ``undo``.

Parsing checks only the form; whether a pile exists in a game and whether an action is
allowed is for the rules (IllegalAction). Actions are immutable values that compare equal
when they are the same action, so ``parse(format(a)) == a``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Final

from protocol.errors import MalformedAction

MAX_ACTION_LENGTH: Final = 32
STOCK: Final = "s"
WASTE: Final = "w"
FOUNDATION: Final = "f"
RESERVE: Final = "r"
TABLEAU: Final = "t"
_INDEXED = {FOUNDATION: 8, RESERVE: 4, TABLEAU: 10}  # the most piles of a kind any game has


@dataclass(frozen=True, slots=True)
class Pile:
    """A pile: ``kind`` is one of s w f r t; ``index`` is None for s, w and for ``f`` alone."""

    kind: str
    index: int | None = None
    text: str = field(init=False, repr=False, compare=False)  # the notation, made once

    def __post_init__(self) -> None:
        text = self.kind if self.index is None else f"{self.kind}{self.index}"
        object.__setattr__(self, "text", text)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Move:
    """Move the top ``count`` cards of ``src`` onto ``dst`` (``f`` = any foundation)."""

    src: Pile
    count: int
    dst: Pile

    def __str__(self) -> str:
        return f"{self.src.text} {self.count} {self.dst.text}"


@dataclass(frozen=True, slots=True)
class Deal:
    def __str__(self) -> str:
        return "deal"


@dataclass(frozen=True, slots=True)
class Auto:
    def __str__(self) -> str:
        return "auto"


@dataclass(frozen=True, slots=True)
class Undo:
    def __str__(self) -> str:
        return "undo"


Action = Move | Deal | Auto | Undo

DEAL: Final = Deal()
AUTO: Final = Auto()
UNDO: Final = Undo()
ANY_FOUNDATION: Final = Pile(FOUNDATION)
WASTE_PILE: Final = Pile(WASTE)
STOCK_PILE: Final = Pile(STOCK)
TABLEAU_PILES: Final = tuple(Pile(TABLEAU, i) for i in range(_INDEXED[TABLEAU]))
RESERVE_PILES: Final = tuple(Pile(RESERVE, i) for i in range(_INDEXED[RESERVE]))
FOUNDATION_PILES: Final = tuple(Pile(FOUNDATION, i) for i in range(_INDEXED[FOUNDATION]))
_WORDS: Final[dict[str, Action]] = {"deal": DEAL, "auto": AUTO, "undo": UNDO}
_PILES: Final = {
    str(p): p
    for p in (STOCK_PILE, WASTE_PILE, ANY_FOUNDATION)
    + TABLEAU_PILES
    + RESERVE_PILES
    + FOUNDATION_PILES
}


def parse_pile(text: str) -> Pile:
    """The pile named by ``text`` (``t3``, ``w``, ``f``); MalformedAction otherwise."""
    pile = _PILES.get(text)
    if pile is None:
        raise MalformedAction(
            f"{text[:12]!r} is not a pile: use s, w, f, f0-f7, r0-r3 or t0-t9",
            "malformed_pile",
        )
    return pile


def parse_action(text: str) -> Action:
    """The action written as ``text``; MalformedAction if it is not in the notation."""
    if not isinstance(text, str):
        raise MalformedAction("an action is a string such as 't3 2 t5' or 'deal'")
    if len(text) > MAX_ACTION_LENGTH:
        raise MalformedAction(f"an action is at most {MAX_ACTION_LENGTH} characters long")
    words = text.split()
    if len(words) == 1 and words[0] in _WORDS:
        return _WORDS[words[0]]
    if len(words) != 3:
        raise MalformedAction(
            f"{text!r} is not an action: write 'SRC N DST' (like 't3 2 t5'), "
            "'deal', 'auto' or 'undo'"
        )
    src, count, dst = words
    if not count.isdecimal() or not count.isascii() or count.startswith("0"):
        raise MalformedAction(f"{count!r} is not a card count: write a whole number from 1")
    return Move(parse_pile(src), int(count), parse_pile(dst))


@functools.lru_cache(maxsize=4096)
def parse_canonical(text: str) -> tuple[Action, str]:
    """``parse_action(text)`` and the action's own notation, remembered for the last few
    thousand texts: a server parses the same few hundred actions over and over."""
    action = parse_action(text)
    return action, str(action)


def format_action(action: Action) -> str:
    return str(action)
