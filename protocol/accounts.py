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
import string
from functools import cache
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
    """The form under which an account is found: lower case."""
    return username.lower()


@cache
def _lookalike_folds() -> tuple[tuple[str, str], ...]:
    """What reads alike in the username alphabet, by Unicode's confusables table (TR39,
    through ``confusable_homoglyphs``), lower-cased: each group folded to one prototype,
    longest sequences first (``rn`` reads as ``m``; ``1``, ``l`` and ``I`` as ``i``; ``0`` as
    ``o``)."""
    # imported here: the package also imports urllib (to update its table), which the pure
    # core does not load when imported (tests/protocol/test_protocol_purity.py)
    from confusable_homoglyphs import confusables

    alphabet = set(string.ascii_letters + string.digits + "_-")
    groups: dict[str, set[str]] = {}
    for character, found in confusables.confusables_data.items():
        for homoglyph in found:
            other = homoglyph["c"]
            if set(character) <= alphabet and set(other) <= alphabet:
                merged = {character.lower(), other.lower()}
                for text in list(merged):
                    merged |= groups.get(text, set())
                for text in merged:
                    groups[text] = merged
    folds = set()
    for group in groups.values():
        prototype = min(group, key=lambda text: (len(text), not text.isalpha(), text))
        folds |= {(text, prototype) for text in group if text != prototype}
    return tuple(sorted(folds, key=lambda fold: (-len(fold[0]), fold)))


def username_skeleton(username: str) -> str:
    """The form two names that read alike share (``B0B`` and ``bob``, ``Ilya`` and
    ``llya``): lower case, each look-alike folded to its group's prototype. No two
    accounts have the same skeleton."""
    skeleton = username.lower()
    for text, prototype in _lookalike_folds():
        skeleton = skeleton.replace(text, prototype)
    return skeleton


def username_problem(username: str) -> str | None:
    """Why ``username`` may not be an account's name, in a sentence; None if it may."""
    if not 1 <= len(username) <= MAX_USERNAME or not re.fullmatch(USERNAME_PATTERN, username):
        return f"a username is 1 to {MAX_USERNAME} characters: letters a-z, digits, '_' and '-'"
    if set(username) <= CONFUSABLE:
        return (
            "a username needs a character that cannot be mistaken for another "
            "(not only 0 O o 1 l I _ -)"
        )
    if is_reserved(username):
        return f"{username!r} is kept for the service"
    return None


def is_reserved(name: str) -> bool:
    """Whether ``name`` reads as a name the service keeps (``Adm1n`` too), for accounts and
    guests' display names alike."""
    return username_skeleton(name.strip()) in {username_skeleton(kept) for kept in RESERVED}
