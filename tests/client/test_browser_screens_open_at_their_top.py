"""A screen opens at its top, wherever the page was scrolled. Issue 25 reported that starting
a daily from the lower half of the lobby opened the race screen scrolled down (its title,
clock and standings under the top bar, at 1280x800); it did not happen here on 2026-12-04
(the lobby scrolled to 306 px, the race screen opened at 0): this test keeps it so."""

from __future__ import annotations

from browser_pages import DESKTOP, OpenPage, ServerThread, sign_in
from playwright.sync_api import expect


def test_a_daily_started_from_the_lower_lobby_opens_at_the_race_s_title(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    page.set_viewport_size(DESKTOP)
    sign_in(page, "Lou")
    play = page.get_by_role("button", name="Play today's Sanibel", exact=True)
    play.scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("window.scrollY") > 0, "the lobby is taller than the window"
    play.click()
    expect(page.locator("#screen-race")).to_be_visible()
    title = page.locator("#screen-race h1, #screen-race h2").first
    expect(title).to_be_in_viewport()
    assert page.evaluate("window.scrollY") == 0
