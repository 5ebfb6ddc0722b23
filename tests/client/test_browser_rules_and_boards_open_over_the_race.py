"""A daily without risk (issue 25): while I race, the rules and the leaderboard open over
the race, without leaving or resigning it; *Back to the race* finds it as it was, the
clock still running. Once my race is over they open as screens of their own."""

from __future__ import annotations

from browser_pages import DEAL, GAME, OpenPage, ServerThread, create_race, sign_in
from playwright.sync_api import expect


def test_the_rules_and_the_board_open_over_a_race_i_play(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    sign_in(page, "Rhea")
    race = create_race(page, GAME, DEAL, players=1)
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    page.locator("#race-rules").click()  # "How to play" under the table
    over = page.locator("#over-race")
    expect(over).to_be_visible()
    expect(over.locator("#screen-rules")).to_contain_text("Mount Sunflower")
    assert page.url.endswith(f"#race={race}")
    over.get_by_role("button", name="Back to the race").click()
    expect(over).to_be_hidden()
    expect(page.locator("#screen-race")).to_be_visible()

    page.locator("header").get_by_role("link", name="Leaderboards", exact=True).click()
    expect(over.locator("#screen-boards")).to_be_visible()
    expect(over.locator("#board-title")).to_contain_text("Mount Sunflower")
    over.get_by_role("tab", name="Sanibel").click()  # another game's board, still over it
    expect(over.locator("#board-title")).to_contain_text("Sanibel")
    page.wait_for_timeout(200)  # (the dialog's close event comes a task later)
    expect(over.locator("#screen-boards")).to_be_visible()
    page.keyboard.press("Escape")
    expect(over).to_be_hidden()
    clock = page.locator("#clock")
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(page.locator("#standings .standing.me")).not_to_contain_text("resigned")
    before = clock.inner_text()
    expect(clock).not_to_have_text(before)  # still running
    assert dialogs == []  # never asked "Leave this race? You will resign."
