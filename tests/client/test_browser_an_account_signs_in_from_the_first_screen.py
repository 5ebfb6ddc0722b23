"""Sign in from the first screen (issue 25): a player with an account need not pick a guest
name first; the account's name is theirs at once, and a wrong password says so in the
account panel, leaving them a guest of that name."""

from __future__ import annotations

from browser_pages import OpenPage, ServerThread, register, sign_in
from playwright.sync_api import Page, expect


def first_screen_sign_in(page: Page, username: str, password: str) -> None:
    form = page.locator("#first-sign-in")
    form.get_by_label("Username").fill(username)
    form.get_by_label("Password").fill(password)
    form.get_by_role("button", name="Sign in").click()


def test_an_account_signs_in_from_the_first_screen(
    server: ServerThread, open_page: OpenPage
) -> None:
    kim = open_page(server.url)
    sign_in(kim, "Kim")
    register(kim, "kim", "kims-long-password")
    elsewhere = open_page(server.url)  # another browser: no session, the first screen
    expect(elsewhere.locator("#first-sign-in")).to_be_visible()
    first_screen_sign_in(elsewhere, "kim", "kims-long-password")
    expect(elsewhere.locator("#account-name")).to_have_text("kim")
    expect(elsewhere.locator("#player-name")).to_have_text("kim")
    expect(elsewhere.locator("#account-member")).to_be_visible()


def test_a_wrong_password_on_the_first_screen_is_said_and_leaves_a_guest(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    first_screen_sign_in(page, "nobody-here", "not-the-password")
    expect(page.locator("#account-message")).to_contain_text("wrong")
    expect(page.locator("#account-guest")).to_be_visible()
    expect(page.locator("#connection")).to_have_attribute("data-status", "online")
