"""Password hashing: argon2id with the chosen parameters; the right password verifies, no
other does, and no password reaches a hash or a log."""

from __future__ import annotations

import logging

import pytest
from argon2 import PasswordHasher

from server.desks import passwords
from server.desks.passwords import hash_password, needs_rehash, verify_password

SECRET = "tr0ub4dor&3-horse"


def test_a_hash_verifies_with_its_password_and_not_with_another() -> None:
    stored = hash_password(SECRET)
    assert verify_password(stored, SECRET)
    assert not verify_password(stored, SECRET + " ")
    assert not verify_password(stored, "")


def test_the_hash_is_argon2id_with_the_chosen_parameters_and_a_fresh_salt() -> None:
    stored = hash_password(SECRET)
    settings = f"m={passwords.MEMORY_COST_KIB},t={passwords.TIME_COST},p={passwords.PARALLELISM}"
    assert stored.startswith(f"$argon2id$v=19${settings}$")
    assert passwords.PARALLELISM == 1
    # one of OWASP's equivalent argon2id settings (memory in MiB, passes)
    owasp = {(46, 1), (19, 2), (12, 3), (9, 4), (7, 5)}
    assert (passwords.MEMORY_COST_KIB // 1024, passwords.TIME_COST) in owasp
    assert hash_password(SECRET) != stored  # salted


def test_the_password_never_appears_in_the_hash_or_the_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    stored = hash_password(SECRET)
    assert SECRET not in stored
    verify_password(stored, SECRET)
    verify_password(stored, "wrong " + SECRET)
    verify_password("$argon2id$not-a-hash", SECRET)
    assert caplog.records  # the unreadable hash was logged ...
    assert SECRET not in caplog.text  # ... without the password
    assert all(SECRET not in str(record.args) for record in caplog.records)


def test_an_unreadable_stored_hash_is_a_mismatch_not_an_error() -> None:
    assert not verify_password("", SECRET)
    assert not verify_password("$argon2id$v=19$m=65536,t=1,p=1$bad$bad", SECRET)


def test_a_hash_made_with_other_parameters_verifies_and_asks_to_be_renewed() -> None:
    old = PasswordHasher(time_cost=1, memory_cost=64 * 1024, parallelism=1).hash(SECRET)
    assert verify_password(old, SECRET)
    assert needs_rehash(old)
    assert not needs_rehash(hash_password(SECRET))
