"""The registry of games, keyed by their stable names: the one list of the games, which
the server also hands every client in its welcome (``catalog``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.engine import Rules
from protocol.errors import BadGame
from protocol.games.mount_sunflower import MountSunflower
from protocol.games.mount_sunflower_easy import MountSunflowerEasy
from protocol.games.sanibel import Sanibel
from protocol.games.shady_lanes import ShadyLanes

GAMES: dict[str, type[Rules]] = {
    game.name: game for game in (Sanibel, ShadyLanes, MountSunflower, MountSunflowerEasy)
}


def rules_for(game: str, options: Mapping[str, Any] | None = None) -> Rules:
    """The rules of ``game`` with ``options``; BadGame for an unknown game or bad option."""
    cls = GAMES.get(game) if isinstance(game, str) else None
    if cls is None:
        raise BadGame(
            f"{str(game)[:32]!r} is not a game here; the games are {', '.join(GAMES)}",
            "unknown_game",
        )
    return cls(options)


def catalog() -> list[dict[str, Any]]:
    """Every game as a client is told of it: its name, title, decks, options with their
    defaults, and the game it is a variant of (None for none), in the registry's order."""
    return [
        {
            "game": game.name,
            "title": game.title,
            "decks": game.decks,
            "options": dict(game.option_defaults),
            "variant_of": game.variant_of,
        }
        for game in GAMES.values()
    ]
