"""What the pairer of an arena knows of it between its ticks (docs/arenas.md, "A tick's
reads"), kept while it holds one lease token: every heat started, the log as read so far
and its standings (``protocol.arena.Scorer``, kept as the log grows), the heats with no
result yet, each player's latest opponents and the latest wave's number. While the token
holds no other node starts or takes back a heat (both are fenced by it), so the heats
change only by this node's own doing, and each tick reads only the log's new tail (results
appended by any node, clearings, removals, withdrawals). A new token (the lease taken
again, after it lapsed or was taken by another node) means another node may have paired
meanwhile: everything is read again (``read``)."""

from __future__ import annotations

from protocol.arena import HeatResult, Scorer
from server.store import Store
from server.store.arena_records import HeatStart


class KnownArena:
    def __init__(self, arena: str, token: int) -> None:
        self.arena = arena
        self.token = token  # the lease token under which all this was read
        self.scorer = Scorer()  # the log read so far (``scorer.log``) and its standings
        self.unscored: dict[str, HeatStart] = {}  # heats with no result in the log yet
        self.scored: set[str] = set()  # heats with a result in the log
        self.last: dict[str, frozenset[str]] = {}  # player -> the others of their last heat
        self.wave = 0  # the latest wave's number (0: none yet)

    @classmethod
    async def read(cls, store: Store, arena: str, token: int) -> KnownArena:
        """Everything read from the store: the heats, then the whole log."""
        known = cls(arena, token)
        for heat in await store.arenas.heats(arena):  # by start time
            known.started(heat)
        await known.read_tail(store)
        return known

    async def read_tail(self, store: Store) -> None:
        """The log's entries appended since it was last read."""
        new = await store.arenas.log(self.arena, len(self.scorer.log))
        self.scorer.add(new)
        for entry in new:
            if isinstance(entry, HeatResult):
                self.scored.add(entry.heat)
                self.unscored.pop(entry.heat, None)

    def started(self, heat: HeatStart) -> None:
        """A heat recorded under the token (and its race opened), or read."""
        if heat.heat not in self.scored:
            self.unscored[heat.heat] = heat
        for player in heat.racers:
            self.last[player] = frozenset(heat.racers) - {player}
        self.wave = max(self.wave, heat.wave)
