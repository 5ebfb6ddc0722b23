"""Ratings through a real server: a head-to-head race between accounts moves their
ratings once (the winner up, the loser down), every racer's standing shows their rating
and whether they have an account; guests, chosen deals and other options are not rated."""

from __future__ import annotations

from typing import Any

import pytest
from harness import member, player, running_server

from client.api import Client
from protocol.games import rules_for
from protocol.race import Now, Race, RaceSettings
from protocol.ranking import Run
from protocol.ratings import DEFAULT
from server.store import Store

GAME = "sanibel"


async def race_to_the_end(ann: Client, bob: Client, **create: Any) -> tuple[str, dict[str, Any]]:
    """Ann and Bob race; Ann plays one action, both resign: one of them is ahead."""
    race = (await ann.create_race(GAME, **create))["race"]
    joined = await bob.join_race(race)
    for client in (ann, bob):
        await client.next_event("started")
    legal = (await ann.snapshot(race))["you"]["legal"]
    await ann.act(race, legal[0])
    await ann.resign(race)
    await bob.resign(race)
    result = (await ann.next_event("result")).data
    return joined["race"], result


async def test_a_race_between_accounts_moves_the_winner_up_and_the_loser_down(
    store: Store,
) -> None:
    async with running_server(store, countdown_ms=0) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        race, result = await race_to_the_end(ann, bob)
        told = {c.name: (await c.next_event("rated")).data for c in (ann, bob)}
        assert told["Ann"] == told["Bob"] and told["Ann"]["race"] == race
        ratings = told["Ann"]["ratings"]
        winner, loser = (entry["player"] for entry in result["ranking"])
        assert ratings[winner]["change"] > 0 > ratings[loser]["change"]
        assert ratings[winner]["rating"] > 1500 > ratings[loser]["rating"]
        assert all(r["provisional"] and r["games"] == 1 for r in ratings.values())
        stored = await store.ratings(GAME, [winner, loser])
        assert round(stored[winner].rating) == ratings[winner]["rating"]

        again = (await ann.create_race(GAME))["race"]  # the next race shows the new ratings
        info = await bob.join_race(again)
        shown = {p["player"]: p["rating"] for p in info["players"]}
        assert shown == {p: r["rating"] for p, r in ratings.items()}
        assert all(p["account"] and p["provisional"] for p in info["players"])


@pytest.mark.parametrize(
    "create",
    [{"deal": 123}, {"options": {"undo": False}}],
    ids=["a chosen deal", "other options"],
)
async def test_a_race_on_a_chosen_deal_or_other_options_is_not_rated(
    create: dict[str, object],
) -> None:
    async with running_server(countdown_ms=0) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        await race_to_the_end(ann, bob, **create)
        assert await server.store.ratings(GAME, [ann.player, bob.player]) == {}
        with pytest.raises(TimeoutError):  # nobody is told of a rating
            await ann.next_event("rated", timeout=0.5)


async def test_a_guest_is_neither_rated_nor_shown_a_rating() -> None:
    async with running_server(countdown_ms=0) as server:
        ann, gus = await member(server, "Ann"), await player(server, "Gus")
        race, _ = await race_to_the_end(ann, gus)
        standings = {p["name"]: p for p in (await ann.snapshot(race))["players"]}
        assert (standings["Gus"]["account"], standings["Gus"]["rating"]) == (False, None)
        assert (standings["Ann"]["account"], standings["Ann"]["rating"]) == (True, 1500)
        assert await server.store.ratings(GAME, [ann.player, gus.player]) == {}


def finished_race(players: list[str]) -> list[Run]:
    rules = rules_for(GAME)
    race = Race("r1", RaceSettings(GAME, dict(rules.options), 7, max_players=3), rules, "a")
    for p in players:
        race.join(p, p)
    race.schedule_start(None, Now(0, 0))
    race.begin()
    return race.runs()


async def test_a_race_is_rated_once_whoever_asks_again(store: Store) -> None:
    runs = finished_race(["a", "b", "c"])
    first = await store.rate_race(GAME, "r1", runs, 10_000, 60)
    assert first is not None and set(first) == {"a", "b", "c"}
    assert all(before == DEFAULT for before, _ in first.values())
    assert await store.rate_race(GAME, "r1", runs, 10_000, 60) is None  # another node, later
    after = await store.ratings(GAME, ["a", "b", "c", "nobody"])
    assert after == {p: new for p, (_, new) in first.items()}
