"""The account desk on its own: a sign-in's account side (the guest refused while racing
before an attempt is counted, a token of the account returned with the write that keeps
it, for the answer to wait for: the desk awaits no writer; the guest out of the pool)
leaves the sessions to the gateway, which ends the guest's and attaches the account's."""

from __future__ import annotations

import pytest
from harness import TEST_SETTINGS, member, password_for, player, running_server

from protocol.messages import SignIn
from server.desks.accounts import AccountError
from server.edge.ratelimit import attempts_bucket
from server.handover.effects import Write
from server.handover.jobs import SaveIdentity
from server.state.sessions import token_hash
from server.store import Identity

GAME, DEAL = "mount_sunflower", 18


async def test_signing_in_returns_the_account_s_token_to_store_and_leaves_the_guest_alone() -> None:
    async with running_server() as server:
        await (await member(server, "Ann")).close()
        guest = await player(server, "Gus")
        await guest.quick_race(GAME)
        session = server.sessions.by_player[guest.player]
        account, token, effects = await server.account_desk.sign_in(
            session, SignIn(1, "Ann", password_for("Ann")), attempts_bucket(TEST_SETTINGS), "ip"
        )
        assert account.username == "Ann"
        assert await server.store.accounts.identity(token_hash(token)) is None  # not yet
        [write] = effects
        assert isinstance(write, Write) and isinstance(write.job, SaveIdentity)
        await server.writer.stored(write.job)  # as the executor does before the answer
        assert await server.store.accounts.identity(token_hash(token)) == Identity(
            account.player, "Ann", "Ann"
        )
        assert await server.store.pairing.pool(GAME) == []  # the guest waits no more
        assert server.sessions.by_player[guest.player] is session  # the gateway ends it
        assert session.account is None
        await guest.close()


async def test_a_racing_guest_is_refused_before_an_attempt_is_counted() -> None:
    async with running_server(countdown_ms=0) as server:
        guest = await player(server, "Gus")
        await guest.create_race(GAME, deal=DEAL, max_players=1)
        await guest.next_event("started")
        attempts = attempts_bucket(TEST_SETTINGS)
        left = attempts.tokens
        session = server.sessions.by_player[guest.player]
        with pytest.raises(AccountError) as refused:
            await server.account_desk.sign_in(session, SignIn(1, "Ann", "secret!"), attempts, "ip")
        assert refused.value.code == "in_race"
        assert attempts.tokens == left  # no attempt counted, nothing hashed
        await guest.close()
