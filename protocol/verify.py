"""Checking a race's public log, pure: what ``solrace verify`` runs, so anyone can check a
result without trusting the server.

A log (the ``race_log`` answer, docs/protocol.md) holds the race's settings, its deal and
the nonce of the deal's commitment, every racer's actions with the server's times, and the
result. ``check_log`` recomputes the commitment, replays every racer's actions with the
engine from the deal, and compares what that gives with the result: outcomes, action
counts, progress, times (a finisher's time is the time of their winning action), the
wall-clock instants, and the ranking's order. It returns what does not match (nothing:
the log is what the server says).
"""

from __future__ import annotations

import re
from typing import Any

from protocol.errors import SolraceError
from protocol.fairness import commitment, daily_scope, race_scope
from protocol.games import GAMES, rules_for
from protocol.notation import parse_action
from protocol.ranking import Run, ranked

OUTCOMES = {"finished", "resigned", "dropped", "stuck", "timed_out"}
HEX64 = re.compile(r"[0-9a-f]{64}")
HEX32 = re.compile(r"[0-9a-f]{32}")


class BadLog(SolraceError):
    """What was given is not a race log at all (a field missing or of the wrong kind)."""

    code = "bad_log"


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise BadLog(f"this is not a race log: {what}")


def check_shape(log: Any) -> None:
    """BadLog (one sentence) unless ``log`` has every field of a race log, of its kind."""
    _need(isinstance(log, dict), "it is not a JSON object")
    for field, kind in (
        ("race", str),
        ("mode", str),
        ("game", str),
        ("options", dict),
        ("scope", str),
        ("commitment", str),
        ("start_at_ms", int),
        ("settings", dict),
        ("racers", list),
        ("result", dict),
    ):
        _need(isinstance(log.get(field), kind), f"{field!r} is missing or not a {kind.__name__}")
    _need(log["game"] in GAMES, f"{log['game']!r} is not a game")
    deal = log.get("deal")
    _need(
        deal is None or (isinstance(deal, str) and deal.isdecimal() and len(deal) <= 20),
        "'deal' is not a deal number",
    )
    nonce = log.get("nonce")
    _need(
        nonce is None or (isinstance(nonce, str) and bool(HEX32.fullmatch(nonce))),
        "'nonce' is not 32 hex digits",
    )
    _need(bool(HEX64.fullmatch(log["commitment"])), "'commitment' is not 64 hex digits")
    risk = log["settings"].get("risk", [])
    _need(
        isinstance(risk, list) and all(isinstance(player, str) for player in risk),
        "the settings' 'risk' is not a list of players",
    )
    for racer in log["racers"]:
        _need(isinstance(racer, dict), "a racer is not an object")
        for field, kind in (("player", str), ("name", str), ("actions", list)):
            _need(
                isinstance(racer.get(field), kind), f"a racer's {field!r} is not a {kind.__name__}"
            )
        _need("outcome" in racer, "a racer has no 'outcome'")
        _need(
            racer.get("outcome") is None or racer["outcome"] in OUTCOMES,
            f"{racer.get('outcome')!r} is not an outcome",
        )
        for action in racer["actions"]:
            _need(
                isinstance(action, list)
                and len(action) == 3
                and isinstance(action[0], int)
                and isinstance(action[1], str)
                and isinstance(action[2], int),
                "an action is not [seq, action, t_ms]",
            )
    ranking = log["result"].get("ranking")
    _need(isinstance(ranking, list), "the result has no ranking")
    for entry in ranking:
        _need(isinstance(entry, dict), "a ranking entry is not an object")
        for field in (
            "rank",
            "player",
            "name",
            "finished",
            "time_ms",
            "actions",
            "progress",
            "at_ms",
            "outcome",
        ):
            _need(field in entry, f"a ranking entry has no {field!r}")


def check_log(log: dict[str, Any]) -> list[str]:
    """Every way ``log`` does not hold together (an empty list when it does); BadLog when
    it is not a race log at all."""
    check_shape(log)
    problems: list[str] = []
    deal_text, nonce = log.get("deal"), log.get("nonce")
    if deal_text is None or nonce is None:
        return ["the log does not show the deal and its nonce yet (its day is not over)"]
    deal = int(deal_text)
    problems += _consistency_problems(log)
    expected = commitment(log["game"], log["scope"], log["options"], deal, nonce)
    if expected != log["commitment"]:
        problems.append(
            f"the commitment {log['commitment']} is not the hash of the deal and nonce "
            f"shown ({expected})"
        )
    if log["result"].get("commitment") != log["commitment"]:
        problems.append("the result's commitment is not the log's")
    runs: list[Run] = []
    for racer in log["racers"]:
        run, trouble = _replayed(log, deal, racer)
        problems += trouble
        if run is not None:
            runs.append(run)
    problems += _ranking_problems(log["result"]["ranking"], ranked(runs), log["racers"])
    return problems


def _consistency_problems(log: dict[str, Any]) -> list[str]:
    """What the log says twice must agree: the race in the commitment's scope, the
    settings and the result against the log, each racer once, times from 0 in order."""
    problems = []
    settings, result = log["settings"], log["result"]
    day = log.get("day")
    scope = daily_scope(day) if log["mode"] == "daily" and day else race_scope(log["race"])
    if log["scope"] != scope:
        problems.append(f"the commitment's scope {log['scope']!r} is not this race's ({scope!r})")
    for field in ("game", "options", "mode", "day"):
        if settings.get(field) != log.get(field):
            problems.append(f"the settings' {field} is not the log's")
    for field in ("race", "deal", "nonce"):
        if result.get(field) != log.get(field):
            problems.append(f"the result's {field} is not the log's")
    players = [racer["player"] for racer in log["racers"]]
    if len(set(players)) != len(players):
        problems.append("a racer appears twice in the log")
    for racer in log["racers"]:
        times = [t_ms for _, _, t_ms in racer["actions"]]
        if any(t < 0 for t in times) or times != sorted(times):
            problems.append(f"{racer['name']}'s action times are not from 0 and in order")
    return problems


def _replayed(
    log: dict[str, Any], deal: int, racer: dict[str, Any]
) -> tuple[Run | None, list[str]]:
    """The racer's run as the engine replays it, and what in their log is wrong."""
    who = racer["name"]
    rules = rules_for(log["game"], log["options"])
    if racer["player"] in log["settings"].get("risk", ()):  # risk mode: no undo
        rules = rules.without_undo()
    state = rules.start(deal)
    progress = state.position.progress()
    progress_t, counted, last_seq = 0, 0, 0
    won_at: int | None = None
    for seq, text, t_ms in racer["actions"]:
        if seq <= last_seq:
            return None, [f"{who}'s action {seq} comes after {last_seq}: out of order"]
        if won_at is not None:
            return None, [f"{who} played {text!r} after winning"]
        last_seq = seq
        try:
            outcome = rules.apply(state, parse_action(text))
        except SolraceError as refused:
            return None, [f"{who}'s action {seq} ({text!r}) is not legal there: {refused.message}"]
        state, counted = outcome.state, counted + outcome.counted
        if state.position.progress() != progress:
            progress, progress_t = state.position.progress(), t_ms
        if rules.is_won(state.position):
            won_at = t_ms
    finished = won_at is not None
    start = log["start_at_ms"]
    problems = []
    if finished != (racer["outcome"] == "finished"):
        problems.append(
            f"{who}'s outcome is {racer['outcome']!r} but the replay "
            f"{'wins' if finished else 'does not win'}"
        )
    if racer["outcome"] == "stuck" and not (finished or rules.is_stuck(state)):
        problems.append(f"{who} is said to be stuck but the replay has a legal action")
    run = Run(
        player=racer["player"],
        name=racer["name"],
        race=log["race"],
        game=log["game"],
        deal=deal,
        finished=finished,
        time_ms=won_at if won_at is not None else progress_t,
        actions=counted,
        progress=progress,
        at_ms=start + (won_at if won_at is not None else progress_t),
    )
    return run, problems


def _ranking_problems(
    shown: list[dict[str, Any]], replayed: list[Run], racers: list[dict[str, Any]]
) -> list[str]:
    problems = []
    if [entry["rank"] for entry in shown] != list(range(1, len(shown) + 1)):
        problems.append("the ranking's places are not 1, 2, 3, ... in order")
    names = {racer["player"]: racer["name"] for racer in racers}
    outcomes = {racer["player"]: racer.get("outcome") for racer in racers}
    for entry in shown:
        if entry["player"] in names and entry["name"] != names[entry["player"]]:
            problems.append(f"{entry['name']} is named {names[entry['player']]!r} in the log")
        if entry["player"] in outcomes and entry["outcome"] != outcomes[entry["player"]]:
            problems.append(f"{entry['name']}'s outcome in the result is not the log's")
    if [entry["player"] for entry in shown] != [run.player for run in replayed]:
        order = ", ".join(run.name for run in replayed)
        problems.append(f"the ranking's order is not the replay's ({order})")
    by_player = {run.player: run for run in replayed}
    for entry in shown:
        run = by_player.get(entry["player"])
        if run is None:
            problems.append(f"{entry['name']} is ranked but has no log")
            continue
        for field in ("finished", "time_ms", "actions", "progress", "at_ms"):
            if entry[field] != getattr(run, field):
                problems.append(
                    f"{entry['name']}'s {field} is {entry[field]} in the result but "
                    f"{getattr(run, field)} in the replay"
                )
    if len(shown) != len(racers):
        problems.append(f"the ranking has {len(shown)} entries for {len(racers)} racers")
    return problems
