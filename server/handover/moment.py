"""This process's clock, read once per decision: ``now()`` is the moment decisions are
given (``protocol.race.Now``: monotonic and wall milliseconds). The one place the server
reads the time for them, so whoever hands a decision over stamps it alike."""

from __future__ import annotations

import time

from protocol.race import Now


def now() -> Now:
    """The moment now: this process's monotonic clock and the wall clock, in ms."""
    return Now(int(time.monotonic() * 1000), int(time.time() * 1000))
