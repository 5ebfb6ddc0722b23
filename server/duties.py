"""The work done once per deployment, by whichever node holds its lease (``LEASES``):
``timers`` (the sweeper: lost nodes' players, races' time limits; and quick pairing) and
``daily`` (choose and certify the daily deals, a day ahead). Every node says it is alive
as it renews its leases, and first compares its clock with the store's: a node whose
clock is off takes no lease, and gives up those it holds (``server/carry/clock_check.py``)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, Final

from protocol.daily import day_of
from protocol.race import Now
from server.carry.clock_check import ClockCheck
from server.carry.sweeper import Sweeper
from server.config import Settings
from server.desks.arena_feed import FEED_EVERY_S
from server.desks.arena_pairer import PAIR_EVERY_S as ARENA_EVERY_S
from server.desks.daily import DailyDeals
from server.desks.pairing import PAIR_EVERY_S
from server.handover.inputs import (
    ArenaFeedDue,
    ArenaPairingDue,
    FieldJudgeDue,
    PairingDue,
    ReadingInput,
)
from server.handover.moment import now
from server.handover.ports import Hands
from server.races.field_judge import FIELD_JUDGE_EVERY_S
from server.store import Store

log = logging.getLogger("solrace.server")

LEASES: Final = ("timers", "daily")
LEASE_TTL_MS: Final = 10_000  # a lease lapses this long after its holder stops renewing it
# Work handed on at a cadence: its task's name, every how many seconds, the lease its node
# must hold (None: every node), what is handed, what is logged when it fails. The
# ``timers`` lease holder pairs the quick-race pools (often: players wait) and runs the
# arenas (each under its own fenced lease besides: ``server/desks/arena_pairer.py``);
# every node tells its players the standings of the arenas they are in or watch; the
# ``daily`` lease holder judges the ranked daily runs that waited for the day's field
# (``server/races/field_judge.py``).
REPEATED: Final[tuple[tuple[str, float, str | None, Callable[[Now], ReadingInput], str], ...]] = (
    ("pairing", PAIR_EVERY_S, "timers", PairingDue, "pairing the quick-race pools failed"),
    ("arenas", ARENA_EVERY_S, "timers", ArenaPairingDue, "running the arenas failed"),
    ("arena-feed", FEED_EVERY_S, None, ArenaFeedDue, "telling arena standings failed"),
    (
        "field-judge",
        FIELD_JUDGE_EVERY_S,
        "daily",
        FieldJudgeDue,
        "judging daily runs against the day's field failed",
    ),
)


class Duties:
    def __init__(
        self,
        node: str,
        store: Store,
        settings: Settings,
        daily: DailyDeals,
        sweeper: Sweeper,
        hands: Hands,
    ) -> None:
        """``hands``: where the pairing due is handed, to be decided and carried out."""
        self.node = node
        self.clock = ClockCheck(settings.max_clock_offset_ms)
        self.store = store
        self.settings = settings
        self.daily = daily
        self.sweeper = sweeper
        self.hands = hands
        self.leases: set[str] = set()  # the leases this node holds
        self.prepared_for = ""  # the day the daily lease holder last prepared deals on
        self.preparing: asyncio.Task[None] | None = None

    def prepare_days(self) -> None:
        """The daily lease holder prepares today's and tomorrow's deals once a day (and at
        once when it takes the lease over), so nobody waits for a proof at midnight."""
        today = day_of(now().wall_ms)
        if self.prepared_for == today:
            return
        if self.preparing is not None and not self.preparing.done():
            return
        self.prepared_for = today
        self.preparing = asyncio.create_task(self.daily.prepare_ahead(now().wall_ms))

    async def handing_every(
        self,
        seconds: float,
        lease: str | None,
        due: Callable[[Now], ReadingInput],
        failed: str,
    ) -> None:
        """Every ``seconds``, while this node holds ``lease`` (None: on every node), hand
        ``due(now())`` to be decided and carried out; a failure is logged as ``failed`` and
        the next turn tries again. The turns start ``seconds`` apart however long each
        takes (a turn waited ``seconds`` after the last one's end: the arena feed's half
        second became a second and more under load); one that took longer is followed by
        the next a tenth of ``seconds`` after its end, so other work gets its turn."""
        await asyncio.sleep(seconds)
        while True:
            began = time.monotonic()
            if lease is None or lease in self.leases:
                try:
                    await self.hands.hand_reading(due(now()))
                except Exception:
                    log.warning(failed, exc_info=True)
            took = time.monotonic() - began
            await asyncio.sleep(max(seconds - took, seconds / 10))

    def repeated(self) -> list[tuple[str, Coroutine[Any, Any, None]]]:
        """``REPEATED``'s work, each named, handed on at its cadence."""
        return [
            (name, self.handing_every(seconds, lease, due, failed))
            for name, seconds, lease, due, failed in REPEATED
        ]

    async def hold_leases(self) -> None:
        """Say this node is alive, and claim and renew the leases of work done once per
        deployment: ``timers`` (the sweeper: lost nodes' players, races' time limits) and
        ``daily`` (choose and certify the daily deals, a day ahead)."""
        while True:
            try:
                await self.store.bus.node_alive(self.node, LEASE_TTL_MS)
            except Exception:
                log.warning("could not say this node is alive", exc_info=True)
            if await self.clock_off():
                await asyncio.sleep(self.settings.sweep_every_s)
                continue
            for name in LEASES:
                try:
                    held = await self.store.bus.claim_lease(name, self.node, LEASE_TTL_MS)
                except Exception:
                    log.warning("could not renew a lease", exc_info=True, extra={"lease": name})
                    held = False
                if held and name not in self.leases:
                    self.leases.add(name)
                    log.info("lease taken", extra={"lease": name, "node": self.node})
                elif not held:
                    self.leases.discard(name)
            if "daily" in self.leases:
                self.prepare_days()
            if "timers" in self.leases:
                try:
                    await self.sweeper.sweep(now())
                except Exception:
                    log.warning("sweeping lost nodes and time limits failed", exc_info=True)
            await asyncio.sleep(self.settings.sweep_every_s)

    async def clock_off(self) -> bool:
        """Compare this node's clock with the store's; when it is off, give up every lease
        held (another node takes them over) and say True."""
        try:
            await self.clock.measure(self.store.bus)
        except Exception:
            log.warning("could not read the store's clock", exc_info=True)
        if not self.clock.off:
            return False
        for name in sorted(self.leases):
            self.leases.discard(name)  # no more of its work here; unreleased, it lapses
            log.info("lease given up", extra={"lease": name, "node": self.node})
            try:
                await self.store.bus.release_lease(name, self.node)
            except Exception:
                log.warning("could not give a lease up", exc_info=True, extra={"lease": name})
        return True

    def running(self) -> list[asyncio.Task[None]]:
        """The task preparing deals, if one was started (stopped with the server's)."""
        return [] if self.preparing is None else [self.preparing]
