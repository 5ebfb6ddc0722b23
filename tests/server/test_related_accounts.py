"""Related accounts on a real server (server/races/standing.py): accounts seen on one address,
one device (the id a client gives at hello) or one session (a token lineage: a guest's
token presented again, or an account's presented again after it was signed out) within a
week are related; a ranked daily run by an account related to one that already started
today's daily is held for a moderator with that evidence; related accounts never rate
each other. One test per sentence, allowed and refused, on both stores."""

from __future__ import annotations

import json
from typing import Any

import pytest
from harness import (
    RATED,
    daily_run_resigned,
    password_for,
    player,
    quick_race_played,
    running_server,
    url,
)
from websockets.asyncio.client import connect

from client.api import Client
from server.app import RaceServer
from server.store import Store

GAME = "mount_sunflower"
TOKEN = "a-moderator-s-token-of-forty-characters!"
HELD = {**RATED, "hold_flagged": True, "admin_token": TOKEN}
PHONE, LAPTOP, TABLET = "phone-0123456789ab", "laptop-0123456789ab", "tablet-0123456789ab"


async def member_on(server: RaceServer, name: str, address: str, device: str | None) -> Client:
    """A member registered from ``address`` (behind the trusted proxy) on ``device``."""
    client = await Client.connect(
        url(server), name, headers={"X-Forwarded-For": address}, device=device
    )
    await client.register(name, password_for(name))
    return client


async def admin(client: Client, command: str, **fields: Any) -> dict[str, Any]:
    return await client.request("admin", token=TOKEN, command=command, **fields)


async def second_after_first(
    server: RaceServer, first: tuple[str, str], second: tuple[str, str]
) -> tuple[Client, Client, str]:
    """Two members (each ``(address, device)``), each playing today's ranked daily (then
    resigning), the first first: both, and the second's race."""
    one = await member_on(server, "First", *first)
    two = await member_on(server, "Second", *second)
    await daily_run_resigned(one, GAME)  # it learns the deal...
    return one, two, await daily_run_resigned(two, GAME)  # ...and the second plays it


@pytest.mark.parametrize(
    "device", ["too-short", "x" * 65, "has spaces in it ok", "ünïcode-device-id"]
)
async def test_a_hello_with_a_bad_device_id_is_refused_with_bad_device(device: str) -> None:
    async with running_server() as server:
        connection = await connect(url(server), subprotocols=["json"], compression=None)
        hello = {"type": "hello", "id": 0, "protocol": 1, "name": "Dee", "device": device}
        await connection.send(json.dumps(hello))
        error = json.loads(await connection.recv())
        assert (error["type"], error["code"]) == ("error", "bad_device")
        assert error["message"].startswith("'device'")
        await connection.close()


async def test_a_hello_with_a_good_device_id_or_none_is_welcomed() -> None:
    async with running_server() as server:
        assert (await Client.connect(url(server), "Dee", device="A-good_device-id-9")).player
        assert (await Client.connect(url(server), "Eve")).player


async def test_a_ranked_run_of_an_account_on_the_device_of_one_that_started_today_is_held(
    store: Store,
) -> None:
    async with running_server(store, **HELD) as server:
        on_phone = ("203.0.113.1", PHONE), ("198.51.100.2", PHONE)
        throwaway, main, race = await second_after_first(server, *on_phone)
        assert (await main.next_event("held", timeout=10)).data["race"] == race
        moderator = await player(server, "Mod")
        reviews = (await admin(moderator, "flagged"))["reviews"]
        assert [review["race"] for review in reviews] == [race]
        seen = reviews[0]["players"][main.player]
        assert seen["reasons"] == ["related_account"]
        evidence = seen["evidence"]["related_account"]
        assert evidence["account"] == "First" and evidence["player"] == throwaway.player
        assert evidence["how"] == "device" and evidence["related_accounts"] == 1
        assert isinstance(evidence["at_ms"], int)


async def test_a_ranked_run_of_an_account_on_the_address_of_one_that_started_is_held(
    store: Store,
) -> None:
    async with running_server(store, **HELD) as server:
        one_address = ("203.0.113.1", PHONE), ("203.0.113.1", LAPTOP)
        _, second, race = await second_after_first(server, *one_address)
        moderator = await player(server, "Mod")
        review = (await admin(moderator, "review", race=race))["review"]
        assert review["held"] is True and review["status"] == "flagged"
        assert review["players"][second.player]["evidence"]["related_account"]["how"] == "address"


async def test_the_first_of_related_accounts_to_start_and_unrelated_ones_are_not_held(
    store: Store,
) -> None:
    async with running_server(store, **HELD) as server:
        first = await member_on(server, "First", "203.0.113.1", PHONE)
        await member_on(server, "Sibling", "198.51.100.2", PHONE)  # related, never starts
        stranger = await member_on(server, "Stranger", "198.51.100.3", TABLET)
        moderator = await player(server, "Mod")
        for client in (first, stranger):
            race = await daily_run_resigned(client, GAME)
            review = (await admin(moderator, "review", race=race))["review"]
            assert review["status"] == "clear" and review["held"] is False


async def told_after_a_quick_race(store: Store, devices: tuple[str, str], kind: str) -> Any:
    """Ann and Bob, on addresses of their own and on ``devices``, race; what Ann is told
    after it (the event ``kind``), and the two."""
    async with running_server(store, **RATED) as server:
        ann = await member_on(server, "Ann", "203.0.113.1", devices[0])
        bob = await member_on(server, "Bob", "198.51.100.2", devices[1])
        await quick_race_played(ann, bob, GAME)
        return (await ann.next_event(kind, timeout=10)).data, {ann.player, bob.player}


async def test_accounts_on_one_device_never_rate_each_other(store: Store) -> None:
    unrated, _ = await told_after_a_quick_race(store, (PHONE, PHONE), "unrated")
    assert unrated["reason"] == "related" and "related" in unrated["message"]


async def test_accounts_on_their_own_devices_and_addresses_rate_each_other(store: Store) -> None:
    rated, players = await told_after_a_quick_race(store, (PHONE, LAPTOP), "rated")
    assert set(rated["ratings"]) == players


# ---------------------------------------------------------------- token lineage


async def connected(server: RaceServer, address: str, token: str | None = None) -> Client:
    """A connection from ``address`` (behind the trusted proxy), no device id, presenting
    ``token`` at hello when given."""
    client = Client(url(server), "Someone")
    client.headers = {"X-Forwarded-For": address}
    client.token = token or ""
    await client.resume()
    return client


async def one_guest_session_signs_in_and_registers(server: RaceServer) -> tuple[Client, Client]:
    """Each on an address of its own: a guest signs in to the account First; the guest's
    token, presented again, registers Second."""
    await member_on(server, "First", "203.0.113.1", None)
    guest = await connected(server, "203.0.113.2")
    guest_token = guest.token
    await guest.sign_in("First", password_for("First"))
    again = await connected(server, "203.0.113.3", guest_token)
    await again.register("Second", password_for("Second"))
    return guest, again


async def signed_out_token_then_signed_in(server: RaceServer) -> tuple[Client, Client]:
    """Each on an address of its own: First signs out; its token, presented again, opens a
    guest's session that signs in to Second. First (signed in again elsewhere) and
    Second."""
    first = await member_on(server, "First", "203.0.113.1", None)
    await member_on(server, "Second", "203.0.113.2", None)
    first_token = first.token
    await first.sign_out()
    again = await connected(server, "203.0.113.3", first_token)
    await again.sign_in("Second", password_for("Second"))
    back = await connected(server, "203.0.113.4")
    await back.sign_in("First", password_for("First"))
    return back, again


async def review_of(server: RaceServer, race: str) -> dict[str, Any]:
    answer = await admin(await player(server, "Mod"), "review", race=race)
    review: dict[str, Any] = answer["review"]
    return review


async def test_a_run_of_an_account_registered_on_a_session_that_signed_in_another_is_held(
    store: Store,
) -> None:
    async with running_server(store, **HELD) as server:
        first, second = await one_guest_session_signs_in_and_registers(server)
        await daily_run_resigned(first, GAME)  # it learns the deal...
        race = await daily_run_resigned(second, GAME)  # ...and the second plays it
        assert (await second.next_event("held", timeout=10)).data["race"] == race
        review = await review_of(server, race)
        seen = review["players"][second.player]
        assert seen["reasons"] == ["related_account"]
        evidence = seen["evidence"]["related_account"]
        assert (evidence["account"], evidence["player"]) == ("First", first.player)
        assert evidence["how"] == "session" and isinstance(evidence["at_ms"], int)


async def test_a_run_of_an_account_signed_in_with_a_signed_out_account_s_token_is_held(
    store: Store,
) -> None:
    async with running_server(store, **HELD) as server:
        first, second = await signed_out_token_then_signed_in(server)
        await daily_run_resigned(first, GAME)
        race = await daily_run_resigned(second, GAME)
        review = await review_of(server, race)
        assert review["held"] is True and review["status"] == "flagged"
        evidence = review["players"][second.player]["evidence"]["related_account"]
        assert (evidence["account"], evidence["how"]) == ("First", "session")


async def test_accounts_signed_in_on_sessions_of_their_own_are_not_related(
    store: Store,
) -> None:
    async with running_server(store, **HELD) as server:
        await member_on(server, "First", "203.0.113.1", None)
        await member_on(server, "Second", "203.0.113.2", None)
        first, second = (
            await connected(server, "203.0.113.3"),
            await connected(server, "203.0.113.4"),
        )
        await first.sign_in("First", password_for("First"))
        await second.sign_in("Second", password_for("Second"))
        await daily_run_resigned(first, GAME)
        review = await review_of(server, await daily_run_resigned(second, GAME))
        assert review["status"] == "clear" and review["held"] is False


async def test_accounts_related_by_a_session_never_rate_each_other(store: Store) -> None:
    async with running_server(store, **RATED) as server:
        first, second = await one_guest_session_signs_in_and_registers(server)
        await quick_race_played(first, second, GAME)
        unrated = (await first.next_event("unrated", timeout=10)).data
        assert unrated["reason"] == "related"
