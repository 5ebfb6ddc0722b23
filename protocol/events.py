"""What an action caused, in order: the events a player sees after each accepted action.

Every card an event names was face up after the event (a revealed card, a dealt card, a
refill), so events never carry hidden information.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.cards import Card, name, names
from protocol.notation import Pile


@dataclass(frozen=True, slots=True)
class Moved:
    """``cards`` (bottom first) went from ``src`` to ``dst`` (always a numbered pile)."""

    src: Pile
    dst: Pile
    cards: tuple[Card, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": "moved",
            "src": self.src.text,
            "dst": self.dst.text,
            "cards": names(self.cards),
        }


@dataclass(frozen=True, slots=True)
class Revealed:
    """The face-down card now on top of ``pile`` turned face up: it is ``card``."""

    pile: Pile
    card: Card

    def as_dict(self) -> dict[str, Any]:
        return {"type": "revealed", "pile": str(self.pile), "card": name(self.card)}


@dataclass(frozen=True, slots=True)
class Dealt:
    """``deal``: card ``cards[i]`` went from the stock face up onto ``piles[i]``."""

    piles: tuple[Pile, ...]
    cards: tuple[Card, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"type": "dealt", "piles": [str(p) for p in self.piles], "cards": names(self.cards)}


@dataclass(frozen=True, slots=True)
class Refilled:
    """The empty reserve ``reserve`` took ``card`` from ``src`` (the waste or the stock)."""

    reserve: Pile
    src: Pile
    card: Card

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": "refilled",
            "reserve": str(self.reserve),
            "src": str(self.src),
            "card": name(self.card),
        }


@dataclass(frozen=True, slots=True)
class Undone:
    """The action ``action`` (in the notation) was taken back; the position is as before it."""

    action: str

    def as_dict(self) -> dict[str, Any]:
        return {"type": "undone", "action": self.action}


Event = Moved | Revealed | Dealt | Refilled | Undone
