"""Racers in a real headless Chromium who lose their connection, open a second tab,
leave a race (the question first, then the resignation) or reload the page, and come
back to the same race, board and clock.

The set-up every browser test shares is described in tests/support/browser_pages.py.
"""

from __future__ import annotations

import re
import time

from browser_pages import (
    DEAL,
    DESKTOP,
    GAME,
    Frames,
    OpenPage,
    ServerThread,
    ann_and_bob_race,
    clock_ms,
    create_race,
    expected_board,
    my_board,
    player_id,
    shown_board,
    sign_in,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import Browser, Dialog, Page, expect

COUNTDOWN_MS = 1_500  # long enough to see the countdown on the page (conftest.py)
LEAVE_QUESTION = "Leave this race? You will resign."


class NextDialog:
    """Answers the page's next dialog as soon as it opens: accepts it or dismisses it."""

    def __init__(self, page: Page, accept: bool) -> None:
        self.page = page
        self.accept = accept
        self.questions: list[str] = []
        page.once("dialog", self._answer)

    def _answer(self, dialog: Dialog) -> None:
        self.questions.append(dialog.message)
        if self.accept:
            dialog.accept()
        else:
            dialog.dismiss()

    def question(self, timeout: float = 10.0) -> str:
        """The dialog's question, once it has been asked and answered."""
        deadline = time.monotonic() + timeout
        while not self.questions:
            assert time.monotonic() < deadline, "no dialog opened"
            self.page.wait_for_timeout(50)  # lets Playwright deliver the dialog
        return self.questions[0]


def go_to_lobby(page: Page) -> None:
    """Press the Lobby link of the top bar."""
    page.locator("nav.nav").get_by_role("link", name="Lobby").click()


def test_a_dropped_connection_resumes_with_the_board_and_the_clock_intact(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    page = open_page(server.url)
    sign_in(page, "Rae")
    create_race(page, GAME, DEAL, players=1)
    board = my_board(page)
    type_actions(page, wins[:3])
    wait_for_board(board, expected_board(GAME, DEAL, wins[:3]))
    start_at = page.locator("#clock").get_attribute("data-start-at")
    assert start_at
    time.sleep(0.5)
    before_drop = clock_ms(page)
    assert before_drop >= 400

    page.context.set_offline(True)  # no new connection can be made ...
    server.cut_connection(player_id(page))  # ... and the live one breaks
    expect(page.locator("#offline-banner")).to_be_visible()
    type_actions(page, wins[3:5])  # played while offline: sent once the session resumes
    time.sleep(1.0)
    assert clock_ms(page) >= before_drop + 900  # the clock runs on while offline
    assert shown_board(board) == expected_board(GAME, DEAL, wins[:3])

    page.context.set_offline(False)
    expect(page.locator("#connection")).to_have_attribute("data-status", "online")
    expect(page.locator("#offline-banner")).to_be_hidden()
    wait_for_board(board, expected_board(GAME, DEAL, wins[:5]))
    assert page.locator("#clock").get_attribute("data-start-at") == start_at
    server_elapsed = int(time.time() * 1000) - int(start_at)
    assert abs(clock_ms(page) - server_elapsed) < 1_000
    # The session is the same one: the next actions carry on the same sequence.
    type_actions(page, wins[5:6])
    wait_for_board(board, expected_board(GAME, DEAL, wins[:6]))
    expect(page.locator("#race-message")).to_have_text("")


def test_two_tabs_of_one_browser_are_two_players_who_can_race(
    server: ServerThread, browser: Browser
) -> None:
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    try:
        first = context.new_page()
        first.goto(server.url)
        sign_in(first, "Ann")
        race = create_race(first, GAME, DEAL, players=2)
        second = context.new_page()  # same browser: shares localStorage, not the session
        second.goto(f"{server.url}#race={race}")  # signed in at once with the remembered name
        expect(second.locator("#connection")).to_have_attribute("data-status", "online")
        assert player_id(first) != player_id(second)
        start = expected_board(GAME, DEAL, [])
        for page in (first, second):  # both joined: the full race started in both tabs
            expect(page.locator("#screen-race")).to_have_attribute("data-race", race)
            wait_for_board(my_board(page), start)
        expect(first.locator("#connection")).to_have_attribute("data-status", "online")
        second.reload()  # a reload resumes this tab's own session
        expect(second.locator("#connection")).to_have_attribute("data-status", "online")
        assert player_id(second) != player_id(first)
    finally:
        context.close()


def test_leaving_a_running_race_asks_first_then_resigns(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    ann, bob, race = ann_and_bob_race(open_page, server.url, GAME, DEAL)
    for page in (ann, bob):
        expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    ann_on_bobs_page = bob.locator(f'#standings [data-player="{player_id(ann)}"]')

    # Cancelled: Ann stays in the race, at its address, and plays on.
    dialog = NextDialog(ann, accept=False)
    go_to_lobby(ann)
    assert dialog.question() == LEAVE_QUESTION
    expect(ann).to_have_url(re.compile(f"#race={race}$"))
    expect(ann.locator("#screen-race")).to_be_visible()
    type_actions(ann, wins[:1])
    wait_for_board(my_board(ann), expected_board(GAME, DEAL, wins[:1]))
    expect(ann_on_bobs_page).not_to_have_class(re.compile(r"\bresigned\b"))

    # Confirmed: Ann resigns and is in the lobby; Bob sees it.
    dialog = NextDialog(ann, accept=True)
    go_to_lobby(ann)
    assert dialog.question() == LEAVE_QUESTION
    expect(ann.locator("#screen-lobby")).to_be_visible()
    expect(ann_on_bobs_page).to_have_class(re.compile(r"\bresigned\b"))
    expect(ann.locator(f'#my-races [data-race="{race}"]')).to_have_count(0)
    expect(ann.locator(f'#live-races [data-race="{race}"]')).to_contain_text("Bob")  # racing

    # Bob leaves too: the race is over, and nobody's Live list shows it any more.
    dialog = NextDialog(bob, accept=True)
    go_to_lobby(bob)
    assert dialog.question() == LEAVE_QUESTION
    expect(bob.locator("#screen-lobby")).to_be_visible()
    for page in (ann, bob):
        page.get_by_role("button", name="Refresh").click()
        expect(page.locator(f'#live-races [data-race="{race}"]')).to_have_count(0)
        expect(page.locator(f'#my-races [data-race="{race}"]')).to_have_count(0)


def test_leaving_during_the_countdown_resigns_and_the_start_does_not_pull_back(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann = open_page(server.url)
    frames = Frames(ann)
    sign_in(ann, "Ann")
    race = create_race(ann, GAME, DEAL, players=2)
    bob = open_page(f"{server.url}#race={race}")
    sign_in(bob, "Bob")
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "countdown")
    dialog = NextDialog(ann, accept=True)
    go_to_lobby(ann)
    assert dialog.question() == LEAVE_QUESTION
    expect(ann.locator("#screen-lobby")).to_be_visible()

    expect(bob.locator("#screen-race")).to_have_attribute("data-phase", "running")
    ann_on_bobs_page = bob.locator(f'#standings [data-player="{player_id(ann)}"]')
    expect(ann_on_bobs_page).to_have_class(re.compile(r"\bresigned\b"))
    frames.wait_for_event("started")  # the server still tells Ann the race started ...
    ann.wait_for_timeout(300)
    expect(ann.locator("#screen-lobby")).to_be_visible()  # ... and she stays in the lobby
    expect(ann).to_have_url(re.compile("#lobby$"))


def test_after_a_reload_the_racer_gets_back_into_the_race(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    rae = open_page(server.url)
    sign_in(rae, "Rae")
    race = create_race(rae, GAME, DEAL, players=1)
    screen, board = rae.locator("#screen-race"), my_board(rae)
    type_actions(rae, wins[:2])
    wait_for_board(board, expected_board(GAME, DEAL, wins[:2]))

    rae.reload()  # on the race's address: straight back into the race
    expect(screen).to_have_attribute("data-race", race)
    expect(screen).to_have_attribute("data-phase", "running")
    wait_for_board(board, expected_board(GAME, DEAL, wins[:2]))

    rae.goto(server.url)  # a fresh load of the lobby: "Your races" offers the way back
    mine = rae.locator(f'#my-races [data-race="{race}"]')
    expect(mine).to_be_visible()
    live = rae.locator(f'#live-races [data-race="{race}"]')
    expect(live.get_by_role("button", name="Back to race")).to_be_visible()  # never "Watch"
    mine.get_by_role("button", name="Back to race").click()
    expect(screen).to_have_attribute("data-race", race)
    wait_for_board(board, expected_board(GAME, DEAL, wins[:2]))
    type_actions(rae, wins[2:3])
    wait_for_board(board, expected_board(GAME, DEAL, wins[:3]))

    # From the lobby, creating another race asks first, then resigns the running one.
    rae.goto(server.url)
    expect(mine).to_be_visible()
    dialog = NextDialog(rae, accept=True)
    second = create_race(rae, GAME, DEAL, players=2)
    assert dialog.question() == LEAVE_QUESTION
    assert second != race
    go_to_lobby(rae)  # an open race is left without a question
    expect(rae.locator("#screen-lobby")).to_be_visible()
    rae.get_by_role("button", name="Refresh").click()
    expect(rae.locator(f'#live-races [data-race="{race}"]')).to_have_count(0)
    expect(rae.locator(f'#open-races [data-race="{second}"]')).to_have_count(0)
    expect(rae.locator("#my-races li")).to_have_count(0)
