"""The day's field through a real server (docs/fairness.md, "Fair-play signals"): a ranked
daily run reads, as it starts, the finished times on the day's board, and its review
judges its time against them once the field has enough runs, with the field's figures as
evidence. On the in-memory store and on a real Redis."""

from __future__ import annotations

import asyncio
from typing import Any

from daily_field import field_of as field_on_store
from daily_field import placed_before_the_field, today
from harness import member_at, player, running_server

from client.api import Client
from protocol.fairplay import BEYOND_FIELD, FIELD_RUNS
from server.app import RaceServer
from server.handover.moment import now
from server.races.field_judge import judge_listed_runs
from server.store import Store

GAME = "mount_sunflower_easy"
TOKEN = "a-moderator-s-token-of-forty-characters!"
MODERATED = {
    "hold_flagged": True,
    "fair_play_solver_nodes": 200_000,
    "daily_certify": True,
    "admin_token": TOKEN,
    "trusted_proxies": ("127.0.0.1",),
}


async def field_of(server: RaceServer, runs: range) -> None:
    deal, _ = await server.daily.deal_for(GAME, today())
    await field_on_store(server.store, GAME, deal, runs)


async def finished_on_the_line(server: RaceServer, client: Client) -> str:
    """A ranked daily run of the solver's line, finished in about a second."""
    deal, _ = await server.daily.deal_for(GAME, today())
    line = await server.daily.line(GAME, deal)
    assert line is not None
    started = await client.daily_start(GAME)
    assert started["ranked"]
    race: str = started["race"]["race"]
    for action in line:
        await client.act(race, action)
    return race


async def seen_in_review(server: RaceServer, race: str, who: Client) -> dict[str, Any]:
    moderator = await player(server, "Mod")
    for _ in range(100):
        answer = await moderator.request("admin", token=TOKEN, command="review", race=race)
        if answer.get("review"):
            seen: dict[str, Any] = answer["review"]["players"][who.player]
            return seen
        await asyncio.sleep(0.05)
    raise AssertionError(f"no review of {race}")


async def test_a_run_faster_than_the_day_s_field_is_flagged_once_the_field_is_big_enough(
    store: Store,
) -> None:
    async with running_server(store, **MODERATED) as server:
        await field_of(server, range(FIELD_RUNS - 1))
        early = await member_at(server, "Early", "203.0.113.1")
        seen = await seen_in_review(server, await finished_on_the_line(server, early), early)
        assert seen["signals"]["field_runs"] == FIELD_RUNS - 1
        assert BEYOND_FIELD not in seen["reasons"]  # too few runs to judge by

        await field_of(server, range(FIELD_RUNS - 1, FIELD_RUNS))  # the early run was held
        later = await member_at(server, "Later", "203.0.113.2")
        seen = await seen_in_review(server, await finished_on_the_line(server, later), later)
        assert BEYOND_FIELD in seen["reasons"]
        shown = seen["evidence"][BEYOND_FIELD]
        assert shown["field_runs"] == FIELD_RUNS and shown["field_fast_ms"] == 619_000
        assert shown["time_ms"] < shown["field_fast_ms"] and shown["history_best_ms"] is None


async def test_runs_placed_before_the_day_s_field_was_big_enough_are_judged_once_it_is(
    store: Store,
) -> None:
    async with running_server(store, **MODERATED) as server:
        quick = await member_at(server, "Quick", "203.0.113.1")
        steady = await member_at(server, "Steady", "203.0.113.2")
        fast = await placed_before_the_field(server.store, GAME, quick.player, "Quick", 300_000)
        slow = await placed_before_the_field(server.store, GAME, steady.player, "Steady", 700_000)
        await field_of(server, range(FIELD_RUNS - 2))  # each listed run sees 19 others
        moderation = server.store.moderation
        assert await moderation.awaiting_field(GAME, today()) == sorted([fast.race, slow.race])
        assert await judge_listed_runs(server.store, now(), 86_400, True) == []
        assert await moderation.awaiting_field(GAME, today()) == sorted([fast.race, slow.race])

        await field_of(server, range(FIELD_RUNS - 2, FIELD_RUNS - 1))  # now 20: the lease holder
        held = (await quick.next_event("held", timeout=10)).data  # judges them, tells
        assert held == {"race": fast.race, "game": GAME, "what": "daily"}
        assert await moderation.awaiting_field(GAME, today()) == []
        board = await server.store.days.daily_board(GAME, today(), 100)
        assert fast.player not in [entry.run.player for entry in board.top]  # held off it
        assert slow.player in [entry.run.player for entry in board.top]
        flagged = await moderation.flagged(10)
        assert [review["race"] for review in flagged] == [fast.race]
        seen = flagged[0]["players"][quick.player]
        assert flagged[0]["held"] and seen["reasons"] == [BEYOND_FIELD]
        shown = seen["evidence"][BEYOND_FIELD]
        assert shown["field_runs"] == FIELD_RUNS  # the 19 field runs and the slow run
        assert shown["time_ms"] == 300_000 < shown["field_fast_ms"]
        kept = await moderation.review(slow.race)  # judged: clear, with its field
        assert kept is not None and kept["status"] == "clear"
        assert kept["players"][steady.player]["signals"]["field_runs"] == FIELD_RUNS
