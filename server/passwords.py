"""Password hashing: argon2id (``argon2-cffi``), with parameters that cost about 50 ms of
one core per hash on the reference machine (docs/players.md has the measurement). The
password is never logged, stored or put in an exception: only its hash leaves here."""

from __future__ import annotations

from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

TIME_COST = 1  # passes
MEMORY_COST_KIB = 47_104  # 46 MiB: OWASP's first argon2id choice (m=46 MiB, t=1, p=1)
PARALLELISM = 1  # one thread: a sign-in never takes more than one core


@cache
def hasher() -> PasswordHasher:
    return PasswordHasher(time_cost=TIME_COST, memory_cost=MEMORY_COST_KIB, parallelism=PARALLELISM)


def hash_password(password: str) -> str:
    """The argon2id hash of ``password`` (with its salt and parameters)."""
    return hasher().hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """``password`` is the one ``password_hash`` was made from."""
    try:
        return hasher().verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@cache
def dummy_hash() -> str:
    """A hash to verify against when there is no account, so an unknown username costs
    what a wrong password does (no telling the two apart by time)."""
    return hash_password("no account has this password")
