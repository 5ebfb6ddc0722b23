"""Fair-play reviews: each ranked daily run and each rated race keeps its racers' signals
(``protocol/fairplay.py``) in a review, stored with the race; a review with a flagged run
holds that run off the boards (a daily run) or the race off the ratings until a moderator
clears or voids it (``server/desks/admin.py``).

A review is plain JSON:
``{"race", "kind": "daily" | "race", "game", "day", "at_ms", "status", "held", "players":
{player: {"name", "signals", "reasons", "evidence"}}, "runs": [run], "changes": {player: [before,
after]}}``, where ``runs`` are what it holds or placed (the daily run; the race's rated
runs), ``changes`` the ratings a rated race moved (to take them back when it is voided),
and ``status`` one of ``STATUSES``. A player's ``evidence`` holds, per reason, the figures
that flag it beside the rule's threshold (``protocol.fairplay.evidence``); a review kept
before it has none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from protocol.fairplay import FIELD_READ, Signals, evidence, field_figures, reasons, signals_of
from protocol.fairplay_order import line_order
from protocol.fairplay_record import Record
from protocol.fairplay_reveals import Reveals, reveals_of
from protocol.race import Race
from protocol.ranking import Run
from protocol.ratings import Rating
from server.store import History, Store

RELATED_ACCOUNT = "related_account"  # a reason of the server's own (not protocol/fairplay.py)
FLAGGED = "flagged"  # held: waiting for a moderator
CLEAR = "clear"  # nothing flagged: on the boards (or rated) at once
CLEARED = "cleared"  # flagged, then cleared by a moderator: on the boards (or rated) now
VOIDED = "voided"  # void: off the boards, its ratings taken back
STATUSES = (FLAGGED, CLEAR, CLEARED, VOIDED)
# a moderator's decisions: from which statuses each may be taken
DECISIONS = {CLEARED: (FLAGGED,), VOIDED: (FLAGGED, CLEAR, CLEARED)}


def history_times(history: History, game: str, race: str) -> list[int]:
    """The times of a player's finished runs of ``game`` (daily runs and races) before
    ``race``."""
    return [
        int(entry["time_ms"])
        for entry in history.recent
        if entry.get("game") == game
        and entry.get("race") != race
        and entry.get("outcome") == "finished"
        and entry.get("time_ms") is not None
    ]


def record_before(history: History, game: str, race: str) -> Record:
    """A player's record in ``game`` before ``race`` (``protocol/fairplay_record.py``), from
    their kept history (``HISTORY_KEPT`` races and runs): the races the server dealt them
    (quick races and arena heats: ranked races) and those they finished, their ranked daily
    runs and those they finished. A line kept before lines said ``ranked`` counts as
    neither."""
    races = runs = races_finished = runs_finished = 0
    for entry in history.recent:
        if entry.get("game") != game or entry.get("race") == race or not entry.get("ranked"):
            continue
        finished = entry.get("outcome") == "finished"
        if entry.get("mode") == "race":
            races, races_finished = races + 1, races_finished + finished
        elif entry.get("mode") == "daily":
            runs, runs_finished = runs + 1, runs_finished + finished
    return Record(races, races_finished, runs, runs_finished)


async def earlier_reveals(store: Store, history: History, race: str) -> list[Reveals]:
    """The reveals of a player's ranked daily runs before ``race``, for the rule over an
    account's runs (``protocol/fairplay_account.py``): those of the daily runs in their kept
    history (``HISTORY_KEPT``, races and runs) whose review the store still holds (as long
    as the race's logs), read from the review (a review kept before the reveals' variance
    was kept counts for nothing)."""
    races = [
        entry["race"]
        for entry in history.recent
        if entry.get("mode") == "daily" and entry.get("race") != race
    ]
    reviews = await asyncio.gather(*(store.moderation.review(each) for each in races))
    found = []
    for review in reviews:
        if review is None or review.get("kind") != "daily":
            continue
        for seen in review["players"].values():
            signals = seen["signals"]
            if "lucky_variance" in signals:
                found.append(
                    Reveals(
                        signals["blind_reveals"],
                        signals["lucky_reveals"],
                        signals["lucky_expected"],
                        signals["lucky_variance"],
                    )
                )
    return found


async def field_times(store: Store, game: str, day: str) -> tuple[int, ...]:
    """The day's field for the fair-play rule: the finished times on the day's board of
    ``game`` (its fastest ``FIELD_READ`` entries; a held run is not on it), fastest first."""
    board = await store.days.daily_board(game, day, FIELD_READ)
    return tuple(entry.run.time_ms for entry in board.top if entry.run.finished)


def review_of(
    race: Race,
    runs: Sequence[Run],
    at_ms: int,
    line: Sequence[str] | None,
    histories: dict[str, list[int]],
    hold: bool,
    field: Sequence[int] = (),
    earlier: dict[str, list[Reveals]] | None = None,
    records: dict[str, Record] | None = None,
) -> dict[str, Any]:
    """The review of ``runs`` of ``race`` (its ranked daily run, or its rated runs):
    each one's signals against the solver's ``line``, its player's history times and
    (a daily run) the day's ``field``, the finished times on the day's board, and its
    reveals against the race's deal, summed with those of the player's ``earlier`` ranked
    daily runs, and (a daily run) against its account's ``records``; ``held`` when a run is
    flagged and flagged runs are held (``hold``)."""
    players: dict[str, Any] = {}
    start = race.rules.deal(race.settings.deal)
    order = line_order(race.rules, race.rules.start(race.settings.deal), line) if line else None
    for run in runs:
        racer = race.racers[run.player]
        entries = [(entry.action, entry.t_ms) for entry in racer.log]
        history = histories.get(run.player, [])
        seen = reveals_of(race.rules, start, [action for action, _ in entries])
        before = (earlier or {}).get(run.player, [])
        record = (records or {}).get(run.player)
        signals = signals_of(
            entries, run.finished, run.time_ms, line, history, field, seen, before, record, order
        )
        players[run.player] = {
            "name": run.name,
            "signals": signals.as_dict(),
            "reasons": reasons(signals),
            "evidence": evidence(signals),
        }
    flagged = any(player["reasons"] for player in players.values())
    settings = race.settings
    return {
        "race": race.id,
        "kind": "daily" if settings.mode == "daily" else "race",
        "game": settings.game,
        "day": settings.day,
        "at_ms": at_ms,
        "status": FLAGGED if flagged else CLEAR,
        "held": flagged and hold,  # off the boards (a daily run) or the ratings (a race)
        "players": players,
        "runs": [run.as_dict() for run in runs],
        "changes": {},
    }


def against_field(review: dict[str, Any], field_ms: Sequence[int], hold: bool) -> dict[str, Any]:
    """``review`` of a ranked daily run that was judged before the day's field was big
    enough, judged again against ``field_ms`` (the finished times on the day's board, its
    own left out): its signals with the field's figures, its reasons and evidence as the
    rule gives them; flagged when it has a reason, and then held when flagged runs are held
    (``hold``)."""
    players = {}
    for player, seen in review["players"].items():
        signals = replace(Signals.from_dict(seen["signals"]), **field_figures(field_ms))
        found = reasons(signals)
        players[player] = {
            **seen,
            "signals": signals.as_dict(),
            "reasons": found,
            "evidence": evidence(signals),
        }
    flagged = any(seen["reasons"] for seen in players.values())
    status = FLAGGED if flagged else CLEAR
    return {**review, "players": players, "status": status, "held": flagged and hold}


def with_related(
    review: dict[str, Any], player: str, related: Sequence[dict[str, Any]], hold: bool
) -> dict[str, Any]:
    """``review`` of a ranked daily run by ``player``, an account related to accounts that
    started the day's daily before it (``server/races/standing.py``): flagged for that reason
    (``related_account``), its evidence the first such account (``account``, ``player``),
    ``how`` they are related (``address``, ``device``) and when it was seen so (``at_ms``),
    with how many there were; held when flagged runs are held (``hold``)."""
    if not related:
        return review
    seen = review["players"][player]
    evidence = {**related[0], "related_accounts": len(related)}
    players = {
        **review["players"],
        player: {
            **seen,
            "reasons": [*seen["reasons"], RELATED_ACCOUNT],
            "evidence": {**seen["evidence"], RELATED_ACCOUNT: evidence},
        },
    }
    return {**review, "players": players, "status": FLAGGED, "held": hold}


def with_changes(
    review: dict[str, Any], changed: dict[str, tuple[Rating, Rating]]
) -> dict[str, Any]:
    """``review`` noting the ratings its race moved (before and after, per player)."""
    changes = {
        player: [before.as_dict(), after.as_dict()] for player, (before, after) in changed.items()
    }
    return {**review, "changes": changes}


def review_runs(review: dict[str, Any]) -> list[Run]:
    return [Run.from_dict(run) for run in review["runs"]]


def review_changes(review: dict[str, Any]) -> dict[str, tuple[Rating, Rating]]:
    return {
        player: (Rating.from_dict(before), Rating.from_dict(after))
        for player, (before, after) in review["changes"].items()
    }
