"""A pairing wave's heats stand alone (docs/arenas.md, "Playing an arena" 2): a heat that
cannot open (here: a racer already holds the most races not yet started that one may)
takes nothing from the other heats of its wave, whose racers are told ``paired`` as
always. A real server on the in-memory store."""

from __future__ import annotations

import asyncio
import time

from harness import member, running_server

from server.races.race_desk import MAX_OPEN_RACES
from server.store import MemoryStore

HOUR_MS = 3_600_000
GAME = "sanibel"


async def test_a_heat_that_cannot_open_takes_nothing_from_the_other_heats_of_its_wave() -> None:
    store = MemoryStore()
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as server:
        ann, bob, cy, dee = [await member(server, name) for name in ("Ann", "Bob", "Cy", "Dee")]
        for _ in range(MAX_OPEN_RACES):  # Bob may join no other race until one starts
            await bob.create_race(GAME)
        arenas = await ann.list_arenas(GAME)
        arena = next(a["id"] for a in arenas if a["status"] == "running")
        await ann.join_arena(arena)  # the arena's record is made
        now = int(time.time() * 1000)
        for client in (bob, cy, dee):  # at once: one wave pairs all four
            assert client.player is not None
            await store.arenas.join(arena, client.player, now)
        heats = []
        for _ in range(100):
            heats = await store.arenas.heats(arena)
            if len(heats) == 2:
                break
            await asyncio.sleep(0.05)
        assert len(heats) == 2 and heats[0].wave == heats[1].wave
        other = next(heat for heat in heats if bob.player not in heat.racers)
        clients = {client.player: client for client in (ann, cy, dee)}
        for player in other.racers:
            told = await clients[player].next_event("paired", timeout=10)
            assert told.data["race"]["race"] == other.heat
        for client in (ann, bob, cy, dee):
            await client.close()
