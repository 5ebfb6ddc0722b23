"""What one player may hold at once: open races (created or joined, not started yet),
races spectated; and a lobby list of bounded size however many races are open. Each limit
is a stable error code and a sentence, and nothing changes. Both stores."""

from __future__ import annotations

import pytest
from harness import player, running_server

from client.api import ServerError
from server.store import Store

GAME = "sanibel"


async def test_a_player_holds_at_most_five_open_races(store: Store) -> None:
    async with running_server(store) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        for _ in range(5):
            await ann.create_race(GAME, max_players=3)
        with pytest.raises(ServerError) as refused:
            await ann.create_race(GAME)
        assert refused.value.code == "too_many_races" and "5" in refused.value.message
        others = [(await bob.create_race(GAME, max_players=3))["race"] for _ in range(5)]
        with pytest.raises(ServerError) as refused:
            await ann.join_race(others[0])  # joining counts too
        assert refused.value.code == "too_many_races"
        assert len((await ann.request("my_races"))["races"]) == 5


async def test_a_player_watches_at_most_ten_races_at_once(store: Store) -> None:
    async with running_server(store, countdown_ms=0) as server:
        cy = await player(server, "Cy")
        races = []
        for i in range(11):
            host = await player(server, f"H{i}")
            races.append((await host.create_race(GAME, max_players=1))["race"])
        for race in races[:10]:
            await cy.spectate(race)
        with pytest.raises(ServerError) as refused:
            await cy.spectate(races[10])
        assert refused.value.code == "too_many_watched"
        await cy.request("unspectate", race=races[0])
        await cy.spectate(races[10])  # one stopped: room for another


async def test_the_lobby_lists_at_most_a_hundred_races_and_says_how_many_more() -> None:
    async with running_server() as server:
        for i in range(21):
            host = await player(server, f"H{i}")
            for _ in range(5):
                await host.create_race(GAME)
        listed = await (await player(server, "Cy")).request("list_races")
        assert len(listed["races"]) == 100 and listed["more"] == 5
