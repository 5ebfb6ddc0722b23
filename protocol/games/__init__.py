"""The registry of games, keyed by their stable names: the one list of the games. Each entry
(``Game``, in ``protocol/games/entry.py``) carries what every part needs: the rules, the
solver's profile, the layout, an example move and the rules text; the server hands the
``catalog`` to every client in its welcome and at ``GET /games``. Adding a game is its rules
module, its solver profile and one line here (docs/games.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.engine import Rules
from protocol.errors import BadGame
from protocol.games import mount_sunflower, mount_sunflower_easy, sanibel, shady_lanes
from protocol.games.entry import Game
from protocol.games.mount_sunflower import MountSunflower
from protocol.games.mount_sunflower_easy import MountSunflowerEasy
from protocol.games.sanibel import Sanibel
from protocol.games.shady_lanes import ShadyLanes
from protocol.solver.sanibel_profile import SanibelProfile
from protocol.solver.shady_profile import ShadyLanesProfile
from protocol.solver.sunflower_profile import MountSunflowerEasyProfile, MountSunflowerProfile

GAMES: dict[str, Game] = {}


def register(game: Game) -> None:
    """Add ``game`` to the registry (after the others); a variant comes after its game."""
    if game.rules.variant_of is not None and game.rules.variant_of not in GAMES:
        raise ValueError(f"{game.name} is a variant of a game not registered before it")
    GAMES[game.name] = game


for _game in (
    Game(Sanibel, SanibelProfile, sanibel.LAYOUT, sanibel.EXAMPLE_MOVE, sanibel.TEXT),
    Game(
        ShadyLanes,
        ShadyLanesProfile,
        shady_lanes.LAYOUT,
        shady_lanes.EXAMPLE_MOVE,
        shady_lanes.TEXT,
    ),
    Game(
        MountSunflower,
        MountSunflowerProfile,
        mount_sunflower.LAYOUT,
        mount_sunflower.EXAMPLE_MOVE,
        mount_sunflower.TEXT,
    ),
    Game(
        MountSunflowerEasy,
        MountSunflowerEasyProfile,
        mount_sunflower.LAYOUT,
        mount_sunflower.EXAMPLE_MOVE,
        mount_sunflower_easy.TEXT,
    ),
):
    register(_game)


def game_entry(game: str) -> Game:
    """The registry's entry of ``game``; BadGame for an unknown game."""
    entry = GAMES.get(game) if isinstance(game, str) else None
    if entry is None:
        raise BadGame(
            f"{str(game)[:32]!r} is not a game here; the games are {', '.join(GAMES)}",
            "unknown_game",
        )
    return entry


def rules_for(game: str, options: Mapping[str, Any] | None = None) -> Rules:
    """The rules of ``game`` with ``options``; BadGame for an unknown game or bad option."""
    return game_entry(game).rules(options)


def catalog() -> list[dict[str, Any]]:
    """Every game as a client is told of it, in the registry's order: name, title, decks,
    default options, the game it is a variant of (None for none), layout, example move and
    rules text (``Game.describe``)."""
    return [game.describe(GAMES.get(game.rules.variant_of or "")) for game in GAMES.values()]
