"""The server freezes long-lived objects for the garbage collector every tick, and a frozen
reference cycle is never collected: closed connections and ended sessions must therefore
leave no cycles behind, only objects that reference counting frees."""

from __future__ import annotations

import asyncio
import gc

from harness import player, running_server

from server.app import Client
from server.connection import MessageConnection
from server.sessions import Session


async def test_closed_connections_and_ended_sessions_leave_no_cyclic_garbage() -> None:
    gc.unfreeze()  # what earlier tests in this process left frozen is not this test's
    gc.collect()
    async with running_server(grace_ms=100, feed_interval_ms=10) as server:
        clients = [await player(server, f"p{i}") for i in range(20)]
        race = (await clients[0].create_race("sanibel", deal=5))["race"]
        await clients[1].join_race(race)
        await asyncio.sleep(0.1)  # several ticks: everything so far is frozen
        for client in clients:
            await client.close()
        await asyncio.sleep(0.5)  # past the grace period: every session has ended
        assert not server.sessions
        gc.unfreeze()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            kinds = (MessageConnection, Session, Client)
            stuck = [kind.__name__ for kind in map(type, gc.garbage) if kind in kinds]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert stuck == []
