"""Account names, pure: what a username may be, and the one form two names that differ
only in case share (so "Ann" and "ann" are one account).

A username is 1 to 24 characters: ASCII letters, digits, ``_`` and ``-``. ASCII only, so
no two scripts' look-alike letters (a Cyrillic and a Latin "a") can make two accounts
that read the same; and not made only of characters that are easily taken for one another
(``0 O o 1 l I _ -``, e.g. "Il1"), which a reader cannot tell apart; and not a name the
service uses for itself.
"""

from __future__ import annotations

import re
from typing import Final

MAX_USERNAME: Final = 24
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 128  # a sign-in fits in one message, and hashing stays bounded
USERNAME_PATTERN: Final = r"[A-Za-z0-9_-]+"
CONFUSABLE: Final = frozenset("0Oo1lI_-")
RESERVED: Final = frozenset(
    {"admin", "administrator", "guest", "root", "server", "solrace", "system"}
)


def username_key(username: str) -> str:
    """The form under which a username is unique: lower case."""
    return username.lower()


def username_problem(username: str) -> str | None:
    """Why ``username`` may not be an account's name, in a sentence; None if it may."""
    if not 1 <= len(username) <= MAX_USERNAME or not re.fullmatch(USERNAME_PATTERN, username):
        return f"a username is 1 to {MAX_USERNAME} characters: letters a-z, digits, '_' and '-'"
    if set(username) <= CONFUSABLE:
        return (
            "a username needs a character that cannot be mistaken for another "
            "(not only 0 O o 1 l I _ -)"
        )
    if username_key(username) in RESERVED:
        return f"{username!r} is kept for the service"
    return None
