"""A practice daily says so on its race screen, under the title, not in a notice floating
over the cards that then follows the player to other screens (issue 25)."""

from __future__ import annotations

from browser_pages import PHONE, OpenPage, ServerThread, sign_in
from playwright.sync_api import expect


def test_a_guest_s_practice_daily_says_so_under_its_title_and_nothing_covers_the_cards(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    page.set_viewport_size(PHONE)
    sign_in(page, "Pia")
    page.get_by_role("button", name="Play today's Sanibel", exact=True).click()
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(page.locator("#race-sub")).to_contain_text(
        "practice on yesterday's deal: sign in to play today's, ranked"
    )
    page.wait_for_timeout(300)
    expect(page.locator("#notice")).to_be_hidden()


def test_a_notice_stays_on_the_screen_it_was_given_on(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    sign_in(page, "Nia")
    page.evaluate("window.solrace.notice('about the lobby')")
    expect(page.locator("#notice")).to_have_text("about the lobby")
    page.locator("header").get_by_role("link", name="Leaderboards", exact=True).click()
    expect(page.locator("#screen-boards")).to_be_visible()
    expect(page.locator("#notice")).to_be_hidden()
