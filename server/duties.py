"""The work done once per deployment, by whichever node holds its lease (``LEASES``):
``timers`` (the sweeper: lost nodes' players, races' time limits; and quick pairing) and
``daily`` (choose and certify the daily deals, a day ahead). Every node says it is alive
as it renews its leases, and first compares its clock with the store's: a node whose
clock is off takes no lease, and gives up those it holds (``server/carry/clock_check.py``)."""

from __future__ import annotations

import asyncio
import logging
from typing import Final

from protocol.daily import day_of
from server.carry.clock_check import ClockCheck
from server.carry.sweeper import Sweeper
from server.config import Settings
from server.desks.arena_feed import FEED_EVERY_S
from server.desks.arena_pairer import PAIR_EVERY_S as ARENA_EVERY_S
from server.desks.daily import DailyDeals
from server.desks.pairing import PAIR_EVERY_S
from server.handover.inputs import ArenaFeedDue, ArenaPairingDue, FieldJudgeDue, PairingDue
from server.handover.moment import now
from server.handover.ports import Hands
from server.races.field_judge import FIELD_JUDGE_EVERY_S
from server.store import Store

log = logging.getLogger("solrace.server")

LEASES: Final = ("timers", "daily")
LEASE_TTL_MS: Final = 10_000  # a lease lapses this long after its holder stops renewing it


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

    async def pair(self) -> None:
        """The ``timers`` lease holder pairs the quick-race pools, often: players wait."""
        while True:
            await asyncio.sleep(PAIR_EVERY_S)
            if "timers" not in self.leases:
                continue
            try:
                await self.hands.hand_reading(PairingDue(now()))
            except Exception:
                log.warning("pairing the quick-race pools failed", exc_info=True)

    async def run_arenas(self) -> None:
        """The ``timers`` lease holder runs the arenas (each under its own fenced lease
        besides: ``server/desks/arena_pairer.py``)."""
        while True:
            await asyncio.sleep(ARENA_EVERY_S)
            if "timers" not in self.leases:
                continue
            try:
                await self.hands.hand_reading(ArenaPairingDue(now()))
            except Exception:
                log.warning("running the arenas failed", exc_info=True)

    async def judge_fields(self) -> None:
        """The ``daily`` lease holder judges the day's ranked daily runs that waited for the
        day's field (``server/races/field_judge.py``)."""
        while True:
            await asyncio.sleep(FIELD_JUDGE_EVERY_S)
            if "daily" not in self.leases:
                continue
            try:
                await self.hands.hand_reading(FieldJudgeDue(now()))
            except Exception:
                log.warning("judging daily runs against the day's field failed", exc_info=True)

    async def feed_arenas(self) -> None:
        """Every node tells its players the standings of the arenas they are in or watch."""
        while True:
            await asyncio.sleep(FEED_EVERY_S)
            try:
                await self.hands.hand_reading(ArenaFeedDue(now()))
            except Exception:
                log.warning("telling arena standings failed", exc_info=True)

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
