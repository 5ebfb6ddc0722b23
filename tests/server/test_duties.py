"""The work handed on at a cadence (``server/duties.py``, ``handing_every``): its turns start
every so many seconds however long each takes (a turn that takes longer than the cadence
is followed by the next after a tenth of it), and only on a node holding its lease."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from harness import TEST_SETTINGS

from server.duties import Duties
from server.handover.inputs import ArenaFeedDue, ReadingInput
from server.store import MemoryStore


class Hands:
    """Takes each due handed, taking ``takes_s`` over it, and notes when each came."""

    def __init__(self, takes_s: float) -> None:
        self.takes_s = takes_s
        self.came: list[float] = []

    async def hand_reading(self, given: ReadingInput) -> None:
        self.came.append(time.monotonic())
        await asyncio.sleep(self.takes_s)


def duties(hands: Hands) -> Duties:
    nothing: Any = None  # the daily deals and the sweeper: not used by handing_every
    return Duties("node-a", MemoryStore(), TEST_SETTINGS, nothing, nothing, hands)  # type: ignore[arg-type]


async def turns(hands: Hands, every_s: float, lease: str | None, for_s: float) -> list[float]:
    """When the turns started, ``every_s`` apart, over ``for_s`` seconds."""
    handing = asyncio.ensure_future(
        duties(hands).handing_every(every_s, lease, ArenaFeedDue, "failed")
    )
    await asyncio.sleep(for_s)
    handing.cancel()
    await asyncio.gather(handing, return_exceptions=True)
    return [b - a for a, b in zip(hands.came, hands.came[1:], strict=False)]


async def test_the_turns_start_every_so_many_seconds_however_long_each_takes() -> None:
    gaps = await turns(Hands(takes_s=0.15), 0.25, None, 1.6)
    assert len(gaps) >= 4
    assert all(0.2 <= gap <= 0.33 for gap in gaps)  # not 0.25 s after each turn's end


async def test_a_turn_longer_than_the_cadence_is_followed_by_the_next_a_tenth_of_it_later() -> None:
    gaps = await turns(Hands(takes_s=0.4), 0.25, None, 1.5)
    assert len(gaps) >= 2
    assert all(0.4 <= gap <= 0.5 for gap in gaps)


async def test_no_turn_is_handed_on_a_node_without_the_lease() -> None:
    hands = Hands(takes_s=0.0)
    assert await turns(hands, 0.05, "timers", 0.3) == []
    assert hands.came == []
