"""Bots through a real server: a client that says it is a bot in ``hello`` is shown as one
everywhere a name is shown (lobby, standings, spectating, results, boards, profiles, race
logs), keeps that label through resumes and accounts, never goes on a daily board, is never
rated, and is paired with a person only when that person asked for a bot. Both stores."""

from __future__ import annotations

import asyncio

import pytest
from harness import (
    RATED,
    member,
    member_at,
    password_for,
    player,
    quick_race_played,
    running_server,
    url,
)

from client.api import Client, ServerError
from protocol.players import is_bot
from server.store import Store

GAME = "mount_sunflower"


async def test_a_bot_is_shown_as_a_bot_wherever_its_name_is_shown(store: Store) -> None:
    async with running_server(store, countdown_ms=0) as server:
        robo = await Client.connect(url(server), "Robo", bot=True)
        ann, cy = await player(server, "Ann"), await player(server, "Cy")
        assert is_bot(robo.player) and not is_bot(ann.player)
        race = (await robo.create_race(GAME, max_players=2))["race"]
        listed = next(r for r in (await ann.list_races()) if r["race"] == race)
        assert [(p["name"], p["bot"]) for p in listed["players"]] == [("Robo", True)]
        joined = await ann.join_race(race)
        assert {p["name"]: p["bot"] for p in joined["players"]} == {"Robo": True, "Ann": False}
        await ann.next_event("started")
        watched = await cy.spectate(race)
        assert {p["name"]: p["bot"] for p in watched["players"]} == {"Robo": True, "Ann": False}
        for client in (robo, ann):
            await client.resign(race)
        result = (await ann.next_event("result")).data
        assert {e["name"]: e["bot"] for e in result["ranking"]} == {"Robo": True, "Ann": False}
        log = await cy.race_log(race)
        assert {r["name"]: r["bot"] for r in log["racers"]} == {"Robo": True, "Ann": False}
        for racer, bot in ((robo, True), (ann, False)):
            assert (await profile_once_written(cy, racer.player))["bot"] is bot


async def profile_once_written(asker: Client, player_id: str) -> dict[str, object]:
    """``player_id``'s profile, once the race's history is stored (written after the result)."""
    for _ in range(50):
        try:
            return await asker.profile(player=player_id)
        except ServerError as error:
            assert error.code == "player_not_found"
            await asyncio.sleep(0.05)
    raise AssertionError("the race never reached the racer's profile")


async def test_a_bot_keeps_its_label_through_a_resume_and_an_account(store: Store) -> None:
    async with running_server(store) as server:
        robo = await Client.connect(url(server), "Robo", bot=True)
        await robo.register("Robo", password_for("Robo"))
        robo.bot = False  # a later hello that does not say so changes nothing
        await robo.resume()
        assert is_bot(robo.player)
        assert (await robo.profile(username="Robo"))["bot"] is True
        again = await Client.signed_in(url(server), "Robo", password_for("Robo"))
        assert again.player == robo.player  # a person signing in to it plays as the bot


async def test_a_bot_cannot_take_over_a_person_s_session_or_account(store: Store) -> None:
    async with running_server(store) as server:
        ann = await member(server, "Ann")
        with pytest.raises(ServerError) as refused:
            disguised = Client(url(server), "Ann")
            disguised.bot = True
            await disguised._open(token=ann.token)
        assert refused.value.code == "bot_mismatch"
        robo = await Client.connect(url(server), "Robo", bot=True)
        with pytest.raises(ServerError) as refused:
            await robo.sign_in("Ann", password_for("Ann"))
        assert refused.value.code == "bot_mismatch"
        assert is_bot(robo.player)


async def test_a_bot_s_daily_attempt_is_never_ranked_nor_on_a_board(store: Store) -> None:
    async with running_server(store) as server:
        robo = await Client.connect(url(server), "Robo", bot=True)
        await robo.register("Robo", password_for("Robo"))
        started = await robo.daily_start(GAME)
        assert (started["ranked"], started["claimable"]) == (False, False)
        await robo.resign(started["race"]["race"])
        guest_bot = await Client.connect(url(server), "Tin", bot=True)
        started = await guest_bot.daily_start(GAME)
        assert (started["ranked"], started["claimable"]) == (False, False)
        board = await robo.daily_board(GAME)
        assert board["total"] == 0 and board["me"] is None


async def test_a_person_meets_a_bot_in_quick_pairing_only_when_they_asked(store: Store) -> None:
    async with running_server(store, countdown_ms=0) as server:
        robo = await Client.connect(url(server), "Robo", bot=True)
        ann = await player(server, "Ann")
        await robo.quick_race(GAME)
        assert (await ann.quick_race(GAME))["bots"] is False
        with pytest.raises(TimeoutError):  # waiting side by side, never paired
            await ann.next_event("paired", timeout=1.0)
        await ann.quick_cancel()
        assert (await ann.quick_race(GAME, bots=True))["bots"] is True
        paired = (await ann.next_event("paired")).data["race"]
        assert {p["name"]: p["bot"] for p in paired["players"]} == {"Robo": True, "Ann": False}


async def test_a_race_between_a_person_and_a_bot_is_never_rated(store: Store) -> None:
    """A race that would be rated between two people (paired, two addresses, played,
    ended by the clock) is not, with a bot in it."""
    async with running_server(store, **RATED) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        headers = {"X-Forwarded-For": "203.0.113.2"}
        robo = await Client.connect(url(server), "Robo", bot=True, headers=headers)
        await robo.register("Robo", password_for("Robo"))
        race = await quick_race_played(ann, robo, GAME, bots=True)
        told = (await ann.next_event("unrated")).data  # and says why
        assert (told["race"], told["reason"]) == (race, "bot")
        with pytest.raises(TimeoutError):
            await ann.next_event("rated", timeout=0.5)
        assert await store.accounts.ratings(GAME, [ann.player, robo.player]) == {}


async def test_a_quick_race_with_a_bot_says_from_the_start_that_it_is_not_ranked(
    store: Store,
) -> None:
    async with running_server(store, countdown_ms=0) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        robo = await Client.connect(url(server), "Robo", bot=True)
        await robo.register("Robo", password_for("Robo"))
        await robo.quick_race(GAME)
        await ann.quick_race(GAME, bots=True)
        with_bot = (await ann.next_event("paired")).data["race"]
        assert (with_bot["ranked"], with_bot["paired"]) == (False, True)
        await ann.resign(with_bot["race"])
        await robo.resign(with_bot["race"])
        await ann.next_event("result")
        await ann.quick_race(GAME)
        await bob.quick_race(GAME)
        people = (await ann.next_event("paired")).data["race"]
        assert (people["ranked"], people["paired"]) == (True, True)
