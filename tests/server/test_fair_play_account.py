"""Clairvoyance over an account's runs through a real server (docs/fairness.md,
"Clairvoyance over an account's runs"): a ranked daily run reads, as it starts, the
reveals kept in the reviews of the account's earlier ranked daily runs, and its review
sums them with its own: flagged `lucky_account`, with the sums as evidence, when the
account's runs lie far enough above chance, not when they lie at chance. On the in-memory
store and on a real Redis."""

from __future__ import annotations

import time
from typing import Any

from harness import member_at, running_server
from test_fair_play_field import GAME, MODERATED, finished_on_the_line, seen_in_review

from client.api import Client
from protocol.daily import previous_day
from protocol.fairplay import LUCKY_ACCOUNT
from protocol.fairplay_account import ACCOUNT_RUNS
from protocol.fairplay_reveals import Reveals
from server.handover.jobs import KeepReview, RecordHistory
from server.store import Store

KEEP_S = 3_600


async def earlier_runs(store: Store, who: Client, reveals: Reveals, runs: int) -> None:
    """``runs`` ranked daily runs of ``who`` on earlier days, resigned, each kept in their
    history with a review whose reveals are ``reveals``."""
    now_ms = int(time.time() * 1000)
    day = time.strftime("%Y-%m-%d", time.gmtime(now_ms / 1000))
    for index in range(runs):
        day = previous_day(day)
        race = f"earlier-{who.player}-{index}"
        entry = {
            "race": race,
            "game": GAME,
            "mode": "daily",
            "day": day,
            "at_ms": now_ms - 86_400_000 * (index + 1),
            "name": "earlier",
            "rank": 1,
            "of": 1,
            "outcome": "resigned",
            "time_ms": None,
            "actions": 30,
            "progress": 10,
        }
        signals = {
            "blind_reveals": reveals.blind,
            "lucky_reveals": reveals.lucky,
            "lucky_expected": reveals.expected,
            "lucky_variance": reveals.variance,
        }
        review = {
            "race": race,
            "kind": "daily",
            "game": GAME,
            "day": day,
            "status": "clear",
            "held": False,
            "players": {who.player: {"name": "earlier", "signals": signals, "reasons": []}},
            "runs": [],
            "changes": {},
        }
        history = RecordHistory(who.player, race, GAME, entry, False, False, day, KEEP_S)
        assert await store.write([KeepReview(race, review, KEEP_S), history]) == [None, None]


async def reviewed_after(store: Store, name: str, reveals: Reveals) -> dict[str, Any]:
    """What the review of a ranked daily run (the solver's line) of a new account ``name``
    shows, after ``ACCOUNT_RUNS - 1`` earlier runs of ``reveals``."""
    async with running_server(store, **MODERATED) as server:
        who = await member_at(server, name, "203.0.113.1")
        await earlier_runs(server.store, who, reveals, ACCOUNT_RUNS - 1)
        return await seen_in_review(server, await finished_on_the_line(server, who), who)


async def test_a_run_whose_account_s_runs_lie_far_above_chance_is_flagged_with_the_sums(
    store: Store,
) -> None:
    seen = await reviewed_after(store, "Knower", Reveals(10, 10, 5.0, 2.5))
    assert LUCKY_ACCOUNT in seen["reasons"]
    shown, signals = seen["evidence"][LUCKY_ACCOUNT], seen["signals"]
    assert shown["account_runs"] == ACCOUNT_RUNS
    assert shown["account_lucky"] == 10 * (ACCOUNT_RUNS - 1) + signals["lucky_reveals"]
    assert shown["account_expected"] == round(
        5.0 * (ACCOUNT_RUNS - 1) + signals["lucky_expected"], 3
    )
    assert shown["account_z"] >= shown["z_needed"]


async def test_a_run_whose_account_s_runs_lie_at_chance_is_not_flagged_for_it(
    store: Store,
) -> None:
    seen = await reviewed_after(store, "Person", Reveals(10, 5, 5.0, 2.5))
    assert seen["signals"]["account_runs"] == ACCOUNT_RUNS  # judged, and found at chance
    assert LUCKY_ACCOUNT not in seen["reasons"]
