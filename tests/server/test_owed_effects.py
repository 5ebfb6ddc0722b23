"""What a decision owes whatever becomes of its request (``Owed``) is carried out all the
same: a race a node adopts while answering a request that then fails is followed from
then on (its channel heard, its start timer armed), and nothing is left owed. Two nodes
in this process on one real Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from harness import player, two_servers

from client.api import ServerError
from protocol.race import Phase
from server.app import RaceServer


@pytest.fixture
async def two_nodes(redis_url: str) -> AsyncIterator[tuple[RaceServer, RaceServer]]:
    async with two_servers(redis_url, countdown_ms=1_000) as nodes:
        yield nodes


async def test_a_race_adopted_by_a_request_that_fails_is_followed_all_the_same(
    two_nodes: tuple[RaceServer, RaceServer],
) -> None:
    a, b = two_nodes
    ann, bob, dee = await player(a, "Ann"), await player(a, "Bob"), await player(b, "Dee")
    race = (await ann.create_race("sanibel", max_players=2))["race"]
    await bob.join_race(race)
    await ann.next_event("countdown")
    assert race not in b.races.rooms
    with pytest.raises(ServerError) as refused:
        await dee.join_race(race)  # node B rebuilds the race, then the join is refused
    assert refused.value.code == "race_started"  # counting down
    assert race in b.races.rooms
    assert race in b.relay.following  # its channel heard from the refusal on
    assert b.owed.effects == []
    await ann.next_event("started")
    for _ in range(100):  # node B's own start timer, armed as it adopted the race
        if b.races.rooms[race].race.phase is Phase.RUNNING:
            break
        await asyncio.sleep(0.02)
    assert b.races.rooms[race].race.phase is Phase.RUNNING
    for client in (ann, bob, dee):
        await client.close()
