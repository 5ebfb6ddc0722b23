"""A race's phases and the transition table that guards them (h11 style), and the race
refusals' error class. ``protocol/race.py`` moves along the table; it re-exports these."""

from __future__ import annotations

from enum import StrEnum

from protocol.errors import SolraceError


class RaceError(SolraceError):
    """A request that does not fit the race's phase or the player's place in it."""

    code = "race_error"


class BadTransition(RaceError):
    """A phase change the transition table does not have: a bug, refused with nothing
    changed (``TRANSITIONS`` is the guard: every change of phase goes through it)."""

    code = "bad_transition"


class Phase(StrEnum):
    OPEN = "open"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    DONE = "done"


# The phases' transitions (h11 style): (phase, event) -> the next phase; every change of
# phase goes through it (``Race.move``), and anything missing raises ``BadTransition``.
# Requests that do not fit the phase are refused with their own codes before it is asked.
TRANSITIONS: dict[tuple[Phase, str], Phase] = {
    (Phase.OPEN, "schedule_start"): Phase.COUNTDOWN,
    (Phase.COUNTDOWN, "begin"): Phase.RUNNING,
    (Phase.COUNTDOWN, "everyone_done"): Phase.DONE,  # everyone dropped out before the start
    (Phase.RUNNING, "everyone_done"): Phase.DONE,
    # a finish that could not be stored is taken back, or another node's record says a
    # racer is not done after all: the race runs on (its end was never told)
    (Phase.DONE, "taken_back"): Phase.RUNNING,
    (Phase.COUNTDOWN, "start_taken_back"): Phase.OPEN,  # a start that was not stored
}
