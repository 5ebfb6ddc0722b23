"""Password hashing: argon2id (argon2-cffi) with m = 7 MiB, t = 5, p = 1, one of OWASP's
equivalent argon2id settings (from m = 46 MiB, t = 1 to m = 7 MiB, t = 5): about 20 ms of
one core per sign-in here (``solrace bench argon2``; docs/players.md). Of those settings
the smallest memory disturbs the racers least: at 20 sign-ins a second the racers' act
p99 rose about 1 ms with 7 MiB and about 2 ms with 19 MiB (t = 2), whose 19 MiB a hash
streams through push the server's own data out of the caches the cores share (``solrace
bench signin``); 64 MiB (80 ms) was measured first and took 1.6 cores at that rate.

Only the hash string is kept; it carries its own parameters and salt, so a hash made with
older parameters still verifies and ``needs_rehash`` says when to renew it at a sign-in.
No function here logs or keeps a password. Each call holds a core (and ``MEMORY_COST_KIB``
of memory) for its duration: the server runs them in a thread, a few at a time.
"""

from __future__ import annotations

import hashlib
import logging
from functools import cache

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

TIME_COST = 5  # passes over the memory
MEMORY_COST_KIB = 7 * 1024  # 7 MiB: OWASP's argon2id setting with the least memory (t=5)
PARALLELISM = 1  # one lane: one core per sign-in
HASH_LEN = 32
SALT_LEN = 16

log = logging.getLogger("solrace.passwords")


def hasher() -> PasswordHasher:
    """An argon2id hasher with the chosen parameters."""
    return PasswordHasher(
        time_cost=TIME_COST,
        memory_cost=MEMORY_COST_KIB,
        parallelism=PARALLELISM,
        hash_len=HASH_LEN,
        salt_len=SALT_LEN,
        type=Type.ID,
    )


_HASHER = hasher()


def hash_password(password: str) -> str:
    """The PHC string of ``password`` with a fresh random salt (``$argon2id$v=19$m=...``)."""
    return _HASHER.hash(password)


def verify_password(stored_hash: str, password: str) -> bool:
    """Whether ``password`` is the one ``stored_hash`` was made from. A stored hash that
    cannot be read is a mismatch, logged without the password."""
    try:
        return _HASHER.verify(stored_hash, password)
    except VerifyMismatchError:
        return False
    except (VerificationError, InvalidHashError) as error:
        log.warning("a stored password hash could not be checked: %s", type(error).__name__)
        return False


def needs_rehash(stored_hash: str) -> bool:
    """Whether ``stored_hash`` was made with other parameters than today's (hash the
    password again after a successful sign-in)."""
    return _HASHER.check_needs_rehash(stored_hash)


@cache
def dummy_hash() -> str:
    """A hash to check a password against when there is no account, so an unknown
    username costs what a wrong password does (no telling the two apart by time)."""
    return hash_password("no account has this password")


def token_hash(token: str) -> str:
    """What the store keeps of a resume token: its SHA-256, so a copy of the store does not
    let anyone act as a player (a token is 192 random bits: no salt or stretching needed)."""
    return hashlib.sha256(token.encode()).hexdigest()
