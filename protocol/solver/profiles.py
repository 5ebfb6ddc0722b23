"""Every game's solver profile, by game (``profile_for``), as the game registry's entry
names it; what a profile is and promises is in ``protocol/solver/profile.py``."""

from __future__ import annotations

from protocol.engine import Rules
from protocol.errors import BadGame
from protocol.solver.profile import Draws as Draws
from protocol.solver.profile import Profile as Profile


def profile_for(rules: Rules) -> Profile:
    """The solver's profile of ``rules``' game; BadGame if the registry does not know it."""
    # Looked up when asked: the registry imports the profiles (and, through this package,
    # the solver), so importing it here at load time would go round in a circle.
    from protocol.games import GAMES

    entry = GAMES.get(rules.name)
    if entry is None:
        raise BadGame(f"the solver does not know the game {rules.name!r}", "unknown_game")
    return entry.profile(rules)
