"""Shuffled decks by deal number, exactly as PySolFC shuffles them.

Deal numbers run from 1 to 10**20 - 1. Below 32000 PySolFC uses the Microsoft-compatible
generator (``LCRandom31``), re-ordering a 52-card deck first (``ms_rearrange``); from
32000 on it uses ``MTRandom(n)``. The generators come from the ``pysol-cards`` package; its
own ``shuffle()`` switches at ``<= 32000`` and is deliberately not used.
"""

from __future__ import annotations

from typing import Final

from pysol_cards.cards import ms_rearrange
from pysol_cards.random import LCRandom31, MTRandom

from protocol.cards import Card, deck
from protocol.errors import BadGame

MIN_DEAL: Final = 1
MAX_DEAL: Final = 10**20 - 1
FIRST_MT_DEAL: Final = 32000


def check_deal_number(number: int) -> int:
    """``number`` itself when it is a deal number; BadGame otherwise."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise BadGame("a deal number is a whole number", "bad_deal_number")
    if not MIN_DEAL <= number <= MAX_DEAL:
        raise BadGame(
            f"deal numbers run from {MIN_DEAL} to {MAX_DEAL} (20 digits)", "bad_deal_number"
        )
    return number


def parse_deal_number(text: str) -> int:
    """The deal number written in decimal as ``text``; BadGame otherwise."""
    if not (text.isascii() and text.isdecimal()) or len(text) > 20:
        raise BadGame(f"{text[:24]!r} is not a deal number", "bad_deal_number")
    return check_deal_number(int(text))


def shuffled(number: int, decks: int) -> list[Card]:
    """The cards of ``decks`` decks shuffled for deal ``number``; the last is dealt first."""
    check_deal_number(number)
    cards = deck(decks)
    if number < FIRST_MT_DEAL:
        generator = LCRandom31()
        generator.setSeed(number)
        if len(cards) == 52:
            cards = ms_rearrange(cards)
    else:
        generator = MTRandom(number)
        # pysol_cards keeps a bound method of the generator in its ``initial_state``: a
        # reference cycle, which a server that freezes its objects for the garbage
        # collector would keep for good (about 20 KB a deal). Break it.
        generator.initial_state = None
    result: list[Card] = generator.shuffle(cards)
    return result
