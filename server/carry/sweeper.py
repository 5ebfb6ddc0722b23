"""Race timers that must run once per deployment, whatever node is lost: run by the node
holding the ``timers`` lease (it moves to another node when its holder dies).

- Players of a node that died (its ``alive`` key lapsed) who have not come back anywhere
  since are dropped from their races once the grace period has passed (their node would
  have done it, had it lived).
- Races past their longest allowed duration end (everyone still playing did not finish).

Players whose node lives are that node's business: it drops them itself after their grace
period, unless they went to another node meanwhile.

It finds who and what is due and decides nothing: each is handed on (``LostWithNode``,
``TimeLimitDue``: ``server/handover/inputs.py``) to be decided and carried out.
"""

from __future__ import annotations

import logging

from protocol.race import Now
from server.handover.inputs import LostWithNode, TimeLimitDue
from server.handover.ports import Hands
from server.store import Store

log = logging.getLogger("solrace.sweeper")

TIME_LIMITS_EVERY_S = 30.0  # how often races' durations are checked (at most)


class Sweeper:
    def __init__(
        self,
        node: str,
        store: Store,
        grace_ms: int,
        max_race_ms: int,
        hands: Hands,
    ) -> None:
        self.node = node
        self.store = store
        self.grace_ms = grace_ms
        self.max_race_ms = max_race_ms
        self.hands = hands
        self.missing: dict[str, int] = {}  # player of a dead node -> when first seen so
        self.done: set[tuple[str, str]] = set()  # (dead node, player) dropped already
        self.limits_checked = 0.0
        # a race ends at most a tenth of its limit late (30 s for 4 hours)
        self.limits_every_s = min(TIME_LIMITS_EVERY_S, max_race_ms / 10_000)

    async def sweep(self, moment: Now) -> None:
        """One round (the lease holder calls it every few seconds)."""
        for node, alive in (await self.store.bus.nodes()).items():
            if not alive and node != self.node:
                await self._dead(node, moment)
        if moment.mono_ms / 1000 - self.limits_checked >= self.limits_every_s:
            self.limits_checked = moment.mono_ms / 1000
            await self._time_limits(moment)

    async def _dead(self, node: str, moment: Now) -> None:
        players = [p for p in await self.store.bus.node_players(node) if (node, p) not in self.done]
        if not players:
            await self.store.bus.forget_node(node)
            self.done = {(n, p) for n, p in self.done if n != node}
            log.info("a lost node's players are seen to", extra={"lost": node})
            return
        for player in players:
            since = self.missing.setdefault(player, moment.mono_ms)
            if moment.mono_ms - since < self.grace_ms:
                continue
            await self.hands.hand_reading(LostWithNode(player, moment))
            self.done.add((node, player))
            self.missing.pop(player, None)
            log.info("dropped a player of a lost node", extra={"player": player, "lost": node})

    async def _time_limits(self, moment: Now) -> None:
        races = await self.store.races.listed_races("live")
        for race_id, record in zip(races, await self.store.races.load_races(races), strict=True):
            start = record.get("start_at_ms") if record else None
            if start is None or moment.wall_ms - start <= self.max_race_ms:
                continue
            await self.hands.hand_reading(TimeLimitDue(race_id, moment))
