"""The browser client's race, played in a real headless Chromium against a real race
server: two racers to the ranking and a rematch, an illegal move refused, a finisher
told their place, a daily attempt on the leaderboards, an uncertified daily's note,
one act sent per click in race after race, and Resign's "Sure?" in a quick rematch.

The set-up every browser test shares is described in tests/support/browser_pages.py.
"""

from __future__ import annotations

import re

from browser_pages import (
    CORNER,
    DEAL,
    GAME,
    Frames,
    OpenPage,
    ServerThread,
    ann_and_bob_race,
    click_move,
    clock_ms,
    create_race,
    destination,
    expected_board,
    my_board,
    player_id,
    race_alone,
    resign,
    screenshot,
    shown_board,
    sign_in,
    source_card,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import Locator, expect

from protocol.errors import IllegalAction
from protocol.games import rules_for
from protocol.notation import parse_action

COUNTDOWN_MS = 1_500  # long enough to see the countdown on the page (conftest.py)


def an_illegal_move(game: str, deal: int, actions: list[str]) -> tuple[str, str]:
    """A one-card tableau move the rules refuse after ``actions``, and their sentence."""
    rules = rules_for(game)
    state = rules.start(deal)
    for action in actions:
        state = rules.apply(state, parse_action(action)).state
    piles = len(state.position.tableau)
    for src in range(piles):
        for dst in range(piles):
            if src == dst or not state.position.tableau[src] or not state.position.tableau[dst]:
                continue
            text = f"t{src} 1 t{dst}"
            try:
                rules.apply(state, parse_action(text))
            except IllegalAction as refusal:
                return text, refusal.message
    raise AssertionError("every one-card tableau move is legal here")


def drag_move(board: Locator, action: str) -> None:
    """Play a tableau move by dragging the card onto the pile it goes to."""
    source_card(board, action).drag_to(
        destination(board, action), source_position=CORNER, target_position=CORNER
    )


def test_two_racers_race_one_deal_to_the_end_and_both_see_the_ranking(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    ann = open_page(server.url)
    sign_in(ann, "Ann")
    race = create_race(ann, GAME, DEAL, players=2)
    expect(ann.locator("#waiting")).to_contain_text("1 of 2 players")
    share = ann.locator("#share-link").input_value()
    assert share.endswith(f"/#race={race}")

    bob = open_page(f"{server.url}?race={race}")  # a link with ?race= works as well
    sign_in(bob, "Bob")
    expect(ann.locator("#countdown")).to_be_visible()  # full: the countdown starts itself
    expect(bob.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running")
    wait_for_board(my_board(ann), expected_board(GAME, DEAL, []))
    wait_for_board(my_board(bob), expected_board(GAME, DEAL, []))

    # Ann: the first move by two clicks, the second by drag and drop, the rest typed.
    assert re.fullmatch(r"t\d 1 t\d", wins[0]) and re.fullmatch(r"t\d 1 t\d", wins[1])
    click_move(my_board(ann), wins[0])
    wait_for_board(my_board(ann), expected_board(GAME, DEAL, wins[:1]))
    drag_move(my_board(ann), wins[1])
    wait_for_board(my_board(ann), expected_board(GAME, DEAL, wins[:2]))
    screenshot(ann, "race-desktop.png")
    type_actions(ann, wins[2:])
    expect(ann.locator("#standings .standing.me")).to_have_class(
        re.compile(r"\bfinished\b"), timeout=40_000
    )
    ann_time = clock_ms(ann)
    assert ann_time > 0

    # Bob sees Ann's progress bar full, then plays the whole deal from the keyboard.
    ann_bar = bob.locator(f'#standings [data-player="{player_id(ann)}"]')
    expect(ann_bar).to_have_attribute("data-progress", "52")
    expect(ann_bar).to_contain_text(ann.locator("#clock").inner_text())
    type_actions(bob, wins)
    for page in (ann, bob):
        expect(page.locator("#results")).to_be_visible(timeout=40_000)
        rows = page.locator("#results-body tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_contain_text("Ann")
        expect(rows.nth(1)).to_contain_text("Bob")
        expect(rows.nth(0).locator(".rank")).to_have_text("1")
    expect(ann.locator("#results-title")).to_have_text("You won!")
    expect(bob.locator("#results-title")).to_have_text("You finished 2nd")
    expect(ann.locator("#again-button")).to_be_hidden()  # a lobby race: Rematch, not Play again
    seal = ann.locator("#race-seal").inner_text()  # the deal's commitment, shown throughout
    assert re.fullmatch(r"Deal sealed before play: [0-9a-f]{64}", seal)
    expect(bob.locator("#race-seal")).to_have_text(seal)
    # the proof's jargon waits behind "Check this race" (issue 25: less jargon)
    proof = ann.locator("#results-proof")
    expect(proof.get_by_text(f"solrace verify race {race}")).to_be_hidden()
    proof.get_by_text("Check this race").click()
    expect(proof.get_by_text(f"solrace verify race {race}")).to_be_visible()

    # A rematch: Ann asks, Bob is offered it and joins, and the new race counts down.
    ann.get_by_role("button", name="Rematch").click()
    expect(bob.locator("#rematch-offer")).to_contain_text("Ann offers a rematch")
    bob.get_by_role("button", name="Join the rematch").click()
    for page in (ann, bob):
        expect(page.locator("#screen-race")).not_to_have_attribute("data-race", race)
        expect(page.locator("#screen-race")).to_have_attribute(
            "data-phase", re.compile("countdown|running")
        )


def test_an_illegal_move_shows_the_servers_sentence_and_changes_nothing(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    page = open_page(server.url)
    sign_in(page, "Ida")
    create_race(page, GAME, DEAL, players=1)  # a race for one starts by itself
    board = my_board(page)
    type_actions(page, wins[:3])
    before = expected_board(GAME, DEAL, wins[:3])
    wait_for_board(board, before)
    illegal, sentence = an_illegal_move(GAME, DEAL, wins[:3])

    type_actions(page, [illegal])
    message = page.locator("#race-message")
    expect(message).to_have_text(sentence)
    assert message.get_attribute("aria-live") == "assertive"
    assert shown_board(board) == before

    # The same move by clicks is refused the same way, and the board stays as it was.
    page.get_by_label("Action in notation").fill("")
    click_move(board, illegal)
    expect(message).to_have_text(sentence)
    assert shown_board(board) == before
    # A malformed action gets the server's sentence too.
    type_actions(page, ["t3 two t5"])
    expect(message).not_to_have_text(sentence)
    expect(message).to_have_class(re.compile(r"\berror\b"))
    assert shown_board(board) == before
    # The next legal move clears the message and is applied.
    type_actions(page, wins[3:4])
    wait_for_board(board, expected_board(GAME, DEAL, wins[:4]))
    expect(message).to_have_text("")


def test_a_finished_daily_attempt_is_on_the_daily_and_all_time_boards(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)  # the server's daily deal of this game, preset
    dee = open_page(server.url)
    sign_in(dee, "Dee")
    # ranked attempts are for accounts: register on the page's own connection
    dee.evaluate(
        "window.solrace.conn.request('register', {username: 'Dee', password: 'Dee secret'})"
    )
    dee.get_by_role("button", name="Play today's Mount Sunflower", exact=True).click()
    screen = dee.locator("#screen-race")
    expect(screen).to_have_attribute("data-phase", "running")
    expect(dee.locator("#race-title")).to_have_text("Daily Mount Sunflower")
    wait_for_board(my_board(dee), expected_board(GAME, DEAL, []))
    type_actions(dee, wins)
    expect(dee.locator("#results")).to_be_visible(timeout=40_000)
    expect(dee.locator("#results-body tr")).to_have_count(1)
    expect(dee.locator("#results-proof")).to_be_hidden()  # the nonce only after the day
    seal = dee.locator("#race-seal").inner_text().removeprefix("Deal sealed before play: ")
    assert re.fullmatch(r"[0-9a-f]{64}", seal)
    time_shown = dee.locator("#results-body tr td").nth(2).inner_text()
    assert re.fullmatch(r"\d+:\d\d\.\d", time_shown)

    dee.get_by_role("link", name="Daily leaderboard").click()
    expect(dee.locator("#screen-boards")).to_be_visible()
    today = dee.locator("#daily-top tr.me")
    expect(today).to_contain_text("Dee (you)")
    expect(today).to_contain_text(time_shown)
    expect(dee.locator("#daily-me")).to_have_text(re.compile(r"Your rank: 1 of \d+"))
    expect(dee.locator("#next-day")).to_have_text(re.compile(r"\d+ (h|min|s)"))
    expect(dee.locator("#best-top tr.me")).to_contain_text("Dee (you)")
    expect(dee.locator("#board-seal")).to_contain_text(seal)  # the same seal on the board
    expect(dee.locator("#board-seal")).to_contain_text(f"solrace verify daily {GAME} ")
    screenshot(dee, "daily-board.png")


def test_every_race_in_one_tab_sends_one_act_per_click(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann = open_page(server.url)
    frames = Frames(ann)
    sign_in(ann, "Ann")
    screen = ann.locator("#screen-race")

    def one_click_sends_one_act(which: str) -> None:
        expect(screen).to_have_attribute("data-phase", "running")
        before, _ = frames.acts()
        my_board(ann).locator('[data-pile="s"]').click()
        frames.settle()
        sent = frames.acts()[0] - before
        assert sent == 1, f"{which}: one click on the stock sent {sent} act frames"

    first = create_race(ann, GAME, DEAL, players=1)
    one_click_sends_one_act("the first race")
    resign(ann)
    expect(ann.locator("#results")).to_be_visible()

    ann.get_by_role("button", name="Rematch").click()
    expect(screen).not_to_have_attribute("data-race", first)
    expect(screen).to_have_attribute("data-phase", re.compile("open|countdown|running"))
    if screen.get_attribute("data-phase") == "open":  # a rematch for one waits for its host
        ann.get_by_role("button", name="Start now").click()
    one_click_sends_one_act("the rematch")
    resign(ann)
    expect(ann.locator("#results")).to_be_visible()

    ann.locator("#results").get_by_role("link", name="Lobby").click()
    create_race(ann, GAME, DEAL, players=1)
    one_click_sends_one_act("a new race")


def test_a_finisher_is_told_their_place_and_time_and_who_still_plays(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    ann, bob, _ = ann_and_bob_race(open_page, server.url, GAME, DEAL)
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running")
    note = ann.locator("#done-note")
    expect(note).to_be_hidden()
    expect(ann.locator("#daily-note")).to_be_hidden()  # a race, not an uncertified daily

    type_actions(ann, wins)
    expect(ann.locator("#standings .standing.me")).to_have_class(
        re.compile(r"\bfinished\b"), timeout=40_000
    )
    finish_time = ann.locator("#clock").inner_text()
    assert re.fullmatch(r"\d+:\d\d\.\d", finish_time)
    expect(note).to_have_text(
        f"Cleared! You finished — 1st so far, {finish_time} — waiting for Bob"
    )
    screenshot(ann, "finished-waiting.png")

    resign(bob)  # the race is over: the ranking takes the note's place
    expect(ann.locator("#results")).to_be_visible()
    expect(note).to_be_hidden()


def test_an_uncertified_daily_deal_says_so_on_the_attempt(
    server: ServerThread, open_page: OpenPage
) -> None:
    una = open_page(server.url)
    sign_in(una, "Una")
    una.get_by_role("button", name="Play today's Mount Sunflower", exact=True).click()
    expect(una.locator("#screen-race")).to_have_attribute("data-phase", "running")
    # The test server runs without certification: the server answers certified: false.
    assert una.evaluate("window.solrace.screens.race.daily.certified") is False
    note = una.locator("#daily-note")
    expect(note).to_have_text("This deal has not been proven winnable: it may have no solution.")
    screenshot(una, "daily-uncertified.png")
    una.reload()  # the note stays with the attempt
    expect(una.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(note).to_be_visible()


def test_resign_asks_sure_for_its_full_time_in_a_rematch(
    server: ServerThread, open_page: OpenPage
) -> None:
    """A rematch begun within four seconds of resigning: the last race's "Sure?" timer
    does not take the new race's "Sure?" back early (CI found it in the follow test)."""
    ann = open_page(server.url)
    ann.clock.install()  # time flows as usual; run_for moves it on at once
    first = race_alone(ann, "Ann")
    resign(ann)
    screen = ann.locator("#screen-race")
    ann.get_by_role("button", name="Rematch").click()
    expect(screen).not_to_have_attribute("data-race", first)
    expect(screen).to_have_attribute("data-phase", re.compile("open|countdown|running"))
    if screen.get_attribute("data-phase") == "open":  # a rematch for one waits for its host
        ann.get_by_role("button", name="Start now").click()
    expect(screen).to_have_attribute("data-phase", "running")

    button = ann.locator("#resign-button")
    ann.clock.pause_at(ann.evaluate("Date.now()") + 10)  # a slow machine's moments stay out
    button.click()
    expect(button).to_have_text("Sure? Resign")
    ann.clock.run_for(3_500)  # past the first race's timer, short of this one's
    expect(button).to_have_text("Sure? Resign")
    ann.clock.run_for(1_000)
    expect(button).to_have_text("Resign")
