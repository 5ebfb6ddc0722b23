"""Commitments to deals (commit-reveal), pure: anyone can check them.

When a deal is fixed (a day's daily deal, or a race's random deal), the server publishes a
*commitment*: the SHA-256 of a documented byte string of the game, what the deal is for,
the game's options, the deal number and a random nonce. The deal and the nonce stay
secret (the deal number reveals every hidden card) until they may be shown; then anyone
can compute the hash again and see that the deal was fixed before the first move, and the
same for everyone:

    solrace-commitment-v1\\n
    <game>\\n
    <scope>\\n                 "daily:YYYY-MM-DD" or "race:<race id>"
    <options>\\n               the options as JSON: sorted keys, no spaces
    <deal>\\n                  the deal number in decimal
    <nonce>                    lowercase hex, 32 characters (16 random bytes)

encoded as UTF-8; the commitment is the hash in lowercase hex.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Final

VERSION: Final = "solrace-commitment-v1"


def commitment_bytes(
    game: str, scope: str, options: dict[str, Any], deal: int, nonce: str
) -> bytes:
    """The byte string a commitment is the hash of (see the module's documentation)."""
    options_json = json.dumps(options, sort_keys=True, separators=(",", ":"))
    return "\n".join([VERSION, game, scope, options_json, str(deal), nonce]).encode()


def commitment(game: str, scope: str, options: dict[str, Any], deal: int, nonce: str) -> str:
    """The commitment to ``deal`` of ``game`` with ``options`` for ``scope``."""
    return hashlib.sha256(commitment_bytes(game, scope, options, deal, nonce)).hexdigest()


def daily_scope(day: str) -> str:
    return f"daily:{day}"


def race_scope(race: str) -> str:
    return f"race:{race}"
