"""Profiles through a real server: a player's rating and its history (the chart), races
played and won, runs finished and their average time, best daily runs, streak and latest
races, by id or by username; and the streak rule, pure."""

from __future__ import annotations

import asyncio
import time

import pytest
from harness import (
    RATED,
    member,
    member_at,
    player,
    quick_race_played,
    running_server,
    winning_actions,
)

from client.api import ServerError
from protocol.daily import day_of
from server.desks.profiles import streaks
from server.store import Store

GAME, DEAL = "mount_sunflower", 18


async def test_a_profile_shows_ratings_races_won_and_the_latest_races(store: Store) -> None:
    async with running_server(store, **RATED) as server:
        ann = await member_at(server, "Ann", "203.0.113.1")
        bob = await member_at(server, "Bob", "203.0.113.2")
        race = await quick_race_played(ann, bob, "sanibel")
        result = (await ann.race_log(race))["result"]
        winner = result["ranking"][0]["player"]
        await ann.next_event("rated")
        profile = await bob.profile(username="ANN")  # any case
        assert (profile["player"], profile["name"], profile["account"]) == (ann.player, "Ann", True)
        won = 1 if winner == ann.player else 0
        assert profile["races"]["sanibel"] == {"played": 1, "won": won}
        assert profile["races"][GAME] == {"played": 0, "won": 0}
        assert profile["ratings"]["sanibel"]["games"] == 1 and profile["ratings"][GAME] is None
        ((at_ms, rating),) = profile["rating_history"]["sanibel"]  # the chart's one point
        assert rating == profile["ratings"]["sanibel"]["rating"] and at_ms > 0
        assert profile["rating_history"][GAME] == []
        (latest,) = profile["recent"]
        assert latest == {**latest, "race": race, "game": "sanibel", "mode": "race", "of": 2}
        assert latest["rank"] == (1 if won else 2)
        assert (await ann.profile(bob.player))["races"]["sanibel"]["won"] == 1 - won


async def test_a_profile_shows_the_daily_streak_and_best_daily_run(store: Store) -> None:
    today = day_of(int(time.time() * 1000))
    await store.days.set_daily_deal(GAME, today, DEAL)
    async with running_server(store) as server:
        ann = await member(server, "Ann")
        before = await ann.profile(ann.player)
        assert before["streak"] == {"current": 0, "longest": 0}
        assert before["daily_today"][GAME] is False
        attempt = (await ann.daily_start(GAME))["race"]["race"]
        for action in winning_actions(GAME, DEAL):
            await ann.act(attempt, action)
        await ann.next_event("result")
        for _ in range(100):
            profile = await ann.profile(ann.player)
            if profile["best_daily"][GAME]:
                break
            await asyncio.sleep(0.02)
        assert profile["streak"] == {"current": 1, "longest": 1}
        assert profile["daily_today"] == {**profile["daily_today"], GAME: True, "sanibel": False}
        best = profile["best_daily"][GAME]
        assert best["race"] == attempt and best["finished"] and best["rank"] == 1
        assert best["deal"] is None  # a profile never shows a deal
        assert profile["finished"][GAME] == {"count": 1, "average_ms": best["time_ms"]}
        assert profile["finished"]["sanibel"] == {"count": 0, "average_ms": None}


async def test_a_guest_has_a_profile_once_they_raced_and_nobody_else_does() -> None:
    async with running_server(countdown_ms=0) as server, await player(server, "Gus") as gus:
        with pytest.raises(ServerError) as refused:
            await gus.profile(gus.player)  # nothing known yet
        assert refused.value.code == "player_not_found"
        race = (await gus.create_race("sanibel", max_players=1))["race"]
        await gus.next_event("started")
        await gus.resign(race)
        await gus.next_event("result")
        profile = await gus.profile(gus.player)
        assert (profile["name"], profile["account"]) == ("Gus", False)
        assert profile["races"]["sanibel"] == {"played": 0, "won": 0}  # a race for one
        for fields in ({}, {"player": gus.player, "username": "Gus"}):
            with pytest.raises(ServerError) as refused:
                await gus.request("profile", **fields)
            assert refused.value.code == "missing_field"
        with pytest.raises(ServerError) as refused:
            await gus.profile(username="nobody")
        assert refused.value.code == "player_not_found"


async def test_a_race_its_racers_resigned_is_won_by_nobody(store: Store) -> None:
    async with running_server(store, countdown_ms=0) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        for action in winning_actions(GAME, DEAL)[:8]:  # up to "auto": cards on foundations
            await ann.act(race, action)
        await ann.resign(race)
        await bob.resign(race)
        await ann.next_event("result")
        for _ in range(100):
            profile = await ann.profile(ann.player)
            if profile["recent"]:
                break
            await asyncio.sleep(0.02)
        (line,) = profile["recent"]
        assert (line["rank"], line["outcome"]) == (1, "resigned")
        assert profile["races"][GAME] == {"played": 1, "won": 0}
        assert (await bob.profile(bob.player))["races"][GAME] == {"played": 1, "won": 0}


def test_a_streak_counts_consecutive_days_up_to_today_or_yesterday() -> None:
    days = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-20", "2026-11-29", "2026-11-30"]
    assert streaks(days, "2026-11-30") == {"current": 2, "longest": 3}
    assert streaks(days, "2026-12-01") == {"current": 2, "longest": 3}  # today still to play
    assert streaks(days, "2026-12-02") == {"current": 0, "longest": 3}  # a day missed
    assert streaks([], "2026-12-02") == {"current": 0, "longest": 0}
