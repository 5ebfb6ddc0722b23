"""The browser keeps one device id in localStorage (``solrace.device``) and says it in
every hello, so the server can relate accounts seen on one device; an account not yet in
good standing is told why its daily attempt is practice (docs/fairness.md)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest
from browser_pages import DEAL, GAME, SETTINGS, OpenPage, ServerThread, register, sign_in
from playwright.sync_api import WebSocket, expect


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    costly = dataclasses.replace(SETTINGS, ranked_account_days=3, ranked_account_games=10)
    with ServerThread(costly, daily={GAME: DEAL}) as running:
        yield running


def test_every_hello_says_the_device_id_the_browser_keeps(
    server: ServerThread, open_page: OpenPage
) -> None:
    hellos: list[dict[str, object]] = []

    def watch(socket: WebSocket) -> None:
        def sent(frame: str | bytes) -> None:
            message = json.loads(frame)
            if message.get("type") == "hello":
                hellos.append(message)

        socket.on("framesent", sent)

    page = open_page(server.url)
    page.on("websocket", watch)
    sign_in(page, "Devi")
    kept = page.evaluate("localStorage.getItem('solrace.device')")
    assert isinstance(kept, str) and 16 <= len(kept) <= 64
    page.reload()  # the page comes back as Devi: another hello, the same device
    for _ in range(100):
        if len(hellos) >= 2:
            break
        page.wait_for_timeout(100)
    assert page.evaluate("localStorage.getItem('solrace.device')") == kept
    assert len(hellos) >= 2 and {hello.get("device") for hello in hellos} == {kept}


def test_a_new_account_s_daily_says_what_ranked_play_still_needs(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    sign_in(page, "Newt")
    register(page, "Newt_p", "Newt's long secret")
    page.get_by_role("button", name="Play today's Mount Sunflower", exact=True).click()
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(page.locator("#race-sub")).to_contain_text(
        "practice: Ranked play opens when your account is 3 days old and has finished "
        "10 games; yours: 0 days, 0 games."
    )
