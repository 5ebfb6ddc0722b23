"""On a 390x844 phone (issue 32): every link and button of the top bar is on the screen
and takes a tap (none hidden behind a sideways scroll nothing shows); a guest's daily says
its whole key note, never "practice on yeste…"; and the leaderboard opened over a running
daily leaves the top bar working: its Profile link opens the profile over the race, which
runs on. axe-core finds nothing serious on these views. Measured in a real Chromium."""

from __future__ import annotations

from browser_pages import (
    AXE_SERIOUS,
    PHONE,
    OpenPage,
    ServerThread,
    add_test_script,
    screenshot,
    sign_in,
)
from playwright.sync_api import Page, expect

# Whether an element is wholly inside the window and is what a tap at its middle reaches.
TAKES_A_TAP = """(e) => {
  const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const inside = r.width > 0 && r.left >= 0 && r.top >= 0
    && r.right <= innerWidth && r.bottom <= innerHeight;
  return inside && (hit === e || e.contains(hit));
}"""
PRACTICE_NOTE = "practice on yesterday's deal: sign in to play today's, ranked"


def phone(open_page: OpenPage, url: str, name: str) -> Page:
    page = open_page(url, viewport=PHONE, has_touch=True, is_mobile=True)
    sign_in(page, name)
    return page


def out_of_reach(page: Page) -> list[str]:
    """The top bar's visible links and buttons that are not on the screen to be tapped."""
    items = page.locator("header.topbar").locator("a:visible, button:visible")
    assert items.count() >= 7  # the brand, five links, and the name's buttons
    return [
        items.nth(i).inner_text()
        for i in range(items.count())
        if not items.nth(i).evaluate(TAKES_A_TAP)
    ]


def axe_findings(page: Page, axe_source: str) -> list[str]:
    if not page.evaluate("typeof axe !== 'undefined'"):
        add_test_script(page, axe_source)
    findings: list[str] = page.evaluate(AXE_SERIOUS)
    return findings


def play_todays_daily(page: Page) -> None:
    page.get_by_role("button", name="Play today's Sanibel", exact=True).click()
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")


def test_every_top_bar_link_takes_a_tap_on_a_phone(
    server: ServerThread, open_page: OpenPage, axe_source: str
) -> None:
    page = phone(open_page, server.url, "Philippa-Longname")
    expect(page.locator("#profile-link")).to_be_visible()
    screenshot(page, "phone-top-bar-lobby.png")
    assert out_of_reach(page) == []
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    play_todays_daily(page)
    screenshot(page, "phone-top-bar-race.png")
    assert out_of_reach(page) == []
    assert axe_findings(page, axe_source) == []


def test_a_guest_s_daily_says_its_whole_note_on_a_phone(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = phone(open_page, server.url, "Pia")
    play_todays_daily(page)
    note = page.locator("#race-sub")
    expect(note).to_contain_text(PRACTICE_NOTE)
    screenshot(page, "phone-practice-note.png")
    assert note.evaluate("(e) => e.scrollWidth <= e.clientWidth")  # nothing cut off
    assert note.evaluate("(e) => e.getBoundingClientRect().right") <= PHONE["width"]


def test_the_profile_link_works_over_the_leaderboard_of_a_running_daily(
    server: ServerThread, open_page: OpenPage, axe_source: str
) -> None:
    page = phone(open_page, server.url, "Lea")
    play_todays_daily(page)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    header = page.locator("header.topbar")
    header.get_by_role("link", name="Leaderboards", exact=True).click()
    over = page.locator("#over-race")
    expect(over.locator("#screen-boards")).to_be_visible()
    assert out_of_reach(page) == []  # the top bar still takes a tap
    header.get_by_role("link", name="Profile", exact=True).click(timeout=5_000)
    expect(over.locator("#screen-profile")).to_be_visible()  # over the race, as the board was
    expect(over.locator("#profile-message")).to_contain_text("Nothing played yet")  # mine
    screenshot(page, "phone-profile-over-the-race.png")
    assert axe_findings(page, axe_source) == []
    over.get_by_role("button", name="Back to the race").click()
    expect(over).to_be_hidden()
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(page.locator("#standings .standing.me")).not_to_contain_text("resigned")
    assert dialogs == []  # never asked "Leave this race? You will resign."
