"""Mount Sunflower Easy: Mount Sunflower, but a deal is allowed whenever the stock has cards."""

from __future__ import annotations

from protocol.games.entry import RulesText
from protocol.games.mount_sunflower import MountSunflower


class MountSunflowerEasy(MountSunflower):
    name = "mount_sunflower_easy"
    title = "Mount Sunflower Easy"
    variant_of = "mount_sunflower"
    deal_needs_full_tableau = False


TEXT = RulesText(
    lead="Mount Sunflower with one change: Deal is allowed at any time while the stock has "
    "cards (in Mount Sunflower only while no pile is empty), so the game never locks itself."
)
