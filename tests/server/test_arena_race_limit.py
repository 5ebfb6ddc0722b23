"""Arena heats are the server's races (docs/arenas.md, "Playing an arena" 3). A player
may be in at most ``MAX_OPEN_RACES`` races not yet started that they created or joined
themselves (it keeps one player from hoarding open races), but a heat is opened by the
server: a racer at that limit is still put in their heats, and a heat waiting for its
racers takes no room from the races a player opens themselves. And a heat holds exactly
its paired racers: the pairer opens its race with its first racer in it, then seats the
others one by one, so for a moment it is an open public race with room; nobody else takes
a seat in it then (a stranger's ``join_race`` is refused ``race_paired``, and the open
races listed hold no heat), or the heat's result would name a racer it was not started
with, which the store refuses to score. A race quick pairing opens is the server's alike.
A real server on both stores, trial arenas of an hour."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
from harness import member, running_server

from client.api import ServerError
from protocol.games import rules_for
from protocol.race import RaceSettings
from server.app import RaceServer
from server.handover.moment import now
from server.races.race_desk import MAX_OPEN_RACES
from server.store import Store

HOUR_MS = 3_600_000
GAME = "sanibel"
ARENA = f"{GAME}-hourly-20261206T0400"


@pytest.fixture
async def server(store: Store) -> AsyncIterator[RaceServer]:
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as running:
        yield running


def paired_settings(arena: str | None) -> RaceSettings:
    """A race's settings as the pairer opens a heat of 2 in ``arena`` (None: as quick
    pairing opens a race)."""
    return RaceSettings(
        game=GAME,
        options=dict(rules_for(GAME).options),
        deal=1,
        max_players=2,
        public=True,
        nonce=secrets.token_hex(16),
        ranked=True,
        paired=True,
        arena=arena,
    )


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
    # as the arena pairer opens a heat, its first racer in it
    await server.race_desk.open_room(paired_settings(ARENA), ann.player, "Ann", now(), account=True)
    for _ in range(MAX_OPEN_RACES):
        await ann.create_race(GAME)
    await ann.close()


@pytest.mark.parametrize("arena", [ARENA, None], ids=["heat", "quick"])
async def test_nobody_but_its_paired_racers_takes_a_seat_in_a_race_being_opened(
    server: RaceServer, arena: str | None
) -> None:
    ann, bob, cy = [await member(server, name) for name in ("Ann", "Bob", "Cy")]
    assert ann.player is not None and bob.player is not None
    room, _ = await server.race_desk.open_room(  # its first racer in it, Bob's seat free
        paired_settings(arena), ann.player, "Ann", now(), account=True
    )
    assert room.id not in {race["race"] for race in await cy.list_races()}
    with pytest.raises(ServerError) as refused:
        await cy.join_race(room.id)
    assert refused.value.code == "race_paired"
    assert list(room.race.racers) == [ann.player]
    await server.race_desk.join_race(  # as the pairer seats its second racer
        bob.player, "Bob", room.id, now(), account=True, limited=False, seat=True
    )
    assert list(room.race.racers) == [ann.player, bob.player]
    assert (await ann.join_race(room.id))["race"] == room.id  # a racer back: as before
    for client in (ann, bob, cy):
        await client.close()
