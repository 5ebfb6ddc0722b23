"""The daily challenge's calendar and deal rule, pure: dates and times arrive as arguments.

A day is a UTC date written ``YYYY-MM-DD``. For each (game, day) there is an endless,
deterministic sequence of candidate deal numbers: candidate ``k`` is the first 9 bytes of
BLAKE2b("solrace-daily:{secret}:{game}:{day}:{k}"), read big-endian, reduced into the
Mersenne Twister deal range 32000 .. 10**20-1. ``secret`` is the deployment's (the
operator's, or a random one the server makes and keeps): without it nobody can work out a
day's deal, and so its hidden cards, ahead.
The day's deal is the first candidate that the server's policy accepts (see
``server/desks/daily.py``), so the rule can be replaced by a list of certified deals without
changing anything that consumes it.

**A hash chain fixes every day's candidates in advance.** The ``secret`` that salts a
day's candidates is not the deployment's secret itself but that day's *seed*: the root is
SHA-256("solrace-daily-chain-v1\n" + the deployment's secret), and the seed of the day
``i`` days after ``CHAIN_FIRST_DAY`` is SHA-256 applied ``CHAIN_DAYS - i`` times to the root
(hex). The *anchor*, SHA-256 of the first day's seed, is published (``GET /daily-chain``,
and on every day's board) long before the days it covers; a day's seed is shown once the
day is over. Anyone then checks that hashing the seed ``i + 1`` times gives the anchor (so
the seed was fixed when the anchor was published, and the server could not pick it after
seeing the candidates), and re-runs the choice: ``solrace verify daily --choice``. A seed
tells nothing of later days (that needs inverting SHA-256). Days outside the chain's span
use the deployment's secret directly, as before the chain.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
from collections.abc import Iterator

from protocol.deals import FIRST_MT_DEAL, MAX_DEAL
from protocol.errors import BadGame

DAY_MS = 86_400_000
CHAIN_FIRST_DAY = "2026-01-01"
CHAIN_DAYS = 3650  # the chain covers ten years from its first day
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def day_of(epoch_ms: int) -> str:
    """The UTC date of an instant given in milliseconds since the epoch."""
    return dt.datetime.fromtimestamp(epoch_ms / 1000, dt.UTC).date().isoformat()


def parse_day(text: str) -> str:
    """``text`` when it is a real date ``YYYY-MM-DD``; BadGame otherwise."""
    if not isinstance(text, str) or not _DAY.fullmatch(text):
        raise BadGame("a day is written YYYY-MM-DD", "bad_day")
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        raise BadGame(f"{text} is not a date", "bad_day") from None
    return text


def day_start_ms(day: str) -> int:
    """The first millisecond of ``day`` (UTC)."""
    date = dt.date.fromisoformat(parse_day(day))
    return int(dt.datetime(date.year, date.month, date.day, tzinfo=dt.UTC).timestamp() * 1000)


def next_day_start_ms(day: str) -> int:
    return day_start_ms(day) + DAY_MS


def previous_day(day: str) -> str:
    """The day before ``day`` (UTC)."""
    return day_of(day_start_ms(day) - DAY_MS)


def candidate_deals(game: str, day: str, secret: str = "") -> Iterator[int]:
    """The day's candidate deal numbers, in the order they are tried."""
    span = MAX_DEAL - FIRST_MT_DEAL + 1
    k = 0
    while True:
        seed = f"solrace-daily:{secret}:{game}:{day}:{k}".encode()
        yield FIRST_MT_DEAL + int.from_bytes(hashlib.blake2b(seed).digest()[:9], "big") % span
        k += 1


def chain_index(day: str) -> int | None:
    """How many days ``day`` is after the chain's first day; None outside its span."""
    index = (day_start_ms(day) - day_start_ms(CHAIN_FIRST_DAY)) // DAY_MS
    return index if 0 <= index <= CHAIN_DAYS else None


def _hashed(text: str, times: int) -> str:
    digest = bytes.fromhex(text)
    for _ in range(times):
        digest = hashlib.sha256(digest).digest()
    return digest.hex()


@functools.lru_cache(maxsize=64)
def day_seed(secret: str, day: str) -> str:
    """What salts ``day``'s candidates: its seed in the chain of ``secret`` (hex), or the
    secret itself for a day outside the chain's span."""
    index = chain_index(day)
    if index is None:
        return secret
    root = hashlib.sha256(b"solrace-daily-chain-v1\n" + secret.encode()).hexdigest()
    return _hashed(root, CHAIN_DAYS - index)


def chain_anchor(secret: str) -> str:
    """The published anchor of ``secret``'s chain: SHA-256 of its first day's seed."""
    return _hashed(day_seed(secret, CHAIN_FIRST_DAY), 1)


def seed_matches(seed: str, day: str, anchor: str) -> bool:
    """Whether ``seed`` is ``day``'s seed in the chain whose anchor is ``anchor``."""
    index = chain_index(day)
    if index is None or not re.fullmatch(r"[0-9a-f]{64}", seed):
        return False
    return _hashed(seed, index + 1) == anchor
