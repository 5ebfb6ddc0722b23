"""Challenges through a real server, on both stores: a player challenges another from
their profile (docs/protocol.md, ``challenge``); the challenged player is told at once (or,
away for a moment, on their resume) and joins a private race for two that is never rated;
the challenged player may decline instead, and its host is told; nobody challenges
themselves or a player without a session. Across two nodes:
tests/server/test_nodes.py."""

from __future__ import annotations

import pytest
from harness import member, player, running_server

from client.api import ServerError
from server.store import Store

GAME = "sanibel"


async def test_a_challenged_player_is_told_and_joins_a_private_unrated_race(store: Store) -> None:
    async with running_server(store, countdown_ms=0) as server:
        ann = await member(server, "Ann")
        bob = await player(server, "Bob")
        race = await ann.challenge(bob.player, GAME)
        assert (race["game"], race["max_players"], race["public"]) == (GAME, 2, False)
        assert (race["ranked"], race["host"], race["deal_chosen"]) == (False, ann.player, False)
        told = await bob.next_event("challenged")
        assert told.data == {
            "race": race["race"],
            "game": GAME,
            "by": ann.player,
            "name": "Ann",
            "account": True,
        }
        assert race["race"] not in [info["race"] for info in await bob.list_races()]  # private
        await bob.join_race(race["race"])
        for client in (ann, bob):
            started = await client.next_event("started")
            assert started.data["race"] == race["race"]


async def test_nobody_challenges_themselves_or_a_player_without_a_session(store: Store) -> None:
    async with running_server(store) as server:
        ann = await player(server, "Ann")
        with pytest.raises(ServerError) as refused:
            await ann.challenge(ann.player, GAME)
        assert refused.value.code == "challenge_refused"
        with pytest.raises(ServerError) as refused:
            await ann.challenge("p0123456789a", GAME)  # nobody by that id is on the server
        assert refused.value.code == "player_offline"
        assert await ann.my_races() == []  # nothing was made


async def test_a_challenge_to_a_player_away_for_a_moment_waits_for_their_return(
    store: Store,
) -> None:
    async with running_server(store) as server:
        ann = await player(server, "Ann")
        bob = await player(server, "Bob")
        await bob.drop()  # away: the session lives for the grace period
        race = await ann.challenge(bob.player, GAME)
        await bob.resume()
        told = await bob.next_event("challenged")
        assert told.data["race"] == race["race"]


async def test_a_declined_challenge_is_told_to_its_host_and_only_the_challenged_decline(
    store: Store,
) -> None:
    async with running_server(store) as server:
        ann, bob, cat = [await player(server, name) for name in ("Ann", "Bob", "Cat")]
        race = (await ann.challenge(bob.player, GAME))["race"]
        private = (await ann.create_race(GAME, public=False))["race"]  # no challenge
        for who, where in ((cat, race), (bob, private)):
            with pytest.raises(ServerError) as refused:
                await who.decline_challenge(where)
            assert refused.value.code == "no_such_challenge"
        assert await bob.decline_challenge(race) == {"race": race, "declined": True}
        told = await ann.next_event("challenge_declined")
        assert told.data == {"race": race, "by": bob.player, "name": "Bob"}
        await bob.join_race(race)  # a change of mind: the seat is still there
        with pytest.raises(ServerError) as refused:
            await bob.decline_challenge(race)  # one cannot decline a race one is in
        assert refused.value.code == "no_such_challenge"
