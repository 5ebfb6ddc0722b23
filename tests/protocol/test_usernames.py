"""Usernames, pure: one sentence of protocol/accounts.py per test, allowed and refused."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol.accounts import CONFUSABLE, username_key, username_problem

NAME_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


def test_a_username_is_one_to_24_ascii_letters_digits_underscores_and_hyphens() -> None:
    for allowed in ("a", "Ann", "ann_lee-2", "x" * 24):
        assert username_problem(allowed) is None
    for refused in ("", "x" * 25, "Ann Lee", "Ann!", "Änn", "\u0410nn", "ann\n"):
        assert username_problem(refused) is not None


def test_a_username_only_of_look_alike_characters_is_refused() -> None:
    for refused in ("Il1", "O0", "_-_", "lll", "o0O"):
        assert "cannot be mistaken" in (username_problem(refused) or "")
    assert username_problem("Il1x") is None  # one clear character is enough


def test_names_the_service_keeps_are_refused_in_any_case() -> None:
    for refused in ("admin", "Admin", "SOLRACE", "guest", "System"):
        assert "kept for the service" in (username_problem(refused) or "")


@given(st.text(alphabet=NAME_CHARACTERS, min_size=1, max_size=24))
def test_names_that_differ_only_in_case_are_one_account(name: str) -> None:
    assert username_key(name) == username_key(name.upper()) == username_key(name.lower())


@given(st.text(max_size=30))
def test_an_accepted_username_is_short_plain_ascii_and_has_a_clear_character(name: str) -> None:
    if username_problem(name) is None:
        assert 1 <= len(name) <= 24 and name.isascii() and name.isprintable()
        assert not set(name) <= CONFUSABLE and " " not in name


def test_names_that_read_alike_share_a_skeleton_and_others_do_not() -> None:
    from protocol.accounts import username_skeleton

    alike = [("BOB", "B0B"), ("Ilya", "llya"), ("ilya", "1lya"), ("Mia", "rnia"), ("Ann", "ann")]
    for one, other in alike:
        assert username_skeleton(one) == username_skeleton(other), (one, other)
    for one, other in [("Bob", "Rob"), ("Ann", "Anna"), ("Sam", "5am"), ("Eve", "3ve")]:
        assert username_skeleton(one) != username_skeleton(other), (one, other)
