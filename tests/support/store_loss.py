"""A store that comes back with less than it acknowledged, for the clients' tests: the
in-memory store drops a racer's last log entries, and the node reads the race back as it
does each time its store's connection comes back (``server/races/read_back.py``). The real loss,
a Redis put back to older append-only files, is ``tests/server/test_store_lost_actions.py``'s."""

from __future__ import annotations

from server.app import RaceServer
from server.handover.inputs import ReadBackDue
from server.handover.moment import now
from server.store import MemoryStore


async def store_keeps_only(server: RaceServer, player: str, keep: int) -> None:
    """``player``'s only race on ``server`` keeps their first ``keep`` log entries in the
    store; the node then reads it back (and tells its racers)."""
    store = server.store
    assert isinstance(store, MemoryStore)
    (room,) = server.races.racing(player)
    del store.races._logs[room.id][player][keep:]
    await server.executor.hand_reading(ReadBackDue(room, now()))
