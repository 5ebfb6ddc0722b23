"""Writes to the store as typed values: what the server must keep, one job at a time.

Jobs are plain data: the store interprets them (``Store.write``), the writer
(``server/carry/writer.py``) queues, batches and retries them, and a job left unwritten at
shutdown is spilled to a file as JSON (``job_json``) and written by the next start. A
reader can follow a result to Redis by its type: ``EndRace`` for a race's result,
``RecordDaily`` for a daily run, ``AppendActions`` for accepted actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.race import LogEntry
from protocol.ranking import Run


@dataclass(frozen=True, slots=True)
class AppendActions:
    """Accepted actions of one racer's session, appended to their log in order (resends
    are skipped), written with the session's ``fence``: refused (``Fenced``) once another
    node took the player over with a higher one. Nodes following the race are told.
    ``after``: the seq of the log entry the first entry was decided on top of (0: the
    racer's first); refused (``LogGap``) when the log's newest entry is below it, as when
    the store lost acknowledged entries. -1: not checked (entries written again)."""

    race: str
    entries: tuple[LogEntry, ...]
    fence: int = 1
    after: int = -1


@dataclass(frozen=True, slots=True)
class EndRace:
    """A race is over: its final record (stored if the stored one is still ``version``:
    every node that follows the race ends it alike, and the first one writes it) and
    result are kept for ``keep_s`` seconds (0: for good), and it is no longer listed."""

    race: str
    record: dict[str, Any]
    result: dict[str, Any]
    keep_s: int
    version: int = 0


@dataclass(frozen=True, slots=True)
class RecordDaily:
    """The run of a player's ranked daily attempt, for the day's and the all-time board;
    ``awaits_field``: its review judged it before the day's field was big enough, so it is
    listed to be judged against the field once it is (``server/races/field_judge.py``)."""

    game: str
    day: str
    run: Run
    awaits_field: bool = False


@dataclass(frozen=True, slots=True)
class SaveIdentity:
    """A resume token (by its hash) names this player, kept ``keep_s`` seconds from now;
    an account's token is also listed with the account's others (to revoke them all)."""

    token_hash: str
    player: str
    name: str
    keep_s: int
    account: str = ""  # the account's username: the token is one of the account's (revocable)
    played: bool = False  # a guest who has played (kept longer: ``keep_guests_days``)


@dataclass(frozen=True, slots=True)
class RecordHistory:
    """A player's finished race or daily run, for their profile: kept once per race (every
    node that ends the race writes it; the first counts), the latest ``HISTORY_KEPT``
    shown, all kept ``keep_s`` after the last; a head-to-head race counts in the game's
    races played (and won, ``won``), a ranked daily run's ``day`` in their streak."""

    player: str
    race: str
    game: str
    entry: dict[str, Any]  # what the profile shows of it (``at_ms`` orders them)
    counted: bool  # a head-to-head race: played (and won)
    won: bool
    day: str | None = None  # a ranked daily run's day
    keep_s: int = 365 * 86_400  # kept this long after the player's last race

    @property
    def finish_ms(self) -> int | None:
        """The run's time, if it finished (the game's finished runs and their average)."""
        finished = self.entry.get("outcome") == "finished"
        return int(self.entry["time_ms"]) if finished else None


@dataclass(frozen=True, slots=True)
class KeepReview:
    """A fair-play review of a race (``server/races/fairplay.py``), kept once (the first node's
    counts): a flagged one until a moderator decides (and listed for them), any other
    ``keep_s`` seconds, as long as the race's logs."""

    race: str
    review: dict[str, Any]
    keep_s: int


HISTORY_KEPT = 50

Job = AppendActions | EndRace | RecordDaily | SaveIdentity | RecordHistory | KeepReview

_KINDS: dict[str, type[Job]] = {
    "actions": AppendActions,
    "end": EndRace,
    "daily": RecordDaily,
    "identity": SaveIdentity,
    "history": RecordHistory,
    "review": KeepReview,
}
_NAMES = {cls: name for name, cls in _KINDS.items()}


def job_json(job: Job) -> dict[str, Any]:
    """The job as JSON-able data (for the spill file)."""
    data: dict[str, Any] = {"job": _NAMES[type(job)]}
    for name in job.__slots__:
        value = getattr(job, name)
        if isinstance(job, AppendActions) and name == "entries":
            value = [entry.as_dict() for entry in value]
        elif isinstance(job, RecordDaily) and name == "run":
            value = value.as_dict()
        data[name] = value
    return data


def job_from_json(data: dict[str, Any]) -> Job:
    """The job ``job_json`` wrote."""
    fields = {k: v for k, v in data.items() if k != "job"}
    cls = _KINDS[data["job"]]
    if cls is AppendActions:
        fields["entries"] = tuple(LogEntry(**entry) for entry in fields["entries"])
    elif cls is RecordDaily:
        fields["run"] = Run.from_dict(fields["run"])
    return cls(**fields)


def describe(job: Job) -> str:
    """A short description for logs: the kind and what it is about (never a token)."""
    if isinstance(job, AppendActions):
        return f"{len(job.entries)} action(s) of race {job.race}"
    if isinstance(job, EndRace):
        return f"result of race {job.race}"
    if isinstance(job, RecordDaily):
        return f"daily run of {job.run.player} ({job.game} {job.day})"
    if isinstance(job, RecordHistory):
        return f"history of player {job.player} (race {job.race})"
    if isinstance(job, KeepReview):
        return f"fair-play review of race {job.race}"
    return f"identity of player {job.player}"
