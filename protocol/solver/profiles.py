"""Every game's solver profile, by game (``profile_for``); what a profile is and promises is
in ``protocol/solver/profile.py``."""

from __future__ import annotations

from protocol.engine import Rules
from protocol.errors import BadGame
from protocol.solver.profile import Draws as Draws
from protocol.solver.profile import Profile as Profile
from protocol.solver.sanibel_profile import SanibelProfile
from protocol.solver.shady_profile import ShadyLanesProfile
from protocol.solver.sunflower_profile import MountSunflowerEasyProfile, MountSunflowerProfile

PROFILES: dict[str, type[Profile]] = {
    "sanibel": SanibelProfile,
    "shady_lanes": ShadyLanesProfile,
    "mount_sunflower": MountSunflowerProfile,
    "mount_sunflower_easy": MountSunflowerEasyProfile,
}


def profile_for(rules: Rules) -> Profile:
    """The solver's profile of ``rules``' game; BadGame if the solver does not know it."""
    cls = PROFILES.get(rules.name)
    if cls is None:
        raise BadGame(f"the solver does not know the game {rules.name!r}", "unknown_game")
    return cls(rules)
