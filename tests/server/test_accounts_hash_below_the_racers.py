"""Password hashes: one made with older parameters is renewed at the next sign-in; hashing
runs below the racers' priority (further below a niced server's own), and a flood of it is
refused rather than queued."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from harness import (
    TEST_SETTINGS,
    player,
    running_server,
)

from server.desks.accounts import HASHING_NICE, MAX_PENDING, AccountError, Credentials
from server.desks.passwords import needs_rehash, verify_password
from server.edge.ratelimit import attempts_bucket
from server.store import Account, MemoryStore, Store


async def test_a_hash_made_with_older_parameters_is_renewed_at_the_next_sign_in(
    store: Store,
) -> None:
    old = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1)
    await store.accounts.create_account(Account("pann", "Ann", old.hash("a long secret")))
    async with running_server(store) as server, await player(server, "x") as someone:
        assert (await someone.sign_in("Ann", "a long secret"))["player"] == "pann"
    renewed = await store.accounts.account("Ann")
    assert renewed is not None and not needs_rehash(renewed.password_hash)
    assert verify_password(renewed.password_hash, "a long secret")


async def test_hashing_runs_below_the_racers_priority_and_a_flood_of_it_is_refused() -> None:
    credentials = Credentials(MemoryStore(), TEST_SETTINGS)
    try:
        nice, policy = await credentials._off_loop(
            lambda: (
                os.getpriority(os.PRIO_PROCESS, threading.get_native_id()),
                os.sched_getscheduler(threading.get_native_id()),
            )
        )
        assert nice == min(19, os.getpriority(os.PRIO_PROCESS, 0) + HASHING_NICE)  # 19 at most
        assert policy == os.SCHED_IDLE  # only CPU that nobody else wants
        assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the event loop's is unchanged
        credentials.pending = MAX_PENDING  # as many hashes waiting as it takes
        with pytest.raises(AccountError) as refused:
            await credentials.sign_in(attempts_bucket(TEST_SETTINGS), "1.2.3.4", "Ann", "password")
        assert refused.value.code == "auth_rate_limited"
    finally:
        credentials.close()


async def test_tries_refused_while_the_server_is_busy_hashing_spend_no_one_s_allowance() -> None:
    """A wave of sign-ins (a restart, a busy machine) refuses tries while hashes wait; those
    tries did no work, so they must not count against the address or the username, or a
    player who tries again every few seconds stays locked out long after the wave."""
    settings = dataclasses.replace(TEST_SETTINGS, auth_per_address=3, auth_per_username=3)
    store = MemoryStore()
    credentials = Credentials(store, settings)
    try:
        await credentials.register(True, "1.2.3.4", "pann", "Ann", "a long secret")
        credentials.pending = MAX_PENDING  # busy: as many hashes waiting as it takes
        for _ in range(5):
            for attempt in (
                credentials.register(True, "1.2.3.4", "pbob", "Bob", "a long secret"),
                credentials.sign_in(True, "1.2.3.4", "Ann", "a long secret"),
            ):
                with pytest.raises(AccountError, match="busy signing others in"):
                    await attempt
        credentials.pending = 0  # the wave is over
        assert (await credentials.register(True, "1.2.3.4", "pbob", "Bob", "a long secret")).player
        assert (await credentials.sign_in(True, "1.2.3.4", "Ann", "a long secret")).player == "pann"
    finally:
        credentials.close()


def test_a_niced_server_hashes_further_below_its_own_priority_not_at_a_fixed_nice() -> None:
    """An operator who runs the server at nice 5 must not find the hashing at 10: that is
    below the racers by 5, not by ``HASHING_NICE``, and at nice 15 it would be above them."""
    code = (
        "import os, threading\n"
        "from server.desks.accounts import yield_to_racers\n"
        "def hash_thread():\n"
        "    yield_to_racers()\n"
        "    print(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))\n"
        "t = threading.Thread(target=hash_thread); t.start(); t.join()\n"
    )
    shown = subprocess.run(
        ["nice", "-n", "5", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert int(shown.stdout) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 5 + HASHING_NICE)
