"""The farming guards through a real server (protocol/ratings.py, docs/fairness.md "Ratings
that farming cannot move"), on both stores: settled accounts who play a race out rate as
Glicko-2 says (a win over a new account moves the winner by nothing:
test_rated_races.py); a win over an opponent who resigned after three moves
gives nothing; an opponent whose recent rated games were mostly against you gives nothing;
no rating rises more than 100 in a day. Accounts are settled beforehand through the store's
own rating step (``rate_race``), as rated races two days ago."""

from __future__ import annotations

import itertools
import time
from typing import Any

from harness import RATED, member_at, running_server

from client.api import Client
from protocol.ranking import Run
from protocol.ratings import DAILY_RISE, EARLY_ACTIONS, FEEDER_GAMES, PROVISIONAL_RD
from server.app import RaceServer
from server.store import Store

GAME = "sanibel"
DAY_MS = 86_400_000
SETTINGS = {**RATED, "max_race_ms": 3_000, "any_rating_after_ms": 0}


def past_run(player: str, won: bool, at_ms: int) -> Run:
    return Run(player, player, "past", GAME, 1, won, 200_000, 90, 52 if won else 30, at_ms)


async def rated_before(store: Store, races: list[tuple[str, str]], days_ago: int = 2) -> None:
    """Each (winner, loser) as a rated race ``days_ago``, through the store's rating step."""
    start = int(time.time() * 1000) - days_ago * DAY_MS
    for n, (winner, loser) in enumerate(races):
        at_ms = start + n * 1_000
        runs = [past_run(winner, True, at_ms), past_run(loser, False, at_ms)]
        await store.accounts.rate_race(GAME, f"past-{winner}-{loser}-{n}", runs, at_ms, 60)


async def settled(store: Store, players: list[str]) -> None:
    """``players`` settled: three rounds of rated races, two days ago, with each other and
    six others, each pair winning in turn."""
    pool = [*players, *(f"pfield{n:07d}" for n in range(6))]
    pairs = list(itertools.combinations(pool, 2)) * 3
    await rated_before(store, [pair if n % 2 else pair[::-1] for n, pair in enumerate(pairs)])
    for rating in (await store.accounts.ratings(GAME, players)).values():
        assert rating.rd < PROVISIONAL_RD


async def play(client: Client, race: str, actions: int, home: bool) -> None:
    """``actions`` legal actions: a card home whenever one can go, or (``home`` false) never
    one when another action can be played."""
    legal = (await client.snapshot(race))["you"]["legal"]
    for _ in range(actions):
        homeward = [action for action in legal if action.endswith(" f")]
        others = [action for action in legal if action != "undo" and action not in homeward]
        choice = (homeward + others if home else others + homeward) or legal
        legal = (await client.act(race, choice[0], legal=True))["legal"]


async def raced(ann: Client, bob: Client, bob_actions: int) -> tuple[str, list[str]]:
    """A quick race: Ann plays ``EARLY_ACTIONS`` + 5 actions sending cards home, Bob
    ``bob_actions`` keeping them out, and resigns; the clock ends it. Its id and its
    ranking's players, best first."""
    await ann.quick_race(GAME)
    await bob.quick_race(GAME)
    race: str = (await ann.next_event("paired")).data["race"]["race"]
    for client in (ann, bob):
        await client.next_event("started")
    await play(bob, race, bob_actions, home=False)
    await bob.resign(race)
    await play(ann, race, EARLY_ACTIONS + 5, home=True)
    await ann.next_event("result", timeout=10)
    ranking = (await ann.race_log(race))["result"]["ranking"]
    return race, [entry["player"] for entry in ranking]


async def settled_pair(server: RaceServer, store: Store) -> tuple[Client, Client]:
    """Ann and Bob, settled, each on an address of their own."""
    ann = await member_at(server, "Ann", "203.0.113.1")
    bob = await member_at(server, "Bob", "203.0.113.2")
    await settled(store, [ann.player, bob.player])
    return ann, bob


async def changes(client: Client, race: str) -> dict[str, Any]:
    told = await client.next_event("rated", where=lambda e: e["race"] == race)
    return {player: r["change"] for player, r in told.data["ratings"].items()}


async def test_a_race_between_settled_accounts_moves_the_winner_up_and_the_loser_down(
    store: Store,
) -> None:
    async with running_server(store, **SETTINGS) as server:
        ann, bob = await settled_pair(server, store)
        race, (winner, loser) = await raced(ann, bob, EARLY_ACTIONS + 8)
        changed = await changes(ann, race)
        assert changed[winner] > 0 > changed[loser]


async def test_a_win_over_an_opponent_who_resigned_after_three_moves_gives_nothing(
    store: Store,
) -> None:
    async with running_server(store, **SETTINGS) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        bobs = [await member_at(server, f"Bob{n}", f"203.0.113.{10 + n}") for n in range(4)]
        await settled(store, [ann.player, *(bob.player for bob in bobs)])
        for bob in bobs:  # until Ann ranks first (a card home ranks her above Bob)
            race, ranking = await raced(ann, bob, 3)
            changed = await changes(ann, race)
            if ranking[0] == ann.player:
                assert changed[ann.player] == 0 and changed[bob.player] < 0
                return
        raise AssertionError("Ann never ranked first")


async def test_an_opponent_whose_recent_games_were_mostly_against_you_gives_nothing(
    store: Store,
) -> None:
    async with running_server(store, **SETTINGS) as server:
        ann, bob = await settled_pair(server, store)
        feeding = [(ann.player, bob.player), (bob.player, ann.player)] * FEEDER_GAMES
        await rated_before(store, feeding[:FEEDER_GAMES], days_ago=1)
        race, (winner, loser) = await raced(ann, bob, EARLY_ACTIONS + 8)  # each feeds the other
        changed = await changes(ann, race)
        assert changed[winner] == 0 and changed[loser] < 0


async def test_no_rating_rises_more_than_100_in_a_day(store: Store) -> None:
    async with running_server(store, **SETTINGS) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        bobs = [await member_at(server, f"Bob{n}", f"203.0.113.{10 + n}") for n in range(4)]
        await settled(store, [ann.player, *(bob.player for bob in bobs)])
        field = [f"pfield{n:07d}" for n in range(6)]
        await rated_before(store, [(ann.player, rival) for rival in field] * 3, days_ago=0)
        before = (await store.accounts.ratings(GAME, [ann.player]))[ann.player]
        assert before.rating == before.day_start + DAILY_RISE  # a good morning: up 100
        won = 0
        for bob in bobs:  # a loss lowers her; climbing back is allowed up to the same line
            race, ranking = await raced(ann, bob, EARLY_ACTIONS + 8)
            await changes(ann, race)
            after = (await store.accounts.ratings(GAME, [ann.player]))[ann.player]
            assert after.day_start == before.day_start
            assert after.rating <= before.day_start + DAILY_RISE + 1e-6
            won += ranking[0] == ann.player
        assert won and after.rating > before.day_start  # she won, and rose no higher
