"""Arena heats and the open-races limit (docs/arenas.md, "Playing an arena" 3): a player
may be in at most ``MAX_OPEN_RACES`` races not yet started that they created or joined
themselves (it keeps one player from hoarding open races), but a heat is opened by the
server: a racer at that limit is still put in their heats, and a heat waiting for its
racers takes no room from the races a player opens themselves. A real server on both
stores, trial arenas of an hour."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
from harness import member, running_server

from protocol.games import rules_for
from protocol.race import RaceSettings
from server.app import RaceServer
from server.handover.moment import now
from server.races.race_desk import MAX_OPEN_RACES
from server.store import Store

HOUR_MS = 3_600_000
GAME = "sanibel"


@pytest.fixture
async def server(store: Store) -> AsyncIterator[RaceServer]:
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as running:
        yield running


async def test_racers_who_hold_the_most_open_races_one_may_are_still_put_in_their_heats(
    server: RaceServer,
) -> None:
    ann, bob = [await member(server, name) for name in ("Ann", "Bob")]
    for client in (ann, bob):  # neither may create or join another race until one starts
        for _ in range(MAX_OPEN_RACES):
            await client.create_race(GAME)
    arenas = await ann.list_arenas(GAME)
    arena = next(a["id"] for a in arenas if a["status"] == "running")
    for client in (ann, bob):
        await client.join_arena(arena)
    heats = {
        client.player: (await client.next_event("paired", timeout=10)).data["race"]["race"]
        for client in (ann, bob)
    }
    assert heats[ann.player] == heats[bob.player]
    for client in (ann, bob):
        await client.close()


async def test_a_heat_still_waiting_for_its_racers_takes_no_room_from_a_player_s_own_races(
    server: RaceServer,
) -> None:
    ann = await member(server, "Ann")
    assert ann.player is not None
    heat = RaceSettings(  # as the arena pairer opens a heat, its first racer in it
        game=GAME,
        options=dict(rules_for(GAME).options),
        deal=1,
        max_players=2,
        public=True,
        nonce=secrets.token_hex(16),
        ranked=True,
        paired=True,
        arena=f"{GAME}-hourly-20261206T0400",
    )
    await server.race_desk.open_room(heat, ann.player, "Ann", now(), account=True)
    for _ in range(MAX_OPEN_RACES):
        await ann.create_race(GAME)
    await ann.close()
