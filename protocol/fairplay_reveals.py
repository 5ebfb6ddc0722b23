"""Clairvoyance, measured and kept for the record (docs/fairness.md, "Measured, not kept:
clairvoyance"): did the cards a run turned up turn out useful more often than chance
allows? Pure. No rule uses one run's: on the bench's players it does not tell a player
who knows the deal from one who does not; summed over an account's ranked daily runs it
does, sometimes (``protocol/fairplay_account.py``, rule ``lucky_account``).

A *blind reveal* is a face-down card an action turned up that the player had not seen (a
card seen before and hidden again by ``undo`` is known: turning it up again is not
blind). From what the player sees, the card under a pile is any of the cards it has not
seen (face down anywhere, or in the stock) alike: a shuffled deal puts any unseen card in
any unseen place. So a player who cannot see them chooses what to turn up independently
of which card lies where, and the chance that the card turned up is *useful* at once (it
may go to a foundation or onto another card, or another card may go onto it) is exactly
``p``: the share of the unseen cards that would be useful if they had lain there. Over a
run the useful reveals ``lucky`` have expectation ``expected`` (the sum of the ``p``)
and variance ``variance`` (the sum of ``p (1 - p)``) for anyone who cannot see the
hidden cards; ``z`` says how far above it a run lies. Every action as played counts,
undos and all: a card seen through a probe and ``undo`` is known, so turning it up again
is not blind, and the probe's own reveal counts like any other. A deal's cards are seen
(they are known after an ``undo``) but are no blind reveal: when to deal is the
player's choice, which card comes is not; nor are the cards ``auto`` turns up (it may
send them home in the same action).

Generic over the games: it reads only the ``Rules`` interface (``moves``, ``play``, the
events) and the position's piles (a game with no face-down tableau card, Shady Lanes,
has no blind reveal).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from protocol.engine import Rules
from protocol.errors import IllegalAction
from protocol.events import Dealt, Event, Revealed
from protocol.notation import Move, Pile, parse_action
from protocol.position import Position

UNDO = "undo"
Slot = tuple[int, int]  # (tableau pile, place from the bottom) of a face-down card
Place = tuple[str, int, int]  # where an unseen card lies: ("t", pile, place) or ("s", 0, place)


@dataclass(frozen=True, slots=True)
class Reveals:
    """``blind``: blind reveals; ``lucky``: those that turned up a useful card;
    ``expected``, ``variance``: what ``lucky`` is, on average and in spread, for a player
    who cannot see the hidden cards."""

    blind: int = 0
    lucky: int = 0
    expected: float = 0.0
    variance: float = 0.0

    def z(self) -> float | None:
        """How many standard deviations ``lucky`` lies above ``expected`` (None: no spread)."""
        if self.variance <= 0:
            return None
        return (self.lucky - self.expected) / math.sqrt(self.variance)


@dataclass
class Knowledge:
    """What the player has seen of the hidden places: face-down places turned up (then
    hidden again by ``undo``), and stock cards dealt, each by its place counted from the
    stock's bottom (a place that does not move while cards are dealt from the top)."""

    slots: set[Slot]
    stock: set[int]


def reveals_of(rules: Rules, start: Position, actions: Sequence[str]) -> Reveals:
    """The blind reveals of the run of ``actions`` (as accepted, ``undo`` included) from
    the deal ``start`` (every card known: the server's), and how lucky they were. An
    action the rules refuse ends the count there (a log is accepted actions only)."""
    stack = [start]
    known = Knowledge(set(), set())
    blind = lucky = 0
    expected = variance = 0.0
    for text in actions:
        if text == UNDO:
            if len(stack) > 1:
                stack.pop()
            continue
        position = stack[-1]
        try:
            action = parse_action(text)
            after, events, _ = rules.play(position, action)
        except IllegalAction:
            break
        chosen = type(action) is Move
        for useful, chance in draws(rules, position, after, events, known, chosen):
            blind, lucky = blind + 1, lucky + useful
            expected, variance = expected + chance, variance + chance * (1 - chance)
        stack.append(after)
    return Reveals(blind, lucky, round(expected, 3), round(variance, 3))


def draws(
    rules: Rules,
    position: Position,
    after: Position,
    events: Sequence[Event],
    known: Knowledge,
    chosen: bool,
) -> list[tuple[int, float]]:
    """For each card a move (``chosen``) turned up that the player had not seen: whether
    it was useful (1 or 0) and the chance ``p`` that it would have been for a player who
    cannot see (the share of the cards it had not seen that would be useful there).
    ``known`` learns the cards any action turned up (``auto`` and ``deal`` too, which
    make no blind reveal: ``auto`` may send the card home at once)."""
    turned: list[int] = []  # the tableau piles whose turned-up card was unseen
    for event in events:
        if type(event) is Revealed and event.pile.index is not None:
            slot = (event.pile.index, position.face_down[event.pile.index] - 1)
            if slot not in known.slots:
                turned.append(event.pile.index)
            known.slots.add(slot)
        elif type(event) is Dealt:  # seen, but no choice of the player's turned it up
            known.stock.update(
                len(position.stock) - 1 - offset for offset in range(len(event.cards))
            )
    if not turned or not chosen:
        return []
    pool = unseen_places(after, known)
    out = []
    for index in turned:
        useful = rules.useful_tops(after, index)
        lucky = useful(after.tableau[index][-1])
        hits = sum(map(useful, (card_at(after, place) for place in pool)))
        out.append((int(lucky), (hits + lucky) / (len(pool) + 1)))
    return out


def unseen_places(after: Position, known: Knowledge) -> list[Place]:
    """Where the cards the player has not seen lie in ``after``: each face-down place and
    each stock card it has not seen."""
    places: list[Place] = [
        ("t", index, place)
        for index, down in enumerate(after.face_down)
        for place in range(down)
        if (index, place) not in known.slots
    ]
    stock = len(after.stock)
    return places + [("s", 0, at) for at in range(stock) if stock - 1 - at not in known.stock]


def card_at(after: Position, place: Place) -> int:
    """The card lying at ``place`` of ``after``."""
    kind, index, at = place
    return after.stock[at] if kind == "s" else after.tableau[index][at]


def is_useful(rules: Rules, position: Position, pile: Pile) -> bool:
    """Tableau ``pile``'s top card (just turned up) is useful there (``Rules.useful_tops``:
    it may move at once to a foundation or onto another card, or another card onto it)."""
    index = pile.index or 0
    return rules.useful_tops(position, index)(position.tableau[index][-1])
