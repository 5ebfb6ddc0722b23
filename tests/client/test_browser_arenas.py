"""The browser's arena screens (issue 35; docs/browser.md, "Arenas") in a real headless
Chromium against a real race server running trial arenas: the list with its countdowns
ticking, a guest refused entry with the server's sentence, two accounts entering the
running arena, put in heats (the race screen, the arena's standings beside it), back to
the wait for the next heat after each, pausing, resuming and reloading; a third page
watching the standings change without entering; and at the arena's end the podium, each
entrant's place and their profile's arena lines. The entrants' pages are a desktop and a
phone: every arena screen fits the phone, and axe-core finds nothing serious on the desktop.

The set-up every browser test shares is described in tests/support/browser_pages.py.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterator

import pytest
from browser_pages import (
    OVERLAPS,
    PHONE,
    SETTINGS,
    OpenPage,
    ServerThread,
    player_id,
    register,
    resign,
    screenshot,
    serious_findings,
    sign_in,
)
from playwright.sync_api import Locator, Page, expect

from protocol.race import Now

# Trial arenas of two days (one of each game, always one running: `--arena-every-ms`):
# the running one does not end while the test runs, whenever it runs.
ARENA_EVERY_MS = 2 * 86_400_000
# Ann and Bob, alone in the arena, meet again once both have been idle this long
# (`--arena-repeat-after-ms`; 20 s by default): well over the 3 s a heat's result stays on
# the page, so Ann is back in the wait and paused before they could be paired again
REPEAT_AFTER_MS = 8_000
GAME = "sanibel"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    settings = dataclasses.replace(
        SETTINGS, arena_every_ms=ARENA_EVERY_MS, arena_repeat_after_ms=REPEAT_AFTER_MS
    )
    with ServerThread(settings, daily={}) as running:
        yield running


def the_arena_item(page: Page) -> tuple[str, Locator]:
    """The running arena of GAME in the list: its id and its list item."""
    item = page.locator(f'#arena-list li[data-status="running"][data-arena^="{GAME}-"]')
    expect(item).to_have_count(1)
    arena = item.get_attribute("data-arena")
    assert arena
    return arena, item


def open_arenas(page: Page) -> None:
    page.locator("#arenas-panel").get_by_role("link", name="See the arenas").click()
    expect(page.locator("#arena-list li").first).to_be_visible()


def member_page(open_page: OpenPage, url: str, name: str, **options: object) -> Page:
    page = open_page(url, **options)
    sign_in(page, name)
    register(page, name, f"{name}'s secret pass")
    return page


def fits_the_phone(page: Page, what: str) -> list[str]:
    """Sideways scrolling and overlaps on a phone's page, named by ``what``."""
    page.wait_for_timeout(250)  # animations end
    screenshot(page, f"arena-{what}-phone.png")
    problems = [f"{what}: {overlap}" for overlap in page.evaluate(OVERLAPS)]
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > PHONE["width"]:
        problems.append(f"{what}: {width} px wide")
    return problems


def heats_shown(page: Page) -> list[int]:
    """The heats column of the arena's standings table, as shown."""
    cells = page.locator("#arena-standings tbody tr td:nth-child(5)").all_inner_texts()
    return [int(cell) for cell in cells]


def race_a_heat(pages: list[Page], arena: str) -> None:
    """Each page is put in a heat of the arena (the race screen opens by itself), with the
    arena's standings beside the race; each resigns; each is told "next heat soon" and
    taken back to the wait for their next heat."""
    for page in pages:
        screen = page.locator("#screen-race")
        expect(screen).to_be_visible(timeout=40_000)
        expect(screen).to_have_attribute("data-phase", "running")
        expect(page.locator("#race-arena")).to_be_visible()
        expect(page.locator("#race-arena")).to_contain_text("Arena standings")
        assert page.evaluate("window.solrace.screens.race.info.arena") == arena
    for page in pages:
        resign(page)
    for page in pages:
        results = page.locator("#results")
        expect(results).to_be_visible()
        expect(page.get_by_test_id("results-arena")).to_contain_text("Next heat soon")
        expect(results).to_contain_text("Its replay opens once the arena is over")
        expect(results.get_by_role("link", name="Watch the replay")).to_have_count(0)
        expect(results.get_by_role("button", name="Rematch")).to_be_hidden()
        expect(results.get_by_role("button", name="Play again")).to_be_hidden()
    for page in pages:
        expect(page.locator("#arena-wait")).to_be_visible(timeout=10_000)
        expect(page).to_have_url(re.compile(f"#arenas={arena}$"))
        expect(page.locator("#arena-last-heat")).to_contain_text("Your last heat:")


def test_accounts_race_an_arena_a_guest_is_refused_a_watcher_sees_it_change_then_the_podium(
    server: ServerThread, open_page: OpenPage, axe_source: str
) -> None:
    findings: list[str] = []
    problems: list[str] = []

    # A guest sees the list, its countdowns ticking, and why they cannot enter.
    gus = open_page(server.url)
    sign_in(gus, "Gus")
    open_arenas(gus)
    arena, item = the_arena_item(gus)
    expect(item).to_contain_text("heats of 2")
    expect(item).to_contain_text("0 players")
    expect(item).to_contain_text("Open to accounts in good standing")
    clock = item.locator("[role=timer]")
    # "ends in 1 h 02 min 03 s"; within its last hour "ends in 31 min 27 s" (the arena
    # ends at midnight UTC every other day), within its last minute "ends in 45 s"
    expect(clock).to_have_text(re.compile(r"^ends in (\d+ h \d\d min |\d+ min )?\d\d? s$"))
    before = clock.inner_text()
    expect(clock).not_to_have_text(before, timeout=3_000)  # it ticks, every second
    item.get_by_role("button", name=re.compile("^Join")).click()
    refusal = gus.locator("#arenas-message")
    expect(refusal).to_have_text("Ranked play needs an account: register first.")
    expect(refusal).to_have_attribute("role", "alert")

    # The guest watches the standings without entering.
    item.get_by_role("button", name=re.compile("^Standings")).click()
    expect(gus).to_have_url(re.compile(f"#arenas={arena}$"))
    expect(gus.get_by_role("button", name="Stop watching")).to_be_visible()
    expect(gus.locator("#arena-standings")).to_contain_text("No heat scored yet")

    # Two accounts enter: Ann on a desktop, Bob on a phone.
    ann = member_page(open_page, server.url, "Ann")
    bob = member_page(open_page, server.url, "Bob", viewport=PHONE)
    open_arenas(ann)
    findings += serious_findings(ann, axe_source, "list")
    open_arenas(bob)
    problems += fits_the_phone(bob, "list")
    for page in (ann, bob):
        _, mine = the_arena_item(page)
        mine.get_by_role("button", name=re.compile("^Join")).click()
    for page in (ann, bob):  # a heat at once
        expect(page.locator("#screen-race")).to_be_visible(timeout=15_000)
        expect(page.locator("#race-arena")).to_be_visible()
    problems += fits_the_phone(bob, "heat")
    findings += serious_findings(ann, axe_source, "heat")
    screenshot(ann, "arena-heat-desktop.png")
    expect(ann.locator("#race-arena-lines")).to_contain_text("No heat scored yet")
    board = ann.locator(".table-wrap").bounding_box()
    beside = ann.locator("#race-arena").bounding_box()
    assert board and beside and beside["x"] >= board["x"] + board["width"]  # beside the table
    assert beside["y"] < board["y"] + board["height"]
    race_a_heat([ann, bob], arena)

    # Back in the wait, Ann pauses at once (so no heat starts while the test looks): no
    # *Pause* then, and the points stay.
    expect(ann.locator("#arena-wait-title")).to_have_text("Waiting for your next heat")
    ann.get_by_role("button", name="Pause", exact=True).click()
    expect(ann.locator("#arena-wait-title")).to_have_text("Paused")
    expect(ann.get_by_role("button", name="Pause", exact=True)).to_be_hidden()

    # The standings changed (both raced one heat), for the watcher too.
    for page in (ann, bob, gus):
        expect(page.locator("#arena-standings tbody tr")).to_have_count(2, timeout=10_000)
        assert heats_shown(page) == [1, 1]
    expect(ann.locator("#arena-standings tr.me")).to_contain_text("Ann (you)")
    findings += serious_findings(ann, axe_source, "wait")
    problems += fits_the_phone(bob, "wait")
    bob.reload()  # the tab remembers the wait, and is still put in heats
    expect(bob.locator("#arena-wait-title")).to_have_text("Waiting for your next heat")
    expect(bob.locator("#arena-standings tbody tr")).to_have_count(2)
    ann.get_by_label("Risk mode").check()  # her next heats without undo
    ann.get_by_role("button", name="Resume").click()
    expect(ann.locator("#arena-wait-title")).to_have_text("Waiting for your next heat")

    # The next heat (the two met just now: paired again after the repeat wait), its
    # standings beside it: both lines, mine said as mine.
    expect(ann.locator("#screen-race")).to_be_visible(timeout=20_000)
    expect(ann.locator("#race-arena-lines li")).to_have_count(2)
    expect(ann.locator("#race-arena-lines li.me")).to_contain_text("You")
    expect(ann.locator("#race-arena-lines")).to_contain_text("1 heat")
    assert ann.evaluate("window.solrace.screens.race.info.risk") == [player_id(ann)]
    expect(ann.get_by_role("button", name="Undo")).to_be_hidden()  # risk mode: no undo
    expect(bob.get_by_role("button", name="Undo")).to_be_visible()
    race_a_heat([ann, bob], arena)
    for page in (ann, bob, gus):
        expect(page.locator("#arena-standings tbody tr")).to_have_count(2)
        deadline = time.monotonic() + 10
        while heats_shown(page) != [2, 2]:
            assert time.monotonic() < deadline, heats_shown(page)
            page.wait_for_timeout(100)

    # The arena's end, with no heat running: the podium, each one's place, the profile.
    # Bob is in the lobby by then: a notice tells him, and his profile leads to the podium.
    bob.locator("nav.nav").get_by_role("link", name="Lobby").click()
    end_ms = int(ann.locator("#arena-sub [data-end]").get_attribute("data-end") or 0)
    assert end_ms > time.time() * 1000
    server.call(server.server.arenas.tick(Now(int(time.monotonic() * 1000), end_ms + 1)))
    placed = r"You placed (1st|2nd) of 2, 0 points\."
    expect(bob.locator("#notice")).to_have_text(
        re.compile(f"^Trial Sanibel arena is over. {placed}$"), timeout=10_000
    )
    expect(bob.locator("#screen-lobby")).to_be_visible()  # not taken away from where he is
    for page in (ann, gus):
        expect(page.locator("#arena-final")).to_be_visible(timeout=10_000)
        expect(page.locator(".podium .step")).to_have_count(2)
    expect(gus.locator("#arena-final-mine")).to_have_text("You raced no heat that counted.")
    findings += serious_findings(ann, axe_source, "podium")
    screenshot(ann, "arena-podium-desktop.png")
    ann.locator("#arena-profile").get_by_role("link", name="Your profile").click()
    bob.locator("nav.nav").get_by_role("link", name="Profile").click()
    for page in (ann, bob):
        arenas = page.locator("#profile-body").get_by_role("region", name="Arenas")
        expect(arenas.locator("tbody tr")).to_have_count(1)
        expect(arenas.locator("tbody tr")).to_contain_text(re.compile(r"(1st|2nd) of 2"))
        expect(page.locator("#profile-body [data-best]")).to_have_text(
            re.compile(r"^Best place: (1st|2nd)$")
        )
    ann.go_back()  # to the podium
    bob.locator("#profile-body").get_by_role("link", name=re.compile("^Final standings")).click()
    for page, name in ((ann, "Ann"), (bob, "Bob")):
        expect(page.locator("#arena-final")).to_be_visible()
        expect(page.locator("#arena-final-mine")).to_have_text(re.compile(f"^{placed}$"))
        expect(page.locator(".podium")).to_contain_text(name)
    problems += fits_the_phone(bob, "podium")
    assert not findings, "\n".join(findings)
    assert not problems, "\n".join(problems)


def test_an_entrant_withdraws_for_good_with_two_presses(
    server: ServerThread, open_page: OpenPage
) -> None:
    dot = member_page(open_page, server.url, "Dot")
    open_arenas(dot)
    item = dot.locator('#arena-list li[data-status="running"][data-arena^="shady_lanes-"]')
    item.get_by_role("button", name=re.compile("^Join")).click()
    wait = dot.locator("#arena-wait")
    expect(wait).to_be_visible()  # alone in it: no heat, the wait
    expect(wait).to_contain_text("You have no heat scored yet.")
    withdraw = wait.get_by_role("button", name="Withdraw")
    withdraw.click()  # the first press only asks
    expect(wait.get_by_role("button", name="Sure? Withdraw for good")).to_be_visible()
    expect(dot.locator("#arena-wait-title")).to_have_text("Waiting for your next heat")
    wait.get_by_role("button", name="Sure? Withdraw for good").click()
    expect(dot.locator("#arena-wait-title")).to_have_text("You withdrew")
    expect(wait).to_contain_text("No more heats for you in this arena; your points stay.")
    arena = dot.locator("#screen-arenas").get_attribute("data-arena") or ""
    participants = server.call(server.store.arenas.participants(arena))
    assert [(p.player, p.status) for p in participants] == [(player_id(dot), "withdrawn")]
    for name in ("Pause", "Resume", "Withdraw"):
        expect(wait.get_by_role("button", name=name, exact=True)).to_be_hidden()
    dot.get_by_role("link", name="All arenas").click()
    expect(item.get_by_role("button", name=re.compile("^Join"))).to_have_count(0)  # for good
    expect(item.get_by_role("button", name=re.compile("^Standings"))).to_be_visible()
