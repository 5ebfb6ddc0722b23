"""Positions: where every card lies, as one immutable value shared by all four games.

Piles are tuples of cards, bottom first. A tableau pile's lowest ``face_down[i]`` cards are
face down. The stock is a tuple with the next card to be dealt first. Games that lack a
kind of pile leave it empty (no reserves outside Shady Lanes, no waste in Mount Sunflower).

A *masked* position is what a viewer may see: every face-down card and every stock card
replaced by ``HIDDEN``. It has the same shape, so the same legal-move code runs on both.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from protocol.cards import HIDDEN, Card, names

Cards = tuple[Card, ...]


class Position(NamedTuple):
    """Where every card lies (a tuple: cheap to build, compare and hash)."""

    tableau: tuple[Cards, ...]
    face_down: tuple[int, ...]
    foundations: tuple[Cards, ...]
    reserves: tuple[Cards, ...]
    waste: Cards
    stock: Cards

    def progress(self) -> int:
        """Cards on the foundations."""
        return sum(map(len, self.foundations))

    def card_count(self) -> int:
        return (
            sum(len(p) for p in self.tableau)
            + sum(len(p) for p in self.foundations)
            + sum(len(p) for p in self.reserves)
            + len(self.waste)
            + len(self.stock)
        )

    def masked(self) -> Position:
        """This position as any viewer sees it: face-down and stock cards are HIDDEN."""
        tableau = tuple(
            (HIDDEN,) * down + pile[down:] if down else pile
            for pile, down in zip(self.tableau, self.face_down, strict=True)
        )
        return Position(
            tableau,
            self.face_down,
            self.foundations,
            self.reserves,
            self.waste,
            (HIDDEN,) * len(self.stock),
        )

    def fingerprint(self) -> str:
        """A stable hex digest of where every card lies (same in every process and version)."""
        return hashlib.blake2b(self.canonical_bytes(), digest_size=16).hexdigest()

    def canonical_bytes(self) -> bytes:
        parts: list[int] = []
        for group in (self.tableau, self.foundations, self.reserves, (self.waste, self.stock)):
            for pile in group:
                parts.extend(pile)
                parts.append(255)
            parts.append(254)
        parts.extend(self.face_down)
        return bytes(parts)

    def pack(self) -> bytes:
        """``canonical_bytes``: one byte per card and per face-down count, 255 after each
        pile and 254 after each kind of pile, which ``Position.unpack`` reads back exactly.
        ValueError if a card or a count is not below 254 (it would read back as an end)."""
        data = self.canonical_bytes()  # ValueError for a value outside 0-255
        piles = len(self.tableau) + len(self.foundations) + len(self.reserves) + 2
        if data.count(255) != piles or data.count(254) != 4:
            raise ValueError("a card or a face-down count is 254 or more")
        return data

    @classmethod
    def unpack(cls, data: bytes) -> Position:
        """The position that ``pack`` gave ``data`` for."""
        tableau, foundations, reserves, talon, face_down = data.split(b"\xfe")
        waste, stock = _piles(talon)
        return cls(
            _piles(tableau), tuple(face_down), _piles(foundations), _piles(reserves), waste, stock
        )

    def dealer_json(self, game: str, number: int) -> dict[str, Any]:
        """Every card shown, in the format of ``solrace deal --json`` (cards bottom first)."""
        layout: dict[str, Any] = {
            "game": game,
            "number": str(number),
            "tableau": [names(p) for p in self.tableau],
            "face_down": list(self.face_down),
        }
        if self.reserves:
            layout["reserves"] = [names(p) for p in self.reserves]
        layout["waste"] = names(self.waste)
        layout["stock"] = names(self.stock)
        layout["foundations"] = [names(p) for p in self.foundations]
        return layout

    def revealed_json(self) -> dict[str, Any]:
        """``view_json`` and the face-down cards too (``face_down_cards``, each pile's
        bottom first): for a deal everyone may know, once it is revealed."""
        down = [names(p[:d]) for p, d in zip(self.tableau, self.face_down, strict=True)]
        return {**self.view_json(), "face_down_cards": down}

    def view_json(self) -> dict[str, Any]:
        """What any viewer may see: face-up cards only, with counts of the hidden ones.

        ``tableau`` lists each pile's face-up cards bottom first; ``face_down`` counts the
        cards under them; ``stock`` is a count.
        """
        layout: dict[str, Any] = {
            "tableau": [names(p[d:]) for p, d in zip(self.tableau, self.face_down, strict=True)],
            "face_down": list(self.face_down),
        }
        if self.reserves:
            layout["reserves"] = [names(p) for p in self.reserves]
        layout["waste"] = names(self.waste)
        layout["stock"] = len(self.stock)
        layout["foundations"] = [names(p) for p in self.foundations]
        return layout


def _piles(data: bytes) -> tuple[Cards, ...]:
    """The piles of one kind in ``Position.pack``'s bytes (each ends with 255)."""
    return tuple(map(tuple, data.split(b"\xff")[:-1]))
