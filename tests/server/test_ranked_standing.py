"""Good standing on a real server (server/races/standing.py): a ranked daily attempt and a rated
race need an account some days old that has finished some games; practice stays open to
everyone; every player is told their standing (hello, register, sign-in, daily_start,
quick_race) with the reason in a sentence; a rule at 0 is off. One test per sentence,
allowed and refused, on both stores."""

from __future__ import annotations

import time

from harness import RATED, member, member_at, player, quick_race_played, running_server, url

from client.api import Client
from protocol.daily import DAY_MS
from server.app import RaceServer
from server.desks.passwords import hash_password
from server.handover.jobs import RecordHistory
from server.store import Account, Store

GAME = "mount_sunflower"
RULES = {"ranked_account_days": 3, "ranked_account_games": 2}


async def an_account(store: Store, name: str, days_old: int, finished: int) -> None:
    """``name``'s account, made ``days_old`` days ago, with ``finished`` finished games."""
    player = f"p{abs(hash(name)) % 16**12:012x}"
    made = int(time.time() * 1000) - days_old * DAY_MS - 60_000
    await store.accounts.create_account(Account(player, name, hash_password("a long secret"), made))
    for n in range(finished):
        entry = {"race": f"r{n}", "game": GAME, "outcome": "finished", "time_ms": 60_000}
        entry["at_ms"] = made + n
        await store.write([RecordHistory(player, f"r{n}", GAME, entry, False, False)])


async def test_a_guest_is_told_ranked_play_needs_an_account(store: Store) -> None:
    async with running_server(store, **RULES) as server:
        guest = await player(server, "Gus")
        assert guest.welcome is not None and guest.welcome.standing is not None
        assert guest.welcome.standing["code"] == "guest"
        started = await guest.daily_start(GAME)
        assert started["ranked"] is False and started["standing"]["code"] == "guest"


async def test_a_new_account_is_told_at_register_and_hello_that_it_is_too_new(
    store: Store,
) -> None:
    async with running_server(store, **RULES) as server:
        fresh = await member(server, "Fresh")
        resumed = await fresh.resume()
        assert resumed.standing == {
            "code": "account_too_new",
            "reason": "Ranked play opens when your account is 3 days old and has finished "
            "2 games; yours: 0 days, 0 games.",
        }
        again = await Client.connect(url(server), "Fresh2")
        answer = await again.register("Fresh2", "a long secret")
        assert answer["standing"]["code"] == "account_too_new"


async def test_an_account_too_new_plays_today_s_daily_as_practice_and_is_told_why(
    store: Store,
) -> None:
    await an_account(store, "Newish", days_old=1, finished=5)
    async with running_server(store, **RULES) as server:
        newish = await Client.signed_in(url(server), "Newish", "a long secret")
        started = await newish.daily_start(GAME)
        assert started["ranked"] is False
        assert started["standing"]["code"] == "account_too_new"
        assert "yours: 1 day, 5 games" in started["standing"]["reason"]
        await newish.resign(started["race"]["race"])
        assert (await newish.daily_board(GAME))["total"] == 0  # practice: off the board


async def test_an_old_account_with_too_few_finished_games_plays_practice(store: Store) -> None:
    await an_account(store, "Idle", days_old=30, finished=1)
    async with running_server(store, **RULES) as server:
        idle = await Client.signed_in(url(server), "Idle", "a long secret")
        started = await idle.daily_start(GAME)
        assert started["ranked"] is False and started["standing"]["code"] == "too_few_games"


async def test_an_account_in_good_standing_makes_a_ranked_attempt(store: Store) -> None:
    await an_account(store, "Veteran", days_old=3, finished=2)
    async with running_server(store, **RULES) as server:
        veteran = await Client.signed_in(url(server), "Veteran", "a long secret")
        assert veteran.welcome is not None
        started = await veteran.daily_start(GAME)
        assert started["ranked"] is True
        assert started["standing"] == {"code": None, "reason": None}


async def test_the_rules_at_zero_let_a_new_account_rank(store: Store) -> None:
    async with running_server(store, ranked_account_days=0, ranked_account_games=0) as server:
        fresh = await member(server, "Fresh")
        assert (await fresh.daily_start(GAME))["ranked"] is True


async def test_a_quick_race_of_an_account_not_in_good_standing_is_played_and_not_rated(
    store: Store,
) -> None:
    async with running_server(store, **RATED, **RULES) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        bob = await member_at(server, "Bob", "203.0.113.2")
        waiting = await ann.quick_race(GAME)
        assert waiting["standing"]["code"] == "account_too_new"
        await ann.quick_cancel()
        await quick_race_played(ann, bob, GAME)
        unrated = (await ann.next_event("unrated", timeout=10)).data
        assert unrated["reason"] == "standing" and "too new" in unrated["message"]


async def test_a_quick_race_of_accounts_in_good_standing_is_rated(store: Store) -> None:
    await an_account(store, "Vera", days_old=5, finished=2)
    await an_account(store, "Walt", days_old=5, finished=2)
    async with running_server(store, **RATED, **RULES) as server:
        vera, walt = [
            await signed_in_at(server, name, f"203.0.113.{n}")
            for n, name in enumerate(("Vera", "Walt"), 1)
        ]
        await quick_race_played(vera, walt, GAME)
        rated = (await vera.next_event("rated", timeout=10)).data
        assert set(rated["ratings"]) == {vera.player, walt.player}


async def signed_in_at(server: RaceServer, name: str, address: str) -> Client:
    client = await Client.connect(url(server), name, headers={"X-Forwarded-For": address})
    await client.sign_in(name, "a long secret")
    return client
