"""Cards as small integers, and their notation (`AS`, `10H`, `QD`).

A card is ``rank * 4 + suit`` with rank 1 (ace) .. 13 (king) and suit 0..3 in the
order C, S, H, D, so clubs and spades (suits 0, 1) are black and hearts and diamonds
(2, 3) red. The two copies of a card in a two-deck game are the same integer: the rules
never tell them apart. ``HIDDEN`` (0) stands for a card a viewer may not see.
"""

from __future__ import annotations

from protocol.errors import MalformedAction

Card = int

HIDDEN: Card = 0
ACE = 1
KING = 13
SUITS = "CSHD"
RANKS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_WORDS = ("", "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")


def make(rank: int, suit: int) -> Card:
    """The card of this rank (1..13) and suit index (0..3, order C S H D)."""
    return rank * 4 + suit


def rank(card: Card) -> int:
    return card >> 2


def suit(card: Card) -> int:
    return card & 3


def is_red(card: Card) -> bool:
    return card & 2 == 2


def colour_name(card: Card) -> str:
    return "red" if is_red(card) else "black"


def name(card: Card) -> str:
    """The notation of a card: ``10H``; ``??`` for a hidden card."""
    return _NAMES[card]


def names(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return list(map(_NAMES.__getitem__, cards))


SUIT_SYMBOLS = "♣♠♥♦"  # in the order of SUITS: how players see the suits


def shown(card: Card) -> str:
    """A card as players see it on the table (browser and terminal), for sentences: ``10♥``."""
    return RANKS[rank(card)] + SUIT_SYMBOLS[suit(card)]


def rank_phrase(rank_value: int) -> str:
    """Rank with its article, for sentences: ``an ace``, ``a 10``, ``an 8``, ``a king``."""
    word = _RANK_WORDS[rank_value]
    return ("an " if word[0] in "a8" else "a ") + word


_BY_NAME = {RANKS[r] + SUITS[s]: make(r, s) for r in range(ACE, KING + 1) for s in range(4)}
_NAMES = ["??"] * (make(KING, 3) + 1)  # notation by card number, looked up on every message
for _text, _card in _BY_NAME.items():
    _NAMES[_card] = _text


def parse(text: str) -> Card:
    """The card named by ``text`` (``AS``, ``10H``); MalformedAction if it names none."""
    card = _BY_NAME.get(text)
    if card is None:
        raise MalformedAction(f"{text[:12]!r} is not a card: write rank then suit, like AS or 10H")
    return card


def deck(decks: int) -> list[Card]:
    """Cards in PySolFC's creation order: deck by deck, suits C S H D, ace to king."""
    return [make(r, s) for _ in range(decks) for s in range(4) for r in range(ACE, KING + 1)]
