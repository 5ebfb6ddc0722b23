"""Issue 25, profiles: the rating after each rated race as a chart, the share of races won
and the average time of the runs finished, per game. The store is given a player's past
here (ratings through ``rate_race``, finished runs through ``RecordHistory``, as the server
writes them; tests/server/test_profiles.py plays them for real) so the page's drawing of
it is what is checked."""

from __future__ import annotations

import asyncio
import re

from browser_pages import GAME, OpenPage, ServerThread, player_id, register, sign_in
from playwright.sync_api import expect

from protocol.ranking import Run
from server.handover.jobs import RecordHistory

RACES = 3
DAY_MS = 86_400_000


def a_run(player: str, race: str, finished: bool) -> Run:
    return Run(player, player, race, GAME, 7, finished, 60_000, 80, 52 if finished else 10, 1)


def give_a_past(server: ServerThread, player: str) -> list[int]:
    """``RACES`` rated races won, a day apart, against a settled rival (then a finished
    race for one, timed 1:30 and 2:30, and a lost one): the ratings after each race. (A
    new rival would give nothing: docs/fairness.md, "Ratings that farming cannot move".)"""

    async def past() -> list[int]:
        store = server.store
        for n in range(12):  # the rival settles against others first
            rival_won = n % 2 == 0
            runs = [a_run("p-rival", f"s{n}", rival_won), a_run(f"p-o{n}", f"s{n}", not rival_won)]
            await store.accounts.rate_race(GAME, f"s{n}", runs, 1_000 + n, 60)
        shown = []
        for n in range(RACES):
            runs = [a_run(player, f"r{n}", True), a_run("p-rival", f"r{n}", False)]
            at_ms = DAY_MS * (n + 1)
            changed = await store.accounts.rate_race(GAME, f"r{n}", runs, at_ms, 60)
            assert changed is not None
            shown.append(round(changed[player][1].rating))
        for n, (outcome, time_ms, won) in enumerate(
            [("finished", 90_000, True), ("finished", 150_000, False), ("resigned", None, False)]
        ):
            entry = {
                **{"race": f"h{n}", "game": GAME, "mode": "race", "day": None, "at_ms": n},
                **{"name": "Rita_p", "rank": 1 if won else 2, "of": 2, "outcome": outcome},
                **{"time_ms": time_ms, "actions": 9, "progress": 5},
            }
            await store.write([RecordHistory(player, f"h{n}", GAME, entry, True, won)])
        return shown

    return asyncio.run_coroutine_threadsafe(past(), server.loop).result(timeout=10)


def test_a_profile_charts_the_rating_and_says_the_share_won_and_the_average_time(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    sign_in(page, "Rita")
    register(page, "Rita_p", "Rita's long secret")
    ratings = give_a_past(server, player_id(page))
    assert ratings == sorted(set(ratings))  # three wins: up each time
    page.locator("nav.nav").get_by_role("link", name="Profile").click()
    profile = page.locator("#screen-profile")
    expect(profile).to_have_attribute("data-ready", "true")
    chart = profile.get_by_role("img", name=re.compile("^Rating after each rated race"))
    expect(chart).to_have_attribute(
        "aria-label", f"Rating after each rated race: Mount Sunflower {ratings[-1]}"
    )
    points = chart.locator("polyline").get_attribute("points") or ""
    heights = [float(point.split(",")[1]) for point in points.split()]
    assert len(heights) == RACES and heights == sorted(heights, reverse=True)  # rising
    row = profile.locator(f'tr[data-game="{GAME}"]')
    expect(row).to_contain_text("1 / 3 (33%)")  # won / played, and the share
    expect(row).to_contain_text("2:00.0 (2 finished)")  # (1:30 + 2:30) / 2
