"""Once a player's race is over, the controls they can no longer use and the keyboard
hint go, so the result is where the eye is (issue 25: on a phone "You won!" started at
y 555 under disabled buttons)."""

from __future__ import annotations

from browser_pages import (
    DEAL,
    GAME,
    PHONE,
    OpenPage,
    ServerThread,
    create_race,
    sign_in,
    type_actions,
)
from harness import winning_actions
from playwright.sync_api import expect


def test_a_won_race_on_a_phone_shows_its_result_without_the_spent_controls(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    page.set_viewport_size(PHONE)
    sign_in(page, "Wes")
    create_race(page, GAME, DEAL, players=1)
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(page.locator("#controls")).to_be_visible()
    type_actions(page, winning_actions(GAME, DEAL))
    expect(page.locator("#results")).to_be_visible(timeout=20_000)
    title = page.locator("#results-title")
    expect(title).to_have_text("You won!")
    expect(page.locator("#controls")).to_be_hidden()
    expect(page.locator("#keys-hint")).to_be_hidden()
    page.evaluate("window.scrollTo(0, 0)")
    top = title.evaluate("(e) => e.getBoundingClientRect().top")
    print(f"\n'You won!' at y {top:.0f} of {PHONE['height']}")
    assert top < 420  # 391 on 2026-12-04 (555 before)
