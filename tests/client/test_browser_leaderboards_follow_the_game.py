"""The top bar's Leaderboards link opens the board of the game the player last played
(issue 25: it always opened Mount Sunflower Easy, even after a Sanibel daily)."""

from __future__ import annotations

from browser_pages import OpenPage, ServerThread, resign, sign_in
from playwright.sync_api import expect


def test_the_leaderboards_link_opens_the_board_of_the_game_just_played(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    sign_in(page, "Sal")
    page.get_by_role("button", name="Play today's Sanibel", exact=True).click()
    expect(page.locator("#screen-race")).to_be_visible()
    resign(page)
    expect(page.locator("#results")).to_be_visible()
    page.locator("header").get_by_role("link", name="Leaderboards", exact=True).click()
    expect(page.locator("#board-title")).to_have_text("Daily Sanibel")
