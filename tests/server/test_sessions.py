"""Players and sessions: hello, resume within the grace period, one live connection per
player, keepalive, and what happens to a player who never comes back."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import pytest
from harness import player, running_server, url
from websockets.asyncio.client import connect

from client.api import Client, ServerError
from protocol.games import GAMES, catalog
from protocol.messages import Event
from server.state.sessions import Session, Sessions


async def test_hello_gives_a_player_id_and_a_secret_resume_token() -> None:
    async with running_server() as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        assert ann.player != bob.player and ann.token != bob.token
        assert len(ann.token) >= 32
        assert ann.welcome is not None and ann.welcome.grace_ms == 2000
        for client in (ann, bob):
            await client.close()


async def test_a_second_hello_on_one_connection_is_refused() -> None:
    async with running_server() as server, await player(server, "Ann") as ann:
        with pytest.raises(ServerError) as refused:
            await ann.request("hello", protocol=1, name="Ann again")
        assert refused.value.code == "already_hello"


async def test_resuming_within_the_grace_period_replays_the_missed_events() -> None:
    async with running_server(countdown_ms=50) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race("mount_sunflower", deal=7))["race"]
        seen = ann.last_event
        await ann.drop()
        await bob.join_race(race)
        await bob.next_event("started")
        welcome = await ann.resume()
        assert welcome.resumed and welcome.player == ann.player
        missed = [await ann.next_event() for _ in range(3)]
        assert [e.kind for e in missed] == ["joined", "countdown", "started"]
        assert [e.n for e in missed] == [seen + 1, seen + 2, seen + 3]
        assert isinstance(missed[-1], Event) and missed[-1].data["you"]["view"]["stock"] == 24
        reply = await ann.act(race, "deal")
        assert reply["actions"] == 1
        for client in (ann, bob):
            await client.close()


async def test_resuming_after_more_events_than_are_kept_gives_a_snapshot() -> None:
    async with running_server(countdown_ms=50, event_buffer=2) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race("shady_lanes", deal=2))["race"]
        await ann.drop()
        await bob.join_race(race)
        await bob.next_event("started")
        await ann.resume()
        snapshot = await ann.next_event()
        assert snapshot.kind == "snapshot"
        (picture,) = snapshot.data["races"]
        assert picture["race"] == race and picture["phase"] == "running"
        assert picture["you"]["view"]["reserves"] == [["7D"], ["3S"], ["QS"], ["7S"]]
        for client in (ann, bob):
            await client.close()


async def test_a_new_connection_with_the_token_takes_over_the_old_one() -> None:
    async with running_server() as server:
        ann = await player(server, "Ann")
        old = ann.connection
        assert old is not None
        twin = Client(url(server), "Ann")
        twin.token, twin.last_event = ann.token, ann.last_event
        await twin._open(token=ann.token)
        await asyncio.wait_for(old.wait_closed(), 5)
        assert old.close_code == 4001
        assert twin.player == ann.player
        assert await twin.list_races() == []
        await twin.close()


async def test_a_player_away_past_the_grace_period_did_not_finish() -> None:
    async with running_server(countdown_ms=50, grace_ms=300) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race("mount_sunflower_easy", deal=3))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        await ann.act(race, "deal")
        await bob.drop()
        result = await ann.next_event("standings", timeout=5)
        dropped = {p["player"]: p["outcome"] for p in result.data["players"]}
        assert dropped[bob.player] == "dropped"
        await ann.resign(race)
        final = await ann.next_event("result")
        outcomes = {r["player"]: r["outcome"] for r in final.data["ranking"]}
        assert outcomes == {ann.player: "resigned", bob.player: "dropped"}
        assert server.sessions.by_player.get(bob.player) is None
        await ann.close()


async def test_keepalive_pings_find_a_dead_connection() -> None:
    async with running_server(ping_interval_s=0.2, ping_timeout_s=0.2) as server:
        connection = await connect(url(server), ping_interval=None)
        await connection.send('{"type":"hello","id":1,"protocol":1,"name":"Sleepy"}')
        await connection.recv()
        assert connection.transport is not None
        connection.transport.pause_reading()  # a peer that stopped answering
        for _ in range(50):
            if not server.lines.connected():
                break
            await asyncio.sleep(0.1)
        assert not server.lines.connected()
        connection.transport.abort()


async def test_an_old_session_s_grace_period_or_removal_leaves_a_newer_one_of_its_player() -> None:
    expired: list[str] = []
    sessions = Sessions(grace_ms=10, expire=expired.append)
    old = Session("Ann", 16, player="p1")
    sessions.add(old)
    sessions.away(old)
    newer = Session("Ann", 16, player="p1")
    sessions.add(newer)
    await asyncio.sleep(0.05)  # the old session's grace period is over
    assert sessions.get("p1") is newer and sessions.by_token[newer.token_hash] is newer
    assert expired == []  # the player is still here
    sessions.remove(old)
    assert sessions.get("p1") is newer and sessions.by_token[newer.token_hash] is newer


async def test_the_welcome_lists_every_game_with_its_title_decks_options_and_layout() -> None:
    async with running_server() as server, await player(server, "Ann") as ann:
        assert ann.welcome is not None
        listed = {entry["game"]: entry for entry in ann.welcome.games}
        assert list(listed) == list(GAMES)
        sanibel = listed["sanibel"]
        assert {key: sanibel[key] for key in ("game", "title", "decks", "options")} == {
            "game": "sanibel",
            "title": "Sanibel",
            "decks": 2,
            "options": {"undo": True, "down": 3, "up": 7},
        }
        assert sanibel["variant_of"] is None
        assert sanibel["layout"]["tableau"] == 10 and sanibel["layout"]["rounds"] == ["down", "up"]
        assert sanibel["example_move"] == "t3 2 t5, w 1 f, deal"
        assert sanibel["rules"]["lead"].startswith("Two decks.")
        easy = listed["mount_sunflower_easy"]
        assert easy["variant_of"] == "mount_sunflower"
        assert easy["layout"]["deal_needs_full_tableau"] is False
        assert listed["mount_sunflower"]["layout"]["deal_needs_full_tableau"] is True
        assert easy["rules"]["example"] == listed["mount_sunflower"]["rules"]["example"]
        assert listed["mount_sunflower"]["decks"] == 1


async def test_get_games_answers_the_list_the_welcome_carries() -> None:
    async with running_server() as server, await player(server, "Ann") as ann:

        def get() -> Any:
            url = f"http://127.0.0.1:{server.port}/games"
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.headers["Content-Type"], json.loads(response.read())

        kind, games = await asyncio.to_thread(get)
        assert ann.welcome is not None
        assert kind.startswith("application/json") and games == ann.welcome.games == catalog()
