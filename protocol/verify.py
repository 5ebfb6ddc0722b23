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

from typing import Any

from protocol.errors import SolraceError
from protocol.fairness import commitment
from protocol.games import rules_for
from protocol.notation import parse_action
from protocol.ranking import Run, ranked


def check_log(log: dict[str, Any]) -> list[str]:
    """Every way ``log`` does not hold together (an empty list when it does)."""
    problems: list[str] = []
    deal_text, nonce = log.get("deal"), log.get("nonce")
    if deal_text is None or nonce is None:
        return ["the log does not show the deal and its nonce yet (its day is not over)"]
    deal = int(deal_text)
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


def _replayed(
    log: dict[str, Any], deal: int, racer: dict[str, Any]
) -> tuple[Run | None, list[str]]:
    """The racer's run as the engine replays it, and what in their log is wrong."""
    who = racer["name"]
    rules = rules_for(log["game"], log["options"])
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
