"""Accounts through a real server: registering turns a guest into an account (the same
player), signing in continues as it anywhere, signing out forgets tokens; names follow
their rules; guessing is limited and slowed; a password is never kept or logged in
clear (its hashing: test_accounts_hash_below_the_racers.py); ranked daily runs are for
accounts. On the in-memory store and on a real Redis."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from harness import (
    member,
    password_for,
    player,
    running_server,
    url,
    winning_actions,
)
from websockets.datastructures import HeadersLike

from client.api import Client, ServerError
from protocol.accounts import username_key
from protocol.daily import DAY_MS, day_of
from server.desks.passwords import MEMORY_COST_KIB, TIME_COST
from server.store import Account, Store
from server.store.redis_store import RedisStore

GAME, DEAL = "mount_sunflower", 18


async def refused(code: str, request: object) -> ServerError:
    with pytest.raises(ServerError) as error:
        await request  # type: ignore[misc]
    assert error.value.code == code, error.value
    return error.value


async def test_registering_makes_the_guest_an_account_of_the_same_player(store: Store) -> None:
    async with running_server(store) as server:
        ann = await player(server, "Annie")
        guest, guest_token = ann.player, ann.token
        answer = await ann.register("Ann", "a long secret")
        assert (answer["player"], answer["name"], answer["account"]) == (guest, "Ann", "Ann")
        assert answer["claimed"] == []  # no daily attempt of today to claim
        assert answer["token"] != guest_token
        again = Client(url(server), "Whoever")  # the account's token names the account
        again.token = answer["token"]
        welcome = await again.resume()
        assert (welcome.player, welcome.name, welcome.account) == (guest, "Ann", "Ann")
        stale = Client(url(server), "Annie")  # the guest's token no longer names anyone
        stale.token = guest_token
        assert (await stale.resume()).player != guest


@pytest.mark.parametrize(
    ("username", "code"),
    [
        ("x" * 25, "bad_username"),  # too long
        ("Ann!", "bad_username"),  # not a letter, digit, _ or -
        ("Ann Lee", "bad_username"),
        ("\u0410nn", "bad_username"),  # a Cyrillic A: ASCII only
        ("Il1", "bad_username"),  # only look-alike characters
        ("0_O", "bad_username"),
        ("Admin", "bad_username"),  # kept for the service, in any case
    ],
)
async def test_a_username_that_breaks_a_rule_is_refused(username: str, code: str) -> None:
    async with running_server() as server, await player(server, "Ann") as ann:
        await refused(code, ann.register(username, "a long secret"))
        assert (await ann.register("Ann_2-b", "a long secret"))["account"] == "Ann_2-b"


@pytest.mark.parametrize("password", ["short", "x" * 129])
async def test_a_password_of_the_wrong_length_is_refused(password: str) -> None:
    async with running_server() as server, await player(server, "Ann") as ann:
        error = await refused("bad_field", ann.register("Ann", password))
        assert "'password' must be 8 to 128 characters long" in error.message
        assert password not in error.message


async def test_a_username_is_taken_whatever_its_case(store: Store) -> None:
    async with running_server(store) as server:
        await member(server, "Ann")
        bob = await player(server, "Bob")
        await refused("username_taken", bob.register("ANN", "a long secret"))
        await refused("already_signed_in", (await member(server, "Cy")).register("Cy2", "password"))


@pytest.mark.parametrize(
    ("first", "lookalike"), [("BOB", "B0B"), ("llya", "Ilya"), ("Mia", "rnia"), ("Al1", "ali")]
)
async def test_a_username_that_reads_like_a_taken_one_is_taken(
    store: Store, first: str, lookalike: str
) -> None:
    async with running_server(store) as server:
        await member(server, first)
        late = await player(server, "late")
        error = await refused("username_taken", late.register(lookalike, "a long secret"))
        assert "reads like it" in error.message
        assert (await late.register("Bobby", "a long secret"))["account"] == "Bobby"


@pytest.mark.parametrize("name", ["admin", "Adm1n", "ROOT", "s0lrace"])
async def test_a_guest_may_not_go_by_a_name_the_service_keeps(name: str) -> None:
    async with running_server() as server:
        with pytest.raises(ServerError) as refused_hello:
            await player(server, name)
        assert refused_hello.value.code == "bad_field"
        assert "kept for the service" in refused_hello.value.message


async def test_signing_in_continues_as_the_account_on_any_connection(store: Store) -> None:
    async with running_server(store) as server:
        ann = await member(server, "Ann")
        other = await player(server, "Gus")
        answer = await other.sign_in("ann", password_for("Ann"))  # any case
        assert (answer["player"], answer["name"], answer["account"]) == (ann.player, "Ann", "Ann")
        assert other.player == ann.player
        await asyncio.wait_for(ann.connection.wait_closed(), 5)  # type: ignore[union-attr]
        assert ann.connection is not None and ann.connection.close_code == 4001
        await refused("already_signed_in", other.sign_in("Ann", password_for("Ann")))


async def test_a_wrong_password_and_an_unknown_username_get_the_same_answer(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[str] = []
    import server.desks.accounts as accounts

    real = accounts.verify_password

    def spy(password_hash: str, password: str) -> bool:
        checked.append(password_hash)
        return real(password_hash, password)

    monkeypatch.setattr(accounts, "verify_password", spy)
    async with running_server(store) as server:
        await member(server, "Ann")
        wrong = await refused(
            "bad_credentials", (await player(server, "x")).sign_in("Ann", "wrong pass")
        )
        unknown = await refused(
            "bad_credentials", (await player(server, "y")).sign_in("Nobody", "wrong pass")
        )
        assert wrong.message == unknown.message == "the username or the password is wrong"
    # the same work: a whole argon2id check for the unknown name too, at the same cost
    assert len(checked) == 2 and all(h.startswith("$argon2id$") for h in checked)
    assert all(f"m={MEMORY_COST_KIB},t={TIME_COST},p=1" in h for h in checked)


async def test_each_failed_sign_in_makes_the_next_attempts_wait_longer_until_one_succeeds(
    store: Store,
) -> None:
    async with running_server(store) as server:
        await member(server, "Ann")
        guess = await player(server, "guesser")
        waits = []
        for _ in range(3):
            began = time.monotonic()
            await refused("bad_credentials", guess.sign_in("Ann", "not the password"))
            waits.append(time.monotonic() - began)
        began = time.monotonic()
        await guess.sign_in("Ann", password_for("Ann"))  # waits too, then succeeds
        waits.append(time.monotonic() - began)
        assert waits[1] >= 0.25 and waits[2] >= 0.5 and waits[3] >= 1.0
        # the success forgot the failures: none is counted against the name or the address
        scopes = (f"user:{username_key('Ann')}", "address:127.0.0.1")
        assert [await store.limits.failures(scope) for scope in scopes] == [0, 0]
        again = await player(server, "later")
        began = time.monotonic()
        await refused("bad_credentials", again.sign_in("Ann", "not the password"))
        # so the next wrong password waits for no delay (the success waited one of 1 s)
        assert time.monotonic() - began < waits[3]


async def test_attempts_are_limited_per_connection() -> None:
    async with running_server() as server, await player(server, "guesser") as guess:
        for _ in range(10):
            await refused("bad_username", guess.register("Il1", "a long secret"))
        error = await refused("auth_rate_limited", guess.register("Il1", "a long secret"))
        assert "wait a minute" in error.message


async def test_attempts_are_limited_per_address_on_every_connection_from_it(store: Store) -> None:
    async with running_server(store, auth_per_address=3) as server:
        for _ in range(3):
            await refused("bad_username", (await player(server, "x")).register("Il1", "password"))
        error = await refused(
            "auth_rate_limited", (await player(server, "x")).register("Il1", "password")
        )
        assert "your address" in error.message


async def register_code(server_url: str, headers: HeadersLike) -> str:
    """The code a registration of a refused name answers, sent with ``headers``: its
    refusal (bad_username) or the address's limit (auth_rate_limited)."""
    client = await Client.connect(server_url, "x", headers=headers)
    try:
        await client.register("Il1", "password")
    except ServerError as error:
        return error.code
    raise AssertionError("Il1 was accepted")


async def test_a_forwarded_address_counts_only_from_a_trusted_proxy() -> None:
    async def attempts_left(server_url: str, forwarded: str) -> str:
        return await register_code(server_url, {"X-Forwarded-For": forwarded})

    async with running_server(auth_per_address=1, trusted_proxies=("127.0.0.1",)) as server:
        assert await attempts_left(url(server), "203.0.113.5") == "bad_username"
        assert await attempts_left(url(server), "203.0.113.5") == "auth_rate_limited"
        assert await attempts_left(url(server), "203.0.113.6") == "bad_username"  # another
    async with running_server(auth_per_address=1) as server:  # no trusted proxy: the peer
        assert await attempts_left(url(server), "203.0.113.5") == "bad_username"
        assert await attempts_left(url(server), "203.0.113.6") == "auth_rate_limited"


async def test_several_forwarded_for_lines_are_one_list_and_the_proxy_s_entry_counts() -> None:
    """A client's own X-Forwarded-For line, then the one its trusted proxy added (as
    HAProxy does): the connection works, and the proxy's entry (the last) is the address."""

    async def code_from(server_url: str, own: str, added: str) -> str:
        return await register_code(
            server_url, [("X-Forwarded-For", own), ("X-Forwarded-For", added)]
        )

    async with running_server(auth_per_address=1, trusted_proxies=("127.0.0.1",)) as server:
        assert await code_from(url(server), "10.0.0.1", "203.0.113.5") == "bad_username"
        assert await code_from(url(server), "10.0.0.2", "203.0.113.5") == "auth_rate_limited"
        assert await code_from(url(server), "10.0.0.1", "203.0.113.6") == "bad_username"


async def test_a_racing_guest_finishes_before_signing_in_and_keeps_nothing_of_the_guest() -> None:
    async with running_server(countdown_ms=0) as server:
        await member(server, "Ann")
        guest = await player(server, "Gus")
        race = (await guest.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await guest.next_event("started")
        await refused("in_race", guest.sign_in("Ann", password_for("Ann")))
        await guest.resign(race)
        await guest.sign_in("Ann", password_for("Ann"))
        assert await guest.my_races() == []


async def test_signing_in_brings_the_account_s_race_to_the_new_connection() -> None:
    async with running_server(countdown_ms=0) as server:
        ann = await member(server, "Ann")
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        await ann.act(race, winning_actions(GAME, DEAL)[0])
        phone = await player(server, "phone")
        await phone.sign_in("Ann", password_for("Ann"))
        snapshot = await phone.next_event("snapshot")
        (mine,) = snapshot.data["races"]
        assert mine["race"] == race and mine["you"]["seq"] == 1
        assert (await phone.act(race, winning_actions(GAME, DEAL)[1], seq=2))["seq"] == 2


async def test_signing_out_forgets_the_token_and_everywhere_forgets_every_one(store: Store) -> None:
    async with running_server(store) as server:
        ann = await member(server, "Ann")
        laptop = await player(server, "laptop")
        await laptop.sign_in("Ann", password_for("Ann"))
        laptop_token = laptop.token
        answer = await laptop.sign_out()
        assert answer == {**answer, "signed_out": True, "everywhere": False}
        await asyncio.wait_for(laptop.connection.wait_closed(), 5)  # type: ignore[union-attr]
        assert laptop.connection is not None and laptop.connection.close_code == 4003
        assert await resumed_player(server, laptop_token) != ann.player
        phone = await player(server, "phone")
        await phone.sign_in("Ann", password_for("Ann"))
        phone_token = phone.token
        desktop = await player(server, "desktop")
        await desktop.sign_in("Ann", password_for("Ann"))
        await desktop.sign_out(everywhere=True)
        assert await resumed_player(server, phone_token) != ann.player
        again = await player(server, "again")  # the account itself stays
        assert (await again.sign_in("Ann", password_for("Ann")))["player"] == ann.player


async def test_each_device_keeps_its_own_token_and_signs_out_only_itself(store: Store) -> None:
    async with running_server(store) as server:
        first = await member(server, "Ann")
        first_token = first.token
        second = await player(server, "second device")
        await second.sign_in("Ann", password_for("Ann"))
        second_token = second.token
        back = Client(url(server), "first device")  # the first device comes back
        back.token = first_token
        welcome = await back.resume()
        assert (welcome.player, welcome.token) == (first.player, first_token)
        await back.sign_out()
        assert await resumed_player(server, first_token) != first.player
        assert await resumed_player(server, second_token) == first.player
    async with running_server(store) as server:  # and after a restart
        assert await resumed_player(server, first_token) != first.player
        assert await resumed_player(server, second_token) == first.player


async def resumed_player(server: object, token: str) -> str:
    client = Client(url(server), "someone")  # type: ignore[arg-type]
    client.token = token
    return (await client.resume()).player


async def test_a_guest_plays_yesterday_s_deal_and_only_an_account_s_first_of_today_is_ranked(
    store: Store,
) -> None:
    """No card of today's deal before one's own ranked attempt, by any path: a guest plays
    yesterday's daily (its deal revealed, its day over), never ranked nor claimable; an
    account's first attempt of today is ranked."""
    now = int(time.time() * 1000)
    today, yesterday = day_of(now), day_of(now - DAY_MS)
    await store.days.set_daily_deal(GAME, today, DEAL)
    async with running_server(store) as server:
        guest = await player(server, "Gus")
        first = await guest.daily_start(GAME)
        assert (first["ranked"], first["claimable"], first["day"]) == (False, False, yesterday)
        assert first["commitment"] != (await guest.daily_board(GAME))["commitment"]
        await guest.resign(first["race"]["race"])
        registered = await guest.register("Gus", "a long secret")
        assert registered["claimed"] == []  # nothing of yesterday's goes on a board

        ann = await member(server, "Ann")
        ranked = await ann.daily_start(GAME)
        assert (ranked["ranked"], ranked["day"]) == (True, today)
        for action in winning_actions(GAME, DEAL):
            await ann.act(ranked["race"]["race"], action)
        board = await waiting_for_board(ann, 1)
        assert [e["name"] for e in board["top"]] == ["Ann"]


async def waiting_for_board(client: Client, count: int) -> dict[str, object]:
    for _ in range(100):
        board = await client.daily_board(GAME)
        if board["total"] >= count:
            return board
        await asyncio.sleep(0.02)
    raise AssertionError(f"the board never reached {count} entries")


async def test_a_password_is_never_logged_nor_stored_in_clear(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "horse battery staple 42"
    caplog.set_level(logging.DEBUG)
    async with running_server(store) as server:
        ann = await player(server, "Ann")
        await ann.register("Ann", secret)
        await refused("bad_credentials", (await player(server, "x")).sign_in("Ann", secret + "!"))
        await (await player(server, "y")).sign_in("Ann", secret)
        await refused("bad_field", (await player(server, "z")).sign_in("Ann", "x" * 200))
    server_side = [r for r in caplog.records if not r.name.startswith("websockets.client")]
    logged = "\n".join(f"{r.getMessage()} {r.args} {r.__dict__}" for r in server_side)
    assert server_side and secret not in logged and "x" * 200 not in logged
    account = await store.accounts.account("ann")
    assert account is not None and secret not in account.password_hash
    assert secret not in repr(account)
    if isinstance(store, RedisStore):
        raw = store._redis  # every value of every key this test wrote
        for key in await raw.keys(store.prefix + "*"):
            kind = await raw.type(key)
            value = await (raw.hgetall(key) if kind == "hash" else raw.dump(key))
            assert secret not in str(value)


async def test_accounts_outlive_the_server_process(redis_url: str) -> None:
    prefix = f"accounts-{time.monotonic_ns()}:"
    first = RedisStore(redis_url, prefix=prefix)
    async with running_server(first) as server:
        ann = await member(server, "Ann")
    await first.close()
    second = RedisStore(redis_url, prefix=prefix)  # a restart, or another node
    async with running_server(second) as server:
        again = await player(server, "x")
        assert (await again.sign_in("Ann", password_for("Ann")))["player"] == ann.player
        await refused("username_taken", (await player(server, "y")).register("ann", "password"))
    await second.close()


async def test_guesses_at_one_username_are_limited_whatever_address_they_come_from(
    store: Store,
) -> None:
    """Eight guesses at Ann's password at once, each from its own address behind the
    balancer: only ``auth_per_username`` of them are tried."""
    settings = {"auth_per_username": 5, "trusted_proxies": ("127.0.0.1",)}
    async with running_server(store, **settings) as server:
        await member(server, "Ann")
        guessers = [
            await Client.connect(url(server), "x", headers={"X-Forwarded-For": f"203.0.113.{i}"})
            for i in range(8)
        ]
        answers = await asyncio.gather(
            *(g.sign_in("Ann", f"guess number {i}") for i, g in enumerate(guessers)),
            return_exceptions=True,
        )
        codes = sorted(a.code for a in answers if isinstance(a, ServerError))
        assert codes == ["auth_rate_limited"] * 3 + ["bad_credentials"] * 5, answers
        error = next(
            a for a in answers if isinstance(a, ServerError) and a.code != "bad_credentials"
        )
        assert "this account" in error.message


async def test_a_connection_s_tries_are_counted_when_they_arrive_not_when_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """10 tries a minute on a connection (a token every 6 s): 12 sent at once, each taking
    0.6 s to answer, are 10 tried and 2 refused (counted as they were answered, the token
    that came back meanwhile let an eleventh through)."""
    monkeypatch.setattr("server.desks.accounts.failure_delay_s", lambda failures: 0.6)
    async with running_server(auth_per_connection=10) as server, await player(server, "x") as x:
        answers = await asyncio.gather(
            *(x.sign_in("Nobody", f"password {i}") for i in range(12)), return_exceptions=True
        )
    codes = [a.code for a in answers if isinstance(a, ServerError)]
    assert codes.count("bad_credentials") == 10 and codes.count("auth_rate_limited") == 2


async def test_an_address_makes_at_most_three_accounts_a_day(store: Store) -> None:
    async with running_server(store, registrations_per_address_day=3) as server:
        for name in ("Ann", "Bob", "Cy"):
            await member(server, name)
        late = await player(server, "late")
        error = await refused("auth_rate_limited", late.register("Dee", "a long secret"))
        assert "today" in error.message


async def test_an_account_made_today_plays_today_s_daily_as_practice(store: Store) -> None:
    async with running_server(store, new_accounts_ranked_today=False) as server:
        guest = await player(server, "Gus")
        assert (await guest.daily_start("mount_sunflower"))["claimable"] is False
        fresh = await member(server, "Fresh")
        started = await fresh.daily_start("mount_sunflower")
        assert started["ranked"] is False
        await fresh.resign(started["race"]["race"])
        board = await fresh.daily_board("mount_sunflower")
        assert board["me"] is None and board["total"] == 0


async def test_an_account_made_before_today_is_ranked_today(store: Store) -> None:
    from protocol.daily import DAY_MS
    from server.desks.passwords import hash_password

    yesterday = int(time.time() * 1000) - DAY_MS
    await store.accounts.create_account(
        Account("p0123456789ab", "Old", hash_password("a long secret"), yesterday)
    )
    async with running_server(store, new_accounts_ranked_today=False) as server:
        old = await Client.signed_in(url(server), "Old", "a long secret")
        assert (await old.daily_start("mount_sunflower"))["ranked"] is True
