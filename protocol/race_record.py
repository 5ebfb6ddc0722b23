"""A race's stored form, pure: what storage keeps of a race besides its action log
(``record_of``), the race rebuilt from it (``restore``), a replica made to match another
node's record (``absorb``) and what a record changed (``record_changes``: frozen change
classes, ``RaceChange``, the closed set of what can change in a race itself).

The race's rules stay ``protocol/race.py``'s: ``restore`` replays the log through
``Race.act``, and a record keeps only what no action shows (the settings with the deal,
the host, the phase and start signal, the racers and their retirements, the rematch).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from protocol.engine import Rules
from protocol.race import (
    RETIREMENTS,
    Badge,
    Ending,
    LogEntry,
    Now,
    Phase,
    Race,
    Racer,
    RaceSettings,
)


def record_of(race: Race) -> dict[str, Any]:
    """What storage keeps of ``race`` besides its action log (JSON-able; the deal number
    included): with the log, ``restore`` rebuilds the race exactly."""
    return {
        "race": race.id,
        "settings": race.settings.as_dict(),
        "host": race.host,
        "phase": race.phase.value,
        "start_at_ms": race.start_wall,
        "rematch": race.rematch,
        "rematch_by": race.rematch_by,
        "racers": [
            {
                "player": r.player,
                "name": r.name,
                "badge": asdict(r.badge) if r.badge else None,
                "account": r.account,
                "outcome": r.outcome.value
                if r.outcome is not None and r.outcome.value in RETIREMENTS
                else None,
                "done_at": r.done_at if r.outcome is not None else None,
                **({"lost_to": r.lost_to} if r.lost_to else {}),
            }
            for r in race.racers.values()
        ],
    }


def stored_racer(stored: dict[str, Any]) -> Racer:
    """A racer as a race record keeps them (no game yet)."""
    badge = stored.get("badge")
    account = stored.get("account", badge is not None)  # records before the field: by badge
    return Racer(
        stored["player"], stored["name"], Badge(**badge) if badge else None, account=account
    )


def restore(record: dict[str, Any], rules: Rules, log: list[LogEntry], now: Now) -> Race:
    """The race a ``record`` and its action ``log`` describe, rebuilt by replaying the
    log at its own times. The start signal is a wall-clock time: on this process's
    monotonic clock it is ``now`` less the wall time since it (clocks agree)."""
    race = Race(record["race"], RaceSettings.from_dict(record["settings"]), rules, "")
    race.host = record["host"]
    race.rematch, race.rematch_by = record.get("rematch"), record.get("rematch_by")
    for racer in record["racers"]:
        race.racers[racer["player"]] = stored_racer(racer)
    start_wall = record["start_at_ms"]
    if start_wall is None:
        return _lost_kept(race, record)
    race.move("schedule_start")
    race.start_wall = start_wall
    race.start_mono = now.mono_ms - (now.wall_ms - start_wall)
    if Phase(record["phase"]) is Phase.COUNTDOWN and now.wall_ms < start_wall and not log:
        return _lost_kept(race, record)
    race.begin()
    for entry in log:
        at = Now(race.start_mono + entry.t_ms, start_wall + entry.t_ms)
        race.act(entry.player, entry.seq, entry.action, at)
    for stored in record["racers"]:
        if stored["outcome"] is not None:
            racer = race.racers[stored["player"]]
            if racer.outcome is None:
                racer.outcome, racer.done_at = Ending(stored["outcome"]), stored["done_at"]
    race._finish_if_all_done()  # the race's own rule, for the retirements just restored
    return _lost_kept(race, record)


def _lost_kept(race: Race, record: dict[str, Any]) -> Race:
    """Each racer's last lost seq, as the record keeps it (set after the log's replay,
    whose seqs lie below it)."""
    for stored in record["racers"]:
        race.racers[stored["player"]].lost_to = stored.get("lost_to", 0)
    return race


def absorb(race: Race, record: dict[str, Any], now: Now) -> list[RaceChange]:
    """Make ``race``'s header (all but the racers' games) what ``record`` says: another
    node changed the race, or a change of this node's that was not stored is taken back.
    The phase follows ``TRANSITIONS``, with the transitions that take back a change not
    stored (a start, a finish). Returns what
    changed (see ``record_changes``), and ``Done`` when that ended the race."""
    changes = record_changes(record_of(race), record)
    wanted = {stored["player"]: stored for stored in record["racers"]}
    racers = {p: race.racers.get(p) or stored_racer(wanted[p]) for p in wanted}
    race.racers = racers
    race.host, race.rematch = record["host"], record.get("rematch")
    race.rematch_by = record.get("rematch_by")
    start = record["start_at_ms"]
    if start is None and race.phase is Phase.COUNTDOWN:
        race.move("start_taken_back")
        race.start_wall = race.start_mono = None
    elif start is not None and race.phase is Phase.OPEN:
        race.move("schedule_start")
        race.start_wall = start
        race.start_mono = now.mono_ms - (now.wall_ms - start)
    for player, stored in wanted.items():
        racer = racers[player]
        racer.lost_to = max(racer.lost_to, stored.get("lost_to", 0))  # never taken back
        if stored["outcome"] is not None and racer.outcome is None:
            racer.outcome, racer.done_at = Ending(stored["outcome"]), stored["done_at"]
        elif (
            stored["outcome"] is None
            and racer.outcome is not None
            and racer.outcome.value in RETIREMENTS
        ):
            racer.outcome = racer.done_at = None
    all_done = bool(racers) and all(r.outcome for r in racers.values())
    if race.live and all_done:
        race.move("everyone_done")
        changes.append(Done())
    elif race.phase is Phase.DONE and not all_done:
        race.move("taken_back")
    return changes


@dataclass(frozen=True, slots=True)
class Left:
    player: str


@dataclass(frozen=True, slots=True)
class Joined:
    player: str


@dataclass(frozen=True, slots=True)
class HostChanged:
    host: str


@dataclass(frozen=True, slots=True)
class Countdown:
    """A start signal was set."""


@dataclass(frozen=True, slots=True)
class Reopened:
    """A start signal was taken back: the race is open again."""


@dataclass(frozen=True, slots=True)
class Retired:
    player: str


@dataclass(frozen=True, slots=True)
class Unretired:
    """A retirement that was not stored, taken back."""

    player: str


@dataclass(frozen=True, slots=True)
class Rematched:
    rematch: str  # the rematch's race ("" when it was taken back)


@dataclass(frozen=True, slots=True)
class Done:
    """Absorbing a record ended the race."""


RaceChange = (
    Left | Joined | HostChanged | Countdown | Reopened | Retired | Unretired | Rematched | Done
)


def record_changes(before: dict[str, Any], after: dict[str, Any]) -> list[RaceChange]:
    """What a race's header changed from one record to another, in the order it happens:
    who left, who joined, the host, a start signal set or taken back, who retired or had a
    retirement taken back, the rematch."""
    old = {stored["player"]: stored for stored in before["racers"]}
    new = {stored["player"]: stored for stored in after["racers"]}
    changes: list[RaceChange] = [Left(player) for player in old if player not in new]
    changes += [Joined(player) for player in new if player not in old]
    if before["host"] != after["host"]:
        changes.append(HostChanged(after["host"]))
    if before["start_at_ms"] is None and after["start_at_ms"] is not None:
        changes.append(Countdown())
    elif before["start_at_ms"] is not None and after["start_at_ms"] is None:
        changes.append(Reopened())
    for player, stored in new.items():
        was = old.get(player, {}).get("outcome")
        if stored["outcome"] is not None and was is None:
            changes.append(Retired(player))
        elif stored["outcome"] is None and was is not None:
            changes.append(Unretired(player))
    if before.get("rematch") != after.get("rematch"):
        changes.append(Rematched(after.get("rematch") or ""))
    return changes
