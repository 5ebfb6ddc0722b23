"""The registry of games, keyed by their stable names."""

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
