"""An arena's signed final result, pure: what the server signs once an arena has ended
(``arena_result``) and what ``solrace verify arena`` checks of it, so anyone can check an
arena's standings without trusting the server (docs/fairness.md, "Arenas").

The result holds the arena (its id, game, start, length, heat size, maker), every heat
its pairer started (id, wave, racers), its log of entries (``protocol/arena.py``: heat
results, clearings, withdrawals, removals) and its final standings. ``check_arena`` takes
it with the race log of every heat (``protocol/verify.py``'s ``race_log``, None for a heat
whose race never opened) and says every way they do not hold together: a heat's log that
does not replay, a heat result that is not its race's result (places, finishes, times,
actions, risk mode, undos), a heat started and never scored, heats of one wave on
different deals, and standings that are not ``protocol.arena.standings`` of the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from protocol.arena import (
    ArenaLogError,
    Entry,
    HeatResult,
    Racer,
    entry_as_dict,
    entry_from_dict,
    standings,
)
from protocol.errors import SolraceError
from protocol.verify import BadLog, check_log

ARENA_FIELDS = ("arena", "game", "start_ms", "length_ms", "heat_size", "made_by", "status")


class BadArenaResult(SolraceError):
    """What was given is not an arena's final result (a field missing or of the wrong kind)."""

    code = "bad_arena_result"


def final_result(
    arena: Mapping[str, Any], heats: Iterable[Mapping[str, Any]], log: Iterable[Entry]
) -> dict[str, Any]:
    """The document the server signs once ``arena`` (``ARENA_FIELDS``) has ended: its
    heats started (``heat``, ``wave``, ``racers``), its log, and the standings of the log."""
    entries = list(log)
    return {
        **{field: arena[field] for field in ARENA_FIELDS},
        "heats": [
            {"heat": h["heat"], "wave": h["wave"], "racers": list(h["racers"])} for h in heats
        ],
        "log": [entry_as_dict(entry) for entry in entries],
        "standings": [standing.as_dict() for standing in standings(entries)],
    }


def check_shape(result: Any) -> None:
    """BadArenaResult (one sentence) unless ``result`` has every field of a final result."""
    if not isinstance(result, dict):
        raise BadArenaResult("this is not an arena's result: it is not a JSON object")
    for field, kind in (("arena", str), ("heats", list), ("log", list), ("standings", list)):
        if not isinstance(result.get(field), kind):
            raise BadArenaResult(f"this is not an arena's result: {field!r} is not a {kind}")
    for heat in result["heats"]:
        if not isinstance(heat, dict) or not isinstance(heat.get("racers"), list):
            raise BadArenaResult("this is not an arena's result: a heat has no racers")
        if not isinstance(heat.get("wave"), int):
            raise BadArenaResult("this is not an arena's result: a heat has no wave")


def check_arena(result: dict[str, Any], logs: Mapping[str, dict[str, Any] | None]) -> list[str]:
    """Every way ``result`` and its heats' race ``logs`` (heat id -> log, None when the
    heat's race never opened) do not hold together; an empty list when they do."""
    check_shape(result)
    problems: list[str] = []
    if result.get("status") != "ended":
        problems.append(f"the arena's status is {result.get('status')!r}, not ended")
    try:
        entries = [entry_from_dict(fields) for fields in result["log"]]
        table = [standing.as_dict() for standing in standings(entries)]
    except ArenaLogError as error:
        return [*problems, f"the arena's log does not score: {error.message}"]
    problems += _standings_problems(result["standings"], table)
    started = {heat.get("heat"): heat for heat in result["heats"]}
    if len(started) != len(result["heats"]):
        problems.append("a heat is listed twice among the heats started")
    waves = {heat["wave"] for heat in result["heats"]}
    if waves != set(range(1, len(waves) + 1)):
        problems.append("the heats' waves are not numbered 1, 2, 3, ... without a gap")
    scored = {entry.heat: entry for entry in entries if isinstance(entry, HeatResult)}
    for heat in sorted(set(started) - set(scored), key=str):
        problems.append(f"heat {heat} was started but has no result in the log")
    deals: dict[Any, tuple[str, Any]] = {}
    for heat_id, entry in scored.items():
        heat = started.get(heat_id)
        if heat is None:
            problems.append(f"heat {heat_id} has a result but was never started")
        elif sorted(map(str, heat["racers"])) != sorted(r.player for r in entry.racers):
            problems.append(f"heat {heat_id}'s result names other racers than it started with")
        log = logs.get(heat_id)
        if log is None:
            problems += _unplayed_problems(entry)
            continue
        problems += [f"heat {heat_id}: {p}" for p in _heat_problems(result, entry, log)]
        wave = heat.get("wave") if heat else None
        if wave is not None and log.get("deal") is not None:
            first = deals.setdefault(wave, (heat_id, log["deal"]))
            if first[1] != log["deal"]:
                problems.append(
                    f"heats {first[0]} and {heat_id} of wave {wave} were not on one deal"
                )
    return problems


def _standings_problems(shown: list[Any], recomputed: list[dict[str, Any]]) -> list[str]:
    problems = []
    if len(shown) != len(recomputed):
        problems.append(
            f"the standings have {len(shown)} lines, the log's {len(recomputed)} players"
        )
    for signed, line in zip(shown, recomputed, strict=False):
        if signed != line:
            problems.append(
                f"place {line['rank']} of the standings is {signed!r} but the log gives {line!r}"
            )
    return problems


def _unplayed_problems(entry: HeatResult) -> list[str]:
    """A heat with no race log is one whose race never opened: nobody finished, nothing
    played (the server scores it so after a minute); any other result needs its log."""
    if all(
        (r.finished, r.time_ms, r.actions, r.risk, r.undos) == (False, 0, 0, False, 0)
        for r in entry.racers
    ):
        return []
    return [f"heat {entry.heat} has a result but no race log to check it with"]


def _heat_problems(result: dict[str, Any], entry: HeatResult, log: dict[str, Any]) -> list[str]:
    """The heat's race log replays, is this arena's heat, and gives the result logged."""
    try:
        problems = check_log(log)
    except BadLog as error:
        return [error.message]
    if log["race"] != entry.heat:
        problems.append(f"its log is race {log['race']}'s")
    if log["settings"].get("arena") != result["arena"]:
        problems.append("its race is not a heat of this arena")
    risk = set(log["settings"].get("risk", []))
    undos = {
        racer["player"]: sum(1 for _, action, _ in racer["actions"] if action == "undo")
        for racer in log["racers"]
    }
    ranking = {line["player"]: line for line in log["result"]["ranking"]}
    for racer in entry.racers:
        line = ranking.get(racer.player)
        if line is None:
            problems.append(f"{racer.player} is in the arena's result but not in the race")
            continue
        problems += _racer_problems(racer, line, racer.player in risk, undos.get(racer.player, 0))
    return problems


def _racer_problems(racer: Racer, line: dict[str, Any], risk: bool, undos: int) -> list[str]:
    raced = {
        "place": line["rank"],
        "finished": line["finished"],
        "time_ms": line["time_ms"],
        "actions": line["actions"],
        "risk": risk,
        "undos": undos,
    }
    return [
        f"{line['name']}'s {field} is {getattr(racer, field)!r} in the arena's log but "
        f"{value!r} in the race"
        for field, value in raced.items()
        if getattr(racer, field) != value
    ]
