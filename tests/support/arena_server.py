"""What the tests of arenas on a running server share (tests/server/test_arena_waves.py,
test_arena_tick_reads.py): the trial arena entered and running, and its lease taken from
the server by a node that then dies."""

from __future__ import annotations

import asyncio

from client.api import Client
from server.desks.arena_pairer import LEASE_MS
from server.store import Store

GAME = "sanibel"
DEAD_NODE = "a-node-that-died"


async def running(store: Store, arena: str) -> None:
    """The arena is running in the store (its entrants were checked again at its start)."""
    for _ in range(200):
        record = await store.arenas.arena(arena)
        if record is not None and record.status == "running":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"arena {arena} never ran")


async def entered(store: Store, client: Client) -> str:
    """The running trial arena, ``client`` in it and the arena running in the store."""
    arenas = await client.list_arenas(GAME)
    arena = next(a["id"] for a in arenas if a["status"] == "running")
    await client.join_arena(arena)  # the arena's record is made
    await running(store, arena)
    return str(arena)


async def dead_node_s_lease(store: Store, arena: str, node: str) -> int:
    """The arena's lease taken from the server's ``node`` (released) by ``DEAD_NODE``: its
    token, newer than the server's, so the server reads everything again once it pairs
    again (under a newer one still)."""
    for _ in range(50):
        token = await store.arenas.take_lease(arena, node, LEASE_MS)  # the server's own
        assert token is not None
        await store.arenas.release_lease(arena, node, token)
        taken = await store.arenas.take_lease(arena, DEAD_NODE, LEASE_MS)
        if taken is not None:  # else the server's pairer took it back meanwhile
            return taken
    raise AssertionError("the server never let its arena's lease go")
