"""Wins beyond an account's own record through a real server (docs/fairness.md, "Wins
beyond the account's record"): a ranked daily run reads, as it starts, its account's
record in the game from its kept history (the races the server dealt it, its ranked daily
runs, and which of them it finished), and its review judges the finished run against it,
with the record as evidence. On the in-memory store and on a real Redis."""

from __future__ import annotations

import time

from harness import member_at, running_server
from test_fair_play_field import MODERATED, finished_on_the_line, seen_in_review

from protocol.fairplay import BEYOND_RECORD
from protocol.fairplay_record import RECORD_CHANCE
from server.app import RaceServer
from server.handover.jobs import RecordHistory
from server.races.fairplay import record_before
from server.store import Store

GAME = "mount_sunflower_easy"


async def a_past(
    server: RaceServer, player: str, races: int, finished: int, ranked: bool = True
) -> None:
    """``races`` races of GAME the server dealt ``player`` (``finished`` of them finished,
    the others given up) and one earlier ranked daily run, finished, in their history."""
    now = int(time.time() * 1000)
    lines = [
        ("race", f"{player}-race{index}", "finished" if index < finished else "resigned")
        for index in range(races)
    ] + [("daily", f"{player}-daily", "finished")]
    jobs = [
        RecordHistory(
            player,
            race,
            GAME,
            {
                "race": race,
                "game": GAME,
                "mode": mode,
                "ranked": ranked,
                "outcome": outcome,
                "at_ms": now - 1_000 * index,
                "time_ms": 600_000,
            },
            counted=mode == "race",
            won=False,
        )
        for index, (mode, race, outcome) in enumerate(lines)
    ]
    assert await server.store.write(jobs) == [None] * len(jobs)


async def test_a_player_s_record_counts_the_races_the_server_dealt_and_the_ranked_runs(
    store: Store,
) -> None:
    async with running_server(store) as server:
        await a_past(server, "p-dealt", races=12, finished=5)
        await a_past(server, "p-chosen", races=12, finished=5, ranked=False)
        dealt = record_before(await store.accounts.history("p-dealt"), GAME, "now")
        assert (dealt.races, dealt.races_finished, dealt.runs, dealt.runs_finished) == (12, 5, 1, 1)
        chosen = record_before(await store.accounts.history("p-chosen"), GAME, "now")
        assert (chosen.races, chosen.runs) == (0, 0)  # races they chose, practice runs: none
        other = record_before(await store.accounts.history("p-dealt"), "sanibel", "now")
        assert other.races == 0


async def test_a_daily_finished_far_more_often_than_the_account_s_races_is_flagged(
    store: Store,
) -> None:
    async with running_server(store, **MODERATED) as server:
        blind = await member_at(server, "Blind", "203.0.113.1")
        await a_past(server, blind.player, races=20, finished=0)
        seen = await seen_in_review(server, await finished_on_the_line(server, blind), blind)
        assert BEYOND_RECORD in seen["reasons"]
        shown = seen["evidence"][BEYOND_RECORD]
        assert (shown["record_races"], shown["record_races_finished"]) == (20, 0)
        assert (shown["record_runs"], shown["record_runs_finished"]) == (2, 2)
        assert shown["record_chance"] < RECORD_CHANCE

        finisher = await member_at(server, "Finisher", "203.0.113.2")
        await a_past(server, finisher.player, races=20, finished=12)
        seen = await seen_in_review(server, await finished_on_the_line(server, finisher), finisher)
        assert seen["signals"]["record_runs_finished"] == 2
        assert BEYOND_RECORD not in seen["reasons"]
        for client in (blind, finisher):
            await client.close()
