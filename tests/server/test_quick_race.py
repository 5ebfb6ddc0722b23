"""Quick pairing through a real server: players waiting in a game's pool are paired and
their race starts by itself (``ranked`` says whether it may be rated: not with a guest);
one pool at a time, not while racing; a player who leaves or
does not come back waits no more."""

from __future__ import annotations

import asyncio
import time

import pytest
from harness import RATED, member, member_at, player, quick_race_played, running_server

from client.api import ServerError
from protocol.pairing import WINDOW
from protocol.ranking import Run
from server.store import Store

GAME = "shady_lanes"


async def test_two_players_waiting_in_a_pool_are_paired_and_their_race_starts(
    store: Store,
) -> None:
    async with running_server(store, countdown_ms=100) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        waiting = await ann.quick_race(GAME)
        assert waiting == {**waiting, "game": GAME, "waiting": True, "rating": 1500}
        await bob.quick_race(GAME)
        paired = [(await c.next_event("paired")).data["race"] for c in (ann, bob)]
        assert paired[0]["race"] == paired[1]["race"]
        race = paired[0]
        assert race["game"] == GAME and race["deal"] is None and race["max_players"] == 2
        assert {p["name"] for p in race["players"]} == {"Ann", "Bob"}
        for client in (ann, bob):
            started = (await client.next_event("started")).data
            assert started["race"] == race["race"] and started["you"]["view"]
        assert await store.pairing.pool(GAME) == []


async def test_a_quick_race_with_a_guest_says_from_the_start_that_it_will_not_be_rated(
    store: Store,
) -> None:
    async with running_server(store, countdown_ms=100) as server:
        ann, gus = await member(server, "Ann"), await player(server, "Gus")
        await ann.quick_race(GAME)
        await gus.quick_race(GAME)
        race = (await ann.next_event("paired")).data["race"]
        assert (race["ranked"], race["paired"]) == (False, True)  # a guest is never rated


async def test_a_player_waits_in_one_pool_and_may_cancel(store: Store) -> None:
    async with running_server(store) as server, await player(server, "Gus") as gus:
        assert (await gus.quick_race(GAME))["rating"] == 1500  # a guest races as a new player
        assert (await gus.quick_race(GAME))["waiting"]  # asking again changes nothing
        with pytest.raises(ServerError) as refused:
            await gus.quick_race("sanibel")
        assert refused.value.code == "already_waiting"
        assert await gus.quick_cancel() == {"game": GAME, "waiting": False}
        assert await gus.quick_cancel() == {"game": None, "waiting": False}
        await gus.quick_race("sanibel")
        assert [e["player"] for e in await store.pairing.pool("sanibel")] == [gus.player]


async def test_the_wait_says_the_pool_s_size_and_how_the_rating_window_widens(
    store: Store,
) -> None:
    """What a waiting player is shown: how many wait in the pool, since when they wait
    (kept when they ask again), and the rule by which the ratings accepted widen."""
    async with running_server(store) as server, await player(server, "Gus") as gus:
        first = await gus.quick_race(GAME)
        assert first["waiting_players"] == 1
        assert first["window"] == {"start": 100, "widen_per_s": 50, "unlimited_after_ms": 20_000}
        await asyncio.sleep(0.05)
        again = await gus.quick_race(GAME)  # a reload asks again: the place is kept
        assert again["joined_ms"] == first["joined_ms"] and again["waiting_players"] == 1
        await gus.quick_cancel()


async def test_a_racing_player_cannot_wait_for_another_race() -> None:
    async with running_server(countdown_ms=0) as server, await player(server, "Ann") as ann:
        await ann.create_race(GAME, max_players=1)
        with pytest.raises(ServerError) as refused:
            await ann.quick_race(GAME)
        assert refused.value.code == "in_race"


async def test_a_player_who_does_not_come_back_leaves_the_pool(store: Store) -> None:
    async with running_server(store, grace_ms=200) as server:
        ann = await player(server, "Ann")
        await ann.quick_race(GAME)
        await ann.close()
        for _ in range(100):
            if not await store.pairing.pool(GAME):
                break
            await asyncio.sleep(0.05)
        assert await store.pairing.pool(GAME) == []


async def test_a_quick_race_between_accounts_is_rated(store: Store) -> None:
    async with running_server(store, **RATED) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        bob = await member_at(server, "Bob", "203.0.113.2")
        race = await quick_race_played(ann, bob, GAME)
        rated = (await bob.next_event("rated")).data
        assert rated["race"] == race and set(rated["ratings"]) == {ann.player, bob.player}


async def test_an_operator_may_pair_any_ratings_at_once(store: Store) -> None:
    """``--any-rating-after-ms 0``: two accounts whose ratings are far apart after rated
    races (Bob lost two to Ann yesterday, through the store's rating step) are paired again
    at once, not after the window has widened to reach them."""
    async with running_server(store, **RATED, any_rating_after_ms=0) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        bob = await member_at(server, "Bob", "203.0.113.2")
        yesterday = int(time.time() * 1000) - 86_400_000
        for n in range(2):
            runs = [
                Run(p, p, "past", GAME, 1, p == ann.player, 1_000, 90, 30, yesterday + n)
                for p in (ann.player, bob.player)
            ]
            await store.accounts.rate_race(GAME, f"past{n}", runs, yesterday + n, 60)
        ratings = await store.accounts.ratings(GAME, [ann.player, bob.player])
        gap = abs(ratings[ann.player].rating - ratings[bob.player].rating)
        assert gap > WINDOW.half_width(2_000)  # the usual window would not reach in 2 s
        waiting = await ann.quick_race(GAME)
        assert waiting["window"]["unlimited_after_ms"] == 0
        await bob.quick_race(GAME)
        await ann.next_event("paired", timeout=1)
