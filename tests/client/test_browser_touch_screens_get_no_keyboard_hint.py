"""A touch screen gets no keyboard hint: the race's controls and cards are what a phone
player uses (issue 25, phone first). A desktop keeps it."""

from __future__ import annotations

from browser_pages import DEAL, DESKTOP, GAME, PHONE, OpenPage, ServerThread, create_race, sign_in
from playwright.sync_api import expect


def test_the_keyboard_hint_is_shown_with_a_mouse_and_not_on_a_touch_screen(
    server: ServerThread, open_page: OpenPage
) -> None:
    for viewport, touch in ((DESKTOP, False), (PHONE, True)):
        page = open_page(server.url, viewport, has_touch=touch, is_mobile=touch)
        sign_in(page, "Tia" if touch else "Mo")
        create_race(page, GAME, DEAL, players=1)
        expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
        hint = page.locator("#keys-hint")
        if touch:
            expect(hint).to_be_hidden()
        else:
            expect(hint).to_be_visible()
