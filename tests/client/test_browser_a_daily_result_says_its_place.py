"""A daily without risk (issue 25): the result of a ranked daily attempt says its place on
the day's board at once, and the share of the day's other runs it beat; a practice attempt
says no place (it is not on the board)."""

from __future__ import annotations

from browser_pages import (
    DEAL,
    GAME,
    OpenPage,
    ServerThread,
    register,
    resign,
    sign_in,
    type_actions,
)
from harness import winning_actions
from playwright.sync_api import Page, expect

TITLE = "Mount Sunflower"


def play_today_s_daily(page: Page) -> None:
    page.get_by_role("button", name=f"Play today's {TITLE}", exact=True).click()
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")


def test_a_ranked_daily_result_says_its_place_and_a_practice_one_does_not(
    server: ServerThread, open_page: OpenPage
) -> None:
    pat = open_page(server.url)
    sign_in(pat, "Pat")
    register(pat, "pat", "pats-long-password")
    play_today_s_daily(pat)
    type_actions(pat, winning_actions(GAME, DEAL))
    place = pat.locator("#results-place")
    expect(place).to_have_text("1st today: the first run of the day", timeout=20_000)

    quin = open_page(server.url)
    sign_in(quin, "Quin")
    register(quin, "quin", "quins-long-password")
    play_today_s_daily(quin)
    resign(quin)
    expect(quin.locator("#results-place")).to_have_text(
        "2nd of 2 today: better than 0% of the other runs"
    )

    quin.locator("#results").get_by_role("link", name="Lobby").click()
    play_today_s_daily(quin)  # a second attempt is practice: no place on the board
    resign(quin)
    expect(quin.locator("#results")).to_be_visible()
    expect(quin.locator("#results-place")).to_be_hidden()
