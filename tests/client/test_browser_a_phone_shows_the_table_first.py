"""Phone first (issue 25): on a 390x844 phone the table fills the first screen. The header
is short (three lines at most: its links wrap, never hide behind a sideways scroll, issue
32), the race bar is short (the deal's seal behind a small "fair deal" link), and
the race table's top is within the first 200 px, both for a race of two and in a daily;
own name never cut in the standings; nothing scrolls sideways. Measured in a real
Chromium; a screenshot of each is kept."""

from __future__ import annotations

from browser_pages import (
    DEAL,
    GAME,
    PHONE,
    OpenPage,
    ServerThread,
    create_race,
    race_alone,
    screenshot,
    sign_in,
)
from playwright.sync_api import Page, expect

TOP_MAX = 200  # the race table's top on a 390x844 screen, at most (the figure)


def top_of(page: Page, selector: str) -> float:
    return float(page.locator(selector).evaluate("(e) => e.getBoundingClientRect().top"))


def measured(page: Page, name: str) -> dict[str, float]:
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(200)
    screenshot(page, f"phone-first-{name}.png")
    header = page.locator("header.topbar").evaluate("(e) => e.getBoundingClientRect().height")
    figures = {
        "header": float(header),
        "table": top_of(page, "#race-board"),
        "width": float(page.evaluate("document.documentElement.scrollWidth")),
    }
    print(f"\n{name}: header {figures['header']:.0f} px, table top {figures['table']:.0f} px")
    return figures


def test_a_race_of_two_on_a_phone_starts_with_its_table(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann = open_page(server.url, viewport=PHONE, has_touch=True, is_mobile=True)
    sign_in(ann, "Annabel-Longname")
    race = create_race(ann, GAME, DEAL, players=2)
    bob = open_page(f"{server.url}#race={race}", viewport=PHONE)
    sign_in(bob, "Bob")
    for page in (ann, bob):
        expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    figures = measured(ann, "race")
    assert figures["header"] <= 80  # the brand and who I am, then the links
    assert figures["table"] <= TOP_MAX
    assert figures["width"] <= PHONE["width"]
    # the deal's seal waits behind its link, and opens on a tap
    seal = ann.locator("#race-seal")
    expect(seal).to_be_hidden()
    ann.get_by_role("button", name="Fair deal").click()
    expect(seal).to_be_visible()
    # my own name is whole in the standings
    mine = ann.locator("#standings .standing.me .standing-name")
    assert mine.evaluate("(e) => e.scrollWidth <= e.clientWidth")


def test_a_daily_on_a_phone_starts_with_its_table(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url, viewport=PHONE, has_touch=True, is_mobile=True)
    sign_in(page, "Dot")
    page.get_by_role("button", name="Play today's Sanibel").click()
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    figures = measured(page, "daily")
    assert figures["table"] <= TOP_MAX
    assert figures["width"] <= PHONE["width"]


LANDSCAPE = {"width": 844, "height": 390}


def test_a_phone_held_sideways_shows_the_table_on_its_first_screen(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url, viewport=LANDSCAPE, has_touch=True, is_mobile=True)
    race_alone(page, "Lan")
    figures = measured(page, "landscape")
    board = page.locator("#race-board").evaluate(
        "(e) => { const r = e.getBoundingClientRect(); return [r.left, r.right]; }"
    )
    cards = page.locator("#race-board .card").evaluate_all(
        "(cards) => cards.map((c) => c.getBoundingClientRect().top)"
    )
    assert figures["width"] <= LANDSCAPE["width"]  # nothing sideways
    assert figures["table"] <= LANDSCAPE["height"] / 2  # the table starts on the first half
    assert board[0] >= 0 and board[1] <= LANDSCAPE["width"]
    assert min(cards) < LANDSCAPE["height"]  # cards on the first screen
