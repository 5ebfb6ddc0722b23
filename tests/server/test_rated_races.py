"""Ratings through a real server: a real race between accounts (paired by the server, on
addresses of their own, played, ended by a finish or the clock) moves their ratings once
(the farming guards: test_rated_farming.py); the farming routes (a private race with a second
account, an aborted race, two accounts on one address, a fourth race of a pair in a day)
move nothing, and its racers are told why (``unrated``); every racer's standing shows
their rating; guests are not rated."""

from __future__ import annotations

from typing import Any

import pytest
from harness import RATED, member, member_at, player, quick_race_played, running_server

from client.api import Client
from protocol.games import rules_for
from protocol.race import Now, Race, RaceSettings
from protocol.race_views import race_runs
from protocol.ranking import Run
from protocol.rated import PAIR_RACES_A_DAY
from protocol.ratings import DEFAULT
from server.store import Store
from server.store.base import RATINGS_KEPT

GAME = "sanibel"


async def race_to_the_end(ann: Client, bob: Client, **create: Any) -> tuple[str, dict[str, Any]]:
    """Ann and Bob race in a race they chose (the lobby); Ann plays one action, both
    resign: one of them is ahead."""
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


async def told_not_rated(racers: tuple[Client, ...], race: str, reason: str) -> None:
    """Each of ``racers`` is told that ``race`` moved no rating: ``reason``, and a sentence."""
    for racer in racers:
        told = (await racer.next_event("unrated", where=lambda e: e["race"] == race)).data
        assert (told["reason"], told["game"]) == (reason, GAME)
        assert told["message"].startswith("Not rated: ") and told["message"].endswith(".")


async def test_a_real_race_between_new_accounts_is_rated_and_moves_the_loser_down(
    store: Store,
) -> None:
    """Paired by the server, on two addresses, a few actions each, ended by the clock; a new
    opponent gives the winner nothing (settled winners rise: test_rated_farming.py)."""
    async with running_server(store, **RATED) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        bob = await member_at(server, "Bob", "203.0.113.2")
        race = await quick_race_played(ann, bob, GAME)
        told = {c.name: (await c.next_event("rated")).data for c in (ann, bob)}
        assert told["Ann"] == told["Bob"] and told["Ann"]["race"] == race
        ratings = told["Ann"]["ratings"]
        result = (await ann.race_log(race))["result"]
        winner, loser = (entry["player"] for entry in result["ranking"])
        assert ratings[winner]["change"] == 0 > ratings[loser]["change"]
        assert all(r["provisional"] and r["games"] == 1 for r in ratings.values())
        stored = await store.accounts.ratings(GAME, [winner, loser])
        assert round(stored[winner].rating) == ratings[winner]["rating"]


async def test_races_players_chose_aborted_or_on_one_address_move_no_rating(
    store: Store,
) -> None:
    """The farming routes: a private race with a second account, a paired race the second
    account abandons at once, and a paired race of two accounts on one address."""
    async with running_server(store, **RATED) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        alt = await member_at(server, "Alt", "203.0.113.2")
        private, _ = await race_to_the_end(ann, alt)
        await told_not_rated((ann, alt), private, "not_paired")
        aborted = await quick_race_played(ann, alt, GAME, actions=0)
        await told_not_rated((ann, alt), aborted, "few_actions")
        twin = await member_at(server, "Twin", "203.0.113.1")  # Ann's own address
        shared = await quick_race_played(ann, twin, GAME)
        await told_not_rated((ann, twin), shared, "same_address")
        with pytest.raises(TimeoutError):  # nobody is told of a rating
            await ann.next_event("rated", timeout=0.5)
        assert await store.accounts.ratings(GAME, [ann.player, alt.player, twin.player]) == {}


async def test_two_accounts_have_at_most_three_rated_races_a_day(store: Store) -> None:
    # the winner's and the loser's ratings part: paired again at once all the same
    async with running_server(store, **RATED, any_rating_after_ms=0) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        bob = await member_at(server, "Bob", "203.0.113.2")
        for _ in range(PAIR_RACES_A_DAY):
            await quick_race_played(ann, bob, GAME)
            await ann.next_event("rated")
        fourth = await quick_race_played(ann, bob, GAME)
        await told_not_rated((ann, bob), fourth, "pair_limit")
        with pytest.raises(TimeoutError):
            await ann.next_event("rated", timeout=0.5)
        assert (await store.accounts.ratings(GAME, [ann.player]))[
            ann.player
        ].games == PAIR_RACES_A_DAY


async def test_a_guest_is_neither_rated_nor_shown_a_rating() -> None:
    async with running_server(countdown_ms=0) as server:
        ann, gus = await member(server, "Ann"), await player(server, "Gus")
        race, _ = await race_to_the_end(ann, gus)
        standings = {p["name"]: p for p in (await ann.snapshot(race))["players"]}
        assert (standings["Gus"]["account"], standings["Gus"]["rating"]) == (False, None)
        assert (standings["Ann"]["account"], standings["Ann"]["rating"]) == (True, 1500)
        assert await server.store.accounts.ratings(GAME, [ann.player, gus.player]) == {}


def finished_race(players: list[str]) -> list[Run]:
    rules = rules_for(GAME)
    race = Race("r1", RaceSettings(GAME, dict(rules.options), 7, max_players=3), rules, "a")
    for p in players:
        race.join(p, p)
    race.schedule_start(None, Now(0, 0))
    race.begin()
    return race_runs(race)


async def test_a_race_is_rated_once_whoever_asks_again(store: Store) -> None:
    runs = finished_race(["a", "b", "c"])
    assert not await store.accounts.was_rated(GAME, "r1")
    first = await store.accounts.rate_race(GAME, "r1", runs, 10_000, 60)
    assert await store.accounts.was_rated(GAME, "r1")  # (another node need not say why not)
    assert first is not None and set(first) == {"a", "b", "c"}
    assert all(before == DEFAULT for before, _ in first.values())
    assert (
        await store.accounts.rate_race(GAME, "r1", runs, 10_000, 60) is None
    )  # another node, later
    after = await store.accounts.ratings(GAME, ["a", "b", "c", "nobody"])
    assert after == {p: new for p, (_, new) in first.items()}
    assert await store.accounts.rating_history(GAME, "a") == [(10_000, round(after["a"].rating))]
    assert await store.accounts.rating_history(GAME, "nobody") == []


async def test_a_player_s_latest_ratings_are_kept_for_their_chart(store: Store) -> None:
    runs = finished_race(["a", "b"])
    for n in range(RATINGS_KEPT + 2):
        await store.accounts.rate_race(GAME, f"r{n}", runs, 1_000 + n, 60)
    shown = await store.accounts.rating_history(GAME, "a")
    assert [at_ms for at_ms, _ in shown] == [1_000 + n for n in range(2, RATINGS_KEPT + 2)]
    assert shown[-1][1] == round((await store.accounts.ratings(GAME, ["a"]))["a"].rating)
