"""Small positions written in the notation, so that rule tests read like the rules.

A pile is written bottom first, ``"3D AS | KD 7D"``: the cards before ``|`` are face down.
A foundation is written as its top card (``"3S"`` is AS 2S 3S). The waste is written
bottom first, the stock next card first. Piles left out are empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from protocol import cards
from protocol.cards import ACE
from protocol.engine import GameState, Outcome, Rules
from protocol.errors import IllegalAction
from protocol.notation import parse_action
from protocol.position import Cards, Position


def card_list(text: str) -> Cards:
    return tuple(cards.parse(word) for word in text.split())


def pile(text: str) -> tuple[Cards, int]:
    """The cards of ``"3D AS | KD 7D"`` bottom first, and how many lie face down."""
    if "|" in text:
        down, up = text.split("|")
        return card_list(down) + card_list(up), len(down.split())
    return card_list(text), 0


def foundation(top: str) -> Cards:
    """A foundation pile from its ace up to ``top`` (``""`` for an empty one)."""
    if not top:
        return ()
    card = cards.parse(top)
    return tuple(cards.make(rank, cards.suit(card)) for rank in range(ACE, cards.rank(card) + 1))


def position(
    rules: Rules,
    *,
    tableau: Sequence[str] = (),
    foundations: Sequence[str] = (),
    reserves: Sequence[str] = (),
    waste: str = "",
    stock: str = "",
) -> Position:
    """A position of ``rules``'s shape; every pile not given is empty."""
    piles = [pile(text) for text in tableau]
    piles += [((), 0)] * (rules.tableau_piles - len(piles))
    homes = [foundation(top) for top in foundations]
    homes += [()] * (rules.foundation_piles - len(homes))
    spares = [card_list(text) for text in reserves]
    spares += [()] * (rules.reserve_piles - len(spares))
    return Position(
        tableau=tuple(cards_ for cards_, _ in piles),
        face_down=tuple(down for _, down in piles),
        foundations=tuple(homes),
        reserves=tuple(spares),
        waste=card_list(waste),
        stock=card_list(stock),
    )


def state(rules: Rules, **piles: Sequence[str] | str) -> GameState:
    """A fresh game state (nothing to undo) at ``position(rules, **piles)``."""
    return GameState(position(rules, **piles))  # type: ignore[arg-type]


def play(rules: Rules, start: GameState, *actions: str) -> Outcome:
    """The outcome of the last of ``actions``, applied one after another from ``start``."""
    outcome = Outcome(start, [], 0)
    for text in actions:
        outcome = rules.apply(outcome.state, parse_action(text))
    return outcome


def refusal(rules: Rules, start: GameState, action: str) -> IllegalAction:
    """The IllegalAction ``action`` raises in ``start`` (the test fails if it is accepted)."""
    with pytest.raises(IllegalAction) as caught:
        rules.apply(start, parse_action(action))
    return caught.value


def legal(rules: Rules, start: GameState) -> list[str]:
    return [str(action) for action in rules.legal_actions(start)]
