"""The daily challenge's calendar and deal rule, pure: dates and times arrive as arguments.

A day is a UTC date written ``YYYY-MM-DD``. For each (game, day) there is an endless,
deterministic sequence of candidate deal numbers: candidate ``k`` is the first 9 bytes of
BLAKE2b("solrace-daily:{secret}:{game}:{day}:{k}"), read big-endian, reduced into the
Mersenne Twister deal range 32000 .. 10**20-1. ``secret`` is the deployment's (the
operator's, or a random one the server makes and keeps): without it nobody can work out a
day's deal, and so its hidden cards, ahead.
The day's deal is the first candidate that the server's policy accepts (see
``server/daily.py``), so the rule can be replaced by a list of certified deals without
changing anything that consumes it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterator

from protocol.deals import FIRST_MT_DEAL, MAX_DEAL
from protocol.errors import BadGame

DAY_MS = 86_400_000
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
