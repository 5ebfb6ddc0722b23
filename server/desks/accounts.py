"""Accounts' credentials: registering and signing in, with the limits that keep guessing
slow (the requests themselves, and what they do to sessions: ``server/desks/account_desk.py``).

Passwords are hashed and checked with argon2id (``server/desks/passwords.py``) in one worker
thread, so a sign-in never blocks the event loop and never takes more than one core.
Attempts are limited per connection (a token bucket) and per client address (a window
counted in the store, so every node counts together); once sign-ins of a username or from
an address have failed, every later attempt of theirs waits, doubling with each failure
(from 0.25 s up to 8 s), until one succeeds or 15 minutes pass. A wrong password and an
unknown username get the same answer after the same work, so an answer never tells
whether an account exists.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from protocol.accounts import username_key, username_problem
from protocol.errors import SolraceError
from server.config import Settings
from server.desks.passwords import dummy_hash, hash_password, needs_rehash, verify_password
from server.store import Account, Store

T = TypeVar("T")

WINDOW_S = 600  # attempts per address are counted in windows of 10 minutes
DAY_S = 86_400  # registrations per address are counted over a day
FAILURES_KEPT_S = 900  # failures are forgotten 15 minutes after the last one
MAX_PENDING = 100  # hashes waiting at most (about 1.5 s of one core)
HASHING_NICE = 10
FIRST_DELAY_S = 0.25
MAX_DELAY_S = 8.0


class AccountError(SolraceError):
    """A refused register or sign-in (its code says which rule refused it)."""


def yield_to_racers() -> None:
    """The hashing thread runs only on CPU nobody else wants (Linux's SCHED_IDLE, and
    ``HASHING_NICE`` below the process's own priority where that is refused), so a wave of
    sign-ins takes the CPU the racers leave, not theirs: a racer's event loop waking takes
    the core at once (Linux schedules threads one by one; elsewhere this does nothing). The
    daily certification worker is in the same class (``server/desks/daily.py``): the two share
    what the racers leave, and a sign-in never waits behind certification."""
    with contextlib.suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        below = os.getpriority(os.PRIO_PROCESS, thread) + HASHING_NICE
        os.setpriority(os.PRIO_PROCESS, thread, min(19, below))
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))


def failure_delay_s(failures: int) -> float:
    """How long an attempt waits after ``failures`` failed ones."""
    return 0.0 if failures <= 0 else min(FIRST_DELAY_S * 2 ** (failures - 1), MAX_DELAY_S)


class Credentials:
    """Makes accounts and checks their passwords, under the limits above."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.hashing = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="passwords", initializer=yield_to_racers
        )
        self.pending = 0  # hashes asked for and not done

    async def register(
        self, allowed: bool, address: str, player: str, username: str, password: str
    ) -> Account:
        """Make ``player`` the account ``username``; AccountError when the name may not be
        one (``bad_username``) or is taken (``username_taken``)."""
        await self._admit(allowed, f"register:{address}")
        problem = username_problem(username)
        if problem is not None:
            raise AccountError(problem, "bad_username")
        if await self.store.limits.count_attempt(f"register-day:{address}", DAY_S) > (
            self.settings.registrations_per_address_day
        ):
            raise AccountError(
                f"{self.settings.registrations_per_address_day} accounts were made from your "
                "address today, the most allowed: try again tomorrow",
                "auth_rate_limited",
            )
        hashed = await self._off_loop(hash_password, password)
        account = Account(player, username, hashed, int(time.time() * 1000))
        if not await self.store.accounts.create_account(account):
            raise AccountError(
                f"the username {username!r}, or one that reads like it, is taken",
                "username_taken",
            )
        return account

    async def sign_in(self, allowed: bool, address: str, username: str, password: str) -> Account:
        """The account ``username`` if ``password`` is its password; AccountError
        ``bad_credentials`` otherwise, whether or not the account exists."""
        await self._admit(allowed, f"sign_in:{address}")
        tries = await self.store.limits.count_attempt(
            f"sign_in-user:{username_key(username)}", WINDOW_S
        )
        if tries > self.settings.auth_per_username:  # guesses from many addresses at once
            raise AccountError(
                "too many sign-in attempts on this account: wait ten minutes",
                "auth_rate_limited",
            )
        scopes = (f"user:{username_key(username)}", f"address:{address}")
        failures = [await self.store.limits.failures(scope) for scope in scopes]
        await asyncio.sleep(failure_delay_s(max(failures)))
        account = await self.store.accounts.account(username)

        def check() -> bool:
            return verify_password(account.password_hash if account else dummy_hash(), password)

        matches = await self._off_loop(check)  # the same work whether or not it exists
        if account is None or not matches:
            for scope in scopes:
                await self.store.limits.note_failure(scope, FAILURES_KEPT_S)
            raise AccountError("the username or the password is wrong", "bad_credentials")
        for scope in scopes:
            await self.store.limits.clear_failures(scope)
        if account.closed:
            raise AccountError("this account was closed by a moderator", "account_closed")
        if needs_rehash(account.password_hash):  # made with older parameters: renew it
            renewed = await self._off_loop(hash_password, password)
            await self.store.accounts.set_password_hash(account.username, renewed)
        return account

    async def _admit(self, allowed: bool, scope: str) -> None:
        """Refuse an attempt over the connection's limit (``allowed``: decided when the
        request arrived, ``attempts_bucket`` in ``server/edge/ratelimit.py``), while the server
        is busy hashing (counted against nothing else), or over the address's."""
        if not allowed:
            raise AccountError(
                "too many sign-in attempts on this connection: wait a minute",
                "auth_rate_limited",
            )
        self._refuse_when_busy()  # before counting: a try that does no work spends nothing
        limit = self.settings.auth_per_address
        if await self.store.limits.count_attempt(scope, WINDOW_S) > limit:
            raise AccountError(
                "too many sign-in attempts from your address: wait ten minutes",
                "auth_rate_limited",
            )

    def _refuse_when_busy(self) -> None:
        """Refuse a try while MAX_PENDING hashes wait already."""
        if self.pending >= MAX_PENDING:
            raise AccountError(
                "the server is busy signing others in: try again in a few seconds",
                "auth_rate_limited",
            )

    async def _off_loop(self, work: Callable[..., T], *args: object) -> T:
        """Run a hash in the worker thread; refused when too many wait already (a wave
        of sign-ins waits no longer than MAX_PENDING hashes' time)."""
        self._refuse_when_busy()
        self.pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.hashing, work, *args)
        finally:
            self.pending -= 1

    def close(self) -> None:
        self.hashing.shutdown(wait=False, cancel_futures=True)
