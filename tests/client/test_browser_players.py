"""The browser client's players' part (issue 14) in a real headless Chromium against a real
race server: accounts (register, reload, sign out, sign in elsewhere, refusals), "Race
someone now" (quick pairing and its cancel), ratings in the standings and their change on
the results, the profile and its history, the lobby's mark on a daily played today, and
the ghost of the day's best run. The new views are checked with axe-core and at a phone's
width as they show."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from browser_pages import (
    AXE_SERIOUS,
    DEAL,
    GAME,
    ServerThread,
    account_form,
    add_test_script,
    expected_board,
    my_board,
    player_id,
    register,
    resign,
    screenshot,
    sign_in,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import Page, Route, expect

OpenPage = Callable[..., Page]
PHONE = {"width": 390, "height": 844}

ROOT = Path(__file__).resolve().parents[2]


def view_problems(page: Page, axe_source: str, name: str) -> list[str]:
    """axe-core's serious or critical findings on the page as it shows now, and sideways
    scrolling (wider than the window); a screenshot is saved either way."""
    page.wait_for_timeout(250)  # animations end
    screenshot(page, f"players-{name}.png")
    problems = []
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.viewport_size
    if viewport and width > viewport["width"]:
        problems.append(f"{name}: {width} px wide at {viewport['width']}")
    if not page.evaluate("typeof axe !== 'undefined'"):
        add_test_script(page, axe_source)
    problems += [f"{name}: {finding}" for finding in page.evaluate(AXE_SERIOUS)]
    return problems


def signed_in_as(page: Page, username: str) -> None:
    expect(page.locator("#account-member")).to_be_visible()
    expect(page.locator("#account-name")).to_have_text(username)
    expect(page.locator("#player-name")).to_have_text(username)
    expect(page.locator("#account-guest")).to_be_hidden()


def quick_race(page: Page, game_title: str) -> None:
    page.get_by_role("button", name=f"Race someone now at {game_title}", exact=True).click()


def race_id(page: Page) -> str:
    screen = page.locator("#screen-race")
    expect(screen).to_have_attribute("data-race", re.compile(r"\w+"))
    race = screen.get_attribute("data-race")
    assert race
    return race


def test_an_account_is_made_kept_over_a_reload_left_and_signed_into_elsewhere(
    server: ServerThread, open_page: OpenPage, axe_source: str
) -> None:
    ann = open_page(server.url, viewport=PHONE)
    sign_in(ann, "Annie")
    guest = player_id(ann)
    panel = ann.locator("#account-panel")
    expect(panel).to_contain_text("Ranked daily attempts, the all-time board and ratings")
    problems = view_problems(ann, axe_source, "lobby-guest-phone")
    # a guest's daily attempt is practice, at yesterday's deal
    ann.get_by_role("button", name="Play today's Mount Sunflower", exact=True).click()
    expect(ann.locator("#race-sub")).to_contain_text("practice")
    resign(ann)
    expect(ann.locator("#results")).to_be_visible()
    ann.locator("#results").get_by_role("link", name="Lobby").click()

    register(ann, "Ann_p", "Ann's long secret")
    signed_in_as(ann, "Ann_p")
    expect(ann.locator("#account-message")).not_to_contain_text("now counts")
    assert player_id(ann) == guest  # the guest became the account: the same player
    token = ann.evaluate("sessionStorage.getItem('solrace.token')")
    assert token == ann.evaluate("window.solrace.conn.token")
    problems += view_problems(ann, axe_source, "lobby-account-phone")

    ann.reload()
    signed_in_as(ann, "Ann_p")  # the account's token was kept
    expect(ann.locator("#connection")).to_have_attribute("data-status", "online")
    assert player_id(ann) == guest

    # a name that is taken: the server's sentence, shown
    bob = open_page(server.url)
    sign_in(bob, "Bobby")
    account_form(bob, "ANN_P", "another long secret", "Create account")
    expect(bob.locator("#account-message")).to_have_text(re.compile(r"taken", re.I))
    expect(bob.locator("#account-guest")).to_be_visible()
    # a wrong password: the same answer whether or not the account exists
    account_form(bob, "Ann_p", "not the password", "Sign in")
    expect(bob.locator("#account-message")).to_have_text("The username or the password is wrong.")
    account_form(bob, "Nobody_here", "not the password", "Sign in")
    expect(bob.locator("#account-message")).to_have_text("The username or the password is wrong.")

    # signing out forgets the token on the page and on the server
    ann.locator("#account-panel").get_by_role("button", name="Sign out").click()
    expect(ann.locator("#screen-name")).to_be_visible()
    assert ann.evaluate("sessionStorage.getItem('solrace.token')") is None

    # another context (another device) signs in: the same player
    account_form(bob, "ann_p", "Ann's long secret", "Sign in")  # any case
    signed_in_as(bob, "Ann_p")
    assert player_id(bob) == guest
    bob.reload()
    signed_in_as(bob, "Ann_p")
    assert not problems, "\n".join(problems)


def test_two_players_who_race_someone_now_meet_in_a_race_that_starts_by_itself(
    server: ServerThread, open_page: OpenPage, axe_source: str
) -> None:
    cal = open_page(server.url, viewport=PHONE)
    dot = open_page(server.url)
    for page, name in ((cal, "Cal_q"), (dot, "Dot_q")):
        sign_in(page, name)
        register(page, name, f"{name}'s long secret")
    quick_race(cal, "Mount Sunflower")
    expect(cal.locator("#quick-waiting")).to_be_visible()
    expect(cal.locator("#quick-text")).to_contain_text("Looking for a Mount Sunflower opponent")
    expect(cal.locator("#quick-elapsed")).to_have_text(re.compile(r"[1-9]\d* s"))  # it counts
    problems = view_problems(cal, axe_source, "quick-waiting-phone")
    quick_race(dot, "Mount Sunflower")

    # both are taken into one race, which counts down and starts by itself
    for page in (cal, dot):
        expect(page.locator("#screen-race")).to_be_visible()
        expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    race = race_id(cal)
    assert race_id(dot) == race
    # both are accounts: their ratings (new, so provisional) next to their names
    for page in (cal, dot):
        for name in ("Cal_q", "Dot_q"):
            standing = page.locator("#standings .standing", has_text=name)
            expect(standing.locator(".rating")).to_have_text(" 1500?")
    problems += view_problems(cal, axe_source, "race-ratings-phone")
    # a spectator sees the ratings too
    cy = open_page(f"{server.url}#watch={race}")
    sign_in(cy, "Cy")
    expect(cy.locator("#screen-watch .watch-name", has_text="Dot_q")).to_have_text("Dot_q 1500?")

    # Cal plays one action and resigns; Dot resigns having played none: an abandoned race
    # of two accounts on one address, which moves no rating (protocol/rated.py)
    cal.evaluate("window.solrace.screens.race.play(window.solrace.screens.race.info.you.legal[0])")
    expect(cal.locator("#standings .standing.me")).to_contain_text(re.compile(r"\d+/52"))
    expect(cal.locator("#clock")).not_to_have_text("0:00.0")
    resign(cal)
    resign(dot)
    for page in (cal, dot):  # and each is told so, and why (issue 32)
        expect(page.locator("#results")).to_be_visible()
        expect(page.locator("#results-rating")).to_have_text(
            "Not rated: a racer made fewer than 3 moves."
        )
    problems += view_problems(cal, axe_source, "results-phone")
    # a race the server paired offers "Play again": back in the same game's pool at once
    # (a race set up in the lobby does not: tests/client/test_browser_racers_*); and
    # "Rematch" too, as every race of two does (docs/browser.md)
    expect(cal.locator("#results").get_by_role("button", name="Rematch")).to_be_visible()
    said = " ".join((ROOT / "docs" / "browser.md").read_text().split())
    assert "Every race of two or more offers *Rematch*; a race the server paired" in said
    assert "offers *Play again* as well" in said  # as the page does: both buttons
    cal.locator("#results").get_by_role("button", name="Play again").click()
    expect(cal.locator("#screen-lobby")).to_be_visible()
    expect(cal.locator("#quick-text")).to_contain_text("Looking for a Mount Sunflower opponent")
    cal.locator("#quick-panel").get_by_role("button", name="Cancel").click()  # pool as found
    expect(cal.locator("#quick-waiting")).to_be_hidden()

    # the profile: ratings and the race in the history, whose link replays it
    cal.locator("nav.nav").get_by_role("link", name="Profile").click()
    profile = cal.locator("#screen-profile")
    expect(profile).to_have_attribute("data-ready", "true")
    expect(cal.locator("#profile-title")).to_have_text("Cal_q (you)")
    row = profile.locator('tr[data-game="mount_sunflower"]')
    expect(row).to_contain_text("—")  # no rating: the race was not rated
    expect(row).to_contain_text("0 / 1")  # one race played, and resigned: not won
    history = profile.locator(f'tr[data-race="{race}"]')
    expect(history).to_contain_text("Mount Sunflower · race")
    problems += view_problems(cal, axe_source, "profile-phone")
    # anyone opens an account's profile by its name (as its links in standings do)
    dot.goto(f"{server.url}#user=Cal_q")
    expect(dot.locator("#profile-title")).to_have_text("Cal_q")
    expect(dot.locator(f'#screen-profile tr[data-race="{race}"]')).to_be_visible()
    history.get_by_role("link", name=re.compile("Replay")).click()
    replay = cal.locator("#screen-replay")
    expect(replay).to_have_attribute("data-race", race)
    expect(replay).to_have_attribute("data-ready", "true")
    assert not problems, "\n".join(problems)


PLAYERS_PART = re.compile(r"/js/(account|quick)\.js$")


def players_part_held(page: Page) -> Callable[[], None]:
    """Hold the lobby's lazily loaded players' part (account.js, quick.js) on its way: what
    is clicked meanwhile must wait for it. Returns what lets it load."""
    held: list[Route] = []
    page.route(PLAYERS_PART, lambda route: held.append(route))

    def release() -> None:
        deadline = time.monotonic() + 5
        while len(held) < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        for route in held:
            route.continue_()

    return release


def test_a_quick_race_asked_before_its_part_has_loaded_is_not_lost(
    server: ServerThread, open_page: OpenPage
) -> None:
    gus = open_page(server.url)
    release = players_part_held(gus)
    sign_in(gus, "Gus")
    quick_race(gus, "Sanibel")  # a quick finger: the click comes before quick.js
    release()
    expect(gus.locator("#quick-waiting")).to_be_visible()
    expect(gus.locator("#quick-text")).to_contain_text("Looking for a Sanibel opponent")
    gus.locator("#quick-panel").get_by_role("button", name="Cancel").click()  # the pool as found
    expect(gus.locator("#quick-waiting")).to_be_hidden()


def test_an_account_made_before_its_part_has_loaded_is_made_in_place(
    server: ServerThread, open_page: OpenPage
) -> None:
    hal = open_page(server.url)
    release = players_part_held(hal)
    sign_in(hal, "Hal")
    account_form(hal, "hal", "a-long-password", "Create account")
    release()
    signed_in_as(hal, "hal")
    assert "password" not in hal.url  # never sent as a plain form in the address


def test_cancelling_a_quick_race_leaves_the_pool(server: ServerThread, open_page: OpenPage) -> None:
    eve = open_page(server.url)
    sign_in(eve, "Eve")
    quick_race(eve, "Shady Lanes")
    expect(eve.locator("#quick-waiting")).to_be_visible()
    # the wait shows the ratings accepted now (widening) and the pool's size
    widening = re.compile(r"^rated 1\d{3}\u20131\d{3} · 1 waiting$")  # an en dash between
    expect(eve.locator("#quick-range")).to_have_text(widening)
    expect(eve.get_by_role("button", name="Race someone now at Sanibel")).to_be_disabled()
    eve_id = player_id(eve)

    def pool() -> list[str]:
        waiting = server.call(server.store.pairing.pool("shady_lanes"))
        return [entry["player"] for entry in waiting]

    assert pool() == [eve_id]
    eve.reload()  # the tab remembers the wait: still waiting, with its Cancel
    expect(eve.locator("#quick-waiting")).to_be_visible()
    expect(eve.locator("#quick-text")).to_contain_text("Looking for a Shady Lanes opponent")
    assert player_id(eve) == eve_id and pool() == [eve_id]
    eve.locator("#quick-panel").get_by_role("button", name="Cancel").click()
    expect(eve.locator("#quick-waiting")).to_be_hidden()
    expect(eve.get_by_role("button", name="Race someone now at Sanibel")).to_be_enabled()
    deadline = time.monotonic() + 5
    while pool() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool() == []
    # someone who asks now waits alone: Eve is not taken into a race
    fay = open_page(server.url)
    sign_in(fay, "Fay")
    quick_race(fay, "Shady Lanes")
    expect(fay.locator("#quick-waiting")).to_be_visible()
    fay.wait_for_timeout(1500)
    expect(eve.locator("#screen-lobby")).to_be_visible()
    expect(fay.locator("#screen-lobby")).to_be_visible()
    assert pool() == [player_id(fay)]
    fay.locator("#quick-panel").get_by_role("button", name="Cancel").click()
    expect(fay.locator("#quick-waiting")).to_be_hidden()


def test_after_the_ranked_daily_the_lobby_marks_it_and_the_ghost_of_the_best_run_moves(
    server: ServerThread, open_page: OpenPage, axe_source: str
) -> None:
    wins = winning_actions(GAME, DEAL)  # the server's daily deal of this game, preset
    gil = open_page(server.url)
    sign_in(gil, "Gil")
    register(gil, "Gil_g", "Gil's long secret")
    daily = gil.locator("#daily-games li", has_text="Mount Sunflower").first
    expect(daily).not_to_have_class(re.compile(r"\bplayed\b"))
    gil.get_by_role("button", name="Play today's Mount Sunflower", exact=True).click()
    expect(gil.locator("#screen-race")).to_have_attribute("data-phase", "running")
    wait_for_board(my_board(gil), expected_board(GAME, DEAL, []))
    type_actions(gil, wins)
    expect(gil.locator("#results")).to_be_visible(timeout=40_000)
    ranked_race = race_id(gil)

    # the day's best is Gil's own run: its ghost runs on the practice attempt's clock
    gil.get_by_role("button", name="Race the day's best (ghost)").click()
    expect(gil.locator("#screen-race")).not_to_have_attribute("data-race", ranked_race)
    expect(gil.locator("#race-sub")).to_contain_text("practice")
    ghost = gil.locator("#ghost")
    expect(ghost).to_be_visible()
    expect(gil.locator("#ghost-name")).to_have_text("Ghost: Gil_g")
    seen = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        seen.append(int(gil.locator("#ghost-bar").get_attribute("aria-valuenow") or 0))
        if seen[-1] == 52:
            break
        gil.wait_for_timeout(100)
    assert seen[-1] == 52, f"the ghost never finished: {seen[-10:]}"
    assert seen == sorted(seen) and len(set(seen)) >= 3, seen  # it moved along, never back
    expect(gil.locator("#ghost-figures")).to_contain_text(re.compile(r"52/52 · \d+:\d\d\.\d"))
    assert my_board(gil).locator(".card.face").count() > 0  # my own cards, not the ghost's
    problems = view_problems(gil, axe_source, "ghost")
    resign(gil)
    expect(gil.locator("#results")).to_be_visible()

    # the lobby marks the daily played today
    gil.locator("#results").get_by_role("link", name="Lobby").click()
    expect(daily).to_have_class(re.compile(r"\bplayed\b"))
    expect(daily).to_contain_text("played today")
    other = gil.locator("#daily-games li", has_text="Shady Lanes")
    expect(other).not_to_have_class(re.compile(r"\bplayed\b"))
    assert not problems, "\n".join(problems)
