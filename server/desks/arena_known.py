"""What the pairer of an arena knows of it between its ticks (docs/arenas.md, "A tick's
reads"), kept while it holds one lease token: every heat started, the log as read so far
and its standings (``protocol.arena.Scorer``, kept as the log grows), the heats with no
result yet, each player's latest opponents and the latest wave's number. While the token
holds no other node starts or takes back a heat (both are fenced by it), so the heats
change only by this node's own doing, and each tick reads only the log's new tail (results
appended by any node, clearings, removals, withdrawals). A new token (the lease taken
again, after it lapsed or was taken by another node) means another node may have paired
meanwhile: everything is read again (``read``).

A heat is scored as its race ends by the node holding its first racer's session
(``server/desks/arena_scoring.py``); the pairer scores a heat over only once it has known it
over for ``SCORED_AT_END_MS`` (``left_over``), so that the two seldom both work it out
(appending it twice would change nothing: a result is appended once)."""

from __future__ import annotations

from protocol.arena import HeatResult, Scorer
from server.store import Store
from server.store.arena_records import HeatStart

SCORED_AT_END_MS = 5_000  # a heat over this long unscored is the pairer's to score


class KnownArena:
    def __init__(self, arena: str, token: int) -> None:
        self.arena = arena
        self.token = token  # the lease token under which all this was read
        self.scorer = Scorer()  # the log read so far (``scorer.log``) and its standings
        self.unscored: dict[str, HeatStart] = {}  # heats with no result in the log yet
        self.scored: set[str] = set()  # heats with a result in the log
        self.last: dict[str, frozenset[str]] = {}  # player -> the others of their last heat
        self.wave = 0  # the latest wave's number (0: none yet)
        self.over_since: dict[str, int] = {}  # heat -> when first known over, unscored

    async def read(self, store: Store) -> list[HeatStart]:
        """Everything read from the store: the heats, then the whole log; the heats scored."""
        for heat in await store.arenas.heats(self.arena):  # by start time
            self.started(heat)
        return await self.read_tail(store)

    async def read_tail(self, store: Store) -> list[HeatStart]:
        """The log's entries appended since it was last read; the heats they scored."""
        new = await store.arenas.log(self.arena, len(self.scorer.log))
        self.scorer.add(new)
        scored: list[HeatStart] = []
        for entry in new:
            if isinstance(entry, HeatResult):
                self.scored.add(entry.heat)
                self.over_since.pop(entry.heat, None)
                heat = self.unscored.pop(entry.heat, None)
                if heat is not None:
                    scored.append(heat)
        return scored

    def left_over(self, over: list[HeatStart], now_ms: int) -> list[HeatStart]:
        """Of the heats ``over`` (their races not live, unscored), those known over for
        ``SCORED_AT_END_MS`` by ``now_ms``: left unscored by their racers' node."""
        for heat in over:
            self.over_since.setdefault(heat.heat, now_ms)
        return [h for h in over if now_ms - self.over_since[h.heat] >= SCORED_AT_END_MS]

    def started(self, heat: HeatStart) -> None:
        """A heat recorded under the token (and its race opened), or read."""
        if heat.heat not in self.scored:
            self.unscored[heat.heat] = heat
        for player in heat.racers:
            self.last[player] = frozenset(heat.racers) - {player}
        self.wave = max(self.wave, heat.wave)
