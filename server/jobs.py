"""Writes to the store as typed values: what the server must keep, one job at a time.

Jobs are plain data: the store interprets them (``Store.write``), the writer
(``server/writer.py``) queues, batches and retries them, and a job left unwritten at
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
    """Accepted actions, appended to the race's log in order (resends are skipped)."""

    race: str
    entries: tuple[LogEntry, ...]


@dataclass(frozen=True, slots=True)
class SaveRace:
    """A live race's record (``Race.record``): settings, phase, start signal, racers, and
    that each racer is in it (so a player's races are found again after a restart)."""

    race: str
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EndRace:
    """A race is over: its final record and result are kept for ``keep_s`` seconds (0:
    for good), and it is no longer anyone's live race."""

    race: str
    record: dict[str, Any]
    result: dict[str, Any]
    keep_s: int


@dataclass(frozen=True, slots=True)
class RecordDaily:
    """The run of a player's ranked daily attempt, for the day's and the all-time board."""

    game: str
    day: str
    run: Run


@dataclass(frozen=True, slots=True)
class SaveIdentity:
    """A resume token (by its hash) names this player, kept ``keep_s`` seconds from now."""

    token_hash: str
    player: str
    name: str
    keep_s: int


Job = AppendActions | SaveRace | EndRace | RecordDaily | SaveIdentity

_KINDS: dict[str, type[Job]] = {
    "actions": AppendActions,
    "race": SaveRace,
    "end": EndRace,
    "daily": RecordDaily,
    "identity": SaveIdentity,
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
    if isinstance(job, SaveRace):
        return f"record of race {job.race}"
    if isinstance(job, EndRace):
        return f"result of race {job.race}"
    if isinstance(job, RecordDaily):
        return f"daily run of {job.run.player} ({job.game} {job.day})"
    return f"identity of player {job.player}"
