"""The browser client's pages in a real headless Chromium: the race screen on a phone and
a desktop, a new player who learns a game and wins it with the keyboard only, every
page without overlaps, sideways scrolling or serious axe-core findings, and the
figures of a move's animation, a redraw and the first load.

The set-up every browser test shares is described in tests/support/browser_pages.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from browser_pages import (
    DESKTOP,
    OVERLAPS,
    PHONE,
    ROOT,
    OpenPage,
    ServerThread,
    create_race,
    expected_board,
    focus_is_on_the_board,
    keyboard_focus,
    my_board,
    press,
    resign,
    screenshot,
    serious_findings,
    sign_in,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import Page, expect

from protocol.errors import IllegalAction
from protocol.games import rules_for
from protocol.notation import parse_action


def test_the_race_screen_fits_a_phone_and_labels_cards_for_screen_readers(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url, viewport=PHONE)
    sign_in(page, "Pia")
    create_race(page, "sanibel", 1, players=1)
    board = my_board(page)
    wait_for_board(board, expected_board("sanibel", 1, []))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the race screen must not scroll sideways on a phone"
    for pile in board.locator(".pile").all():
        box = pile.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]

    # Sanibel deal 1 starts with 4C on the waste and 30 face-down cards on the tableau.
    expect(board.locator('[data-pile="w"] [data-card="4C"]')).to_have_attribute(
        "aria-label", "4 of clubs"
    )
    expect(board.get_by_role("button", name="face-down card")).to_have_count(0)
    expect(board.get_by_role("img", name="face-down card")).to_have_count(30)
    queens = board.locator('[data-card^="Q"]')
    assert queens.count() > 0
    for label in queens.evaluate_all("(cards) => cards.map((c) => c.getAttribute('aria-label'))"):
        assert re.fullmatch(r"queen of (clubs|spades|hearts|diamonds)", label)
    for name in ("Deal", "Auto", "Undo", "Play", "Resign"):
        assert page.get_by_role("button", name=name, exact=True).evaluate("b => b.tagName") == (
            "BUTTON"
        )
    screenshot(page, "race-phone.png")


def test_the_desktop_race_screen_is_laid_out_as_a_card_table(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url, viewport=DESKTOP)
    sign_in(page, "Dan")
    create_race(page, "shady_lanes", 2, players=1)
    board = my_board(page)
    wait_for_board(board, expected_board("shady_lanes", 2, []))
    reserves = [board.locator(f'[data-pile="r{i}"]').bounding_box() for i in range(4)]
    tableau = [board.locator(f'[data-pile="t{i}"]').bounding_box() for i in range(4)]
    foundations = [board.locator(f'[data-pile="f{i}"]').bounding_box() for i in range(8)]
    assert all(box is not None for box in reserves + tableau + foundations)
    # Foundations in one row on top, the reserves below them, the tableau piles below those.
    assert len({round(box["y"]) for box in foundations if box}) == 1
    assert all(
        r and t and f and r["y"] > f["y"] and t["y"] > r["y"]
        for r, t, f in zip(reserves, tableau, foundations, strict=False)
    )
    screenshot(page, "shady-lanes-desktop.png")


EASY, EASY_DEAL = "mount_sunflower_easy", 2  # its winning line can be finished after 92 actions


def first_finishable(game: str, deal: int, actions: list[str]) -> tuple[int, int]:
    """How many of ``actions`` lead to the first position that foundation moves alone win
    (nothing face down, an empty stock), and how many cards ``auto`` then moves."""
    rules = rules_for(game)
    state = rules.start(deal)
    for k, action in enumerate(actions):
        position = state.position
        if not any(position.face_down) and not position.stock:
            try:
                outcome = rules.apply(state, parse_action("auto"))
            except IllegalAction:
                outcome = None
            if outcome is not None and rules.is_won(outcome.state.position):
                return k, outcome.counted
        state = rules.apply(state, parse_action(action)).state
    raise AssertionError("the line is never finishable by foundation moves alone")


def test_a_new_player_learns_a_game_from_the_page_and_wins_it_with_the_keyboard_only(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(EASY, EASY_DEAL)
    finish_at, finish_cards = first_finishable(EASY, EASY_DEAL, wins)
    page = open_page(server.url)
    expect(page.locator("header .who")).to_be_hidden()  # no "connecting…", no "Sign out" yet

    # How to play, before signing in: the rules in words and the key move, animated.
    keyboard_focus(page, page.locator("#name-form").get_by_role("link", name="How to play"))
    press(page, "Enter")
    expect(page.locator("#rules-text h1")).to_have_text("How to play Sanibel")
    expect(page.locator("#rules-text")).to_contain_text("face-down rounds and face-up rounds")
    keyboard_focus(
        page, page.locator("#rules-tabs").get_by_role("link", name="Mount Sunflower Easy")
    )
    press(page, "Enter")
    rules = page.locator("#rules-text")
    expect(rules.locator("h1")).to_have_text("How to play Mount Sunflower Easy")
    expect(rules).to_contain_text("Deal is allowed at any time")  # what differs, and
    expect(rules).to_contain_text("Everything else is as in Mount Sunflower")  # a link
    example = rules.locator(".example .board")
    expect(example.locator('[data-pile="t1"] .card.face')).to_have_count(3)  # the run arrived
    expect(example.locator('[data-pile="t1"] .card.face')).to_have_count(1)  # and plays again

    keyboard_focus(page, page.locator("nav.nav").get_by_role("link", name="Lobby"))
    press(page, "Enter")
    name = page.get_by_label("Your name")
    expect(name).to_be_focused()
    page.keyboard.type("Kim")
    press(page, "Enter")
    expect(page.locator("#connection")).to_have_attribute("data-status", "online")
    expect(page.locator("header .who")).to_be_visible()

    form = page.locator("#create-form")
    keyboard_focus(page, form.get_by_label("Game"))
    form.get_by_label("Game").select_option(EASY)  # a select's options, chosen by keys
    keyboard_focus(page, form.get_by_label("Players"))
    press(page, "Control+a")
    page.keyboard.type("1")
    keyboard_focus(page, form.get_by_label("Deal number"))
    page.keyboard.type(str(EASY_DEAL))
    press(page, "Enter")
    board = my_board(page)
    wait_for_board(board, expected_board(EASY, EASY_DEAL, []))
    expect(page.get_by_label("Action in notation")).to_have_attribute(
        "placeholder", re.compile(r"t\d 1 f, deal$")
    )

    # Pile keys: the digit picks a tableau pile's top card, the next digit is where it goes,
    # the same digit again takes one more card; the keyboard stays on the table.
    assert wins[:3] == ["t0 1 t1", "t2 1 t5", "t2 2 t5"]
    keyboard_focus(page, board.locator('[data-pile="t0"] .card.face').last)
    press(page, "0", "1")
    wait_for_board(board, expected_board(EASY, EASY_DEAL, wins[:1]))
    assert focus_is_on_the_board(page)
    press(page, "2", "5")
    wait_for_board(board, expected_board(EASY, EASY_DEAL, wins[:2]))
    press(page, "2", "2", "5")
    wait_for_board(board, expected_board(EASY, EASY_DEAL, wins[:3]))
    assert focus_is_on_the_board(page)
    press(page, "u")  # u undoes, d deals
    wait_for_board(board, expected_board(EASY, EASY_DEAL, wins[:2]))
    press(page, "2", "2", "5")
    wait_for_board(board, expected_board(EASY, EASY_DEAL, wins[:3]))

    # The rest typed in capitals: the notation is read in any case.
    box = page.get_by_label("Action in notation")
    keyboard_focus(page, box)
    page.keyboard.insert_text("; ".join(action.upper() for action in wins[3 : finish_at - 1]))
    press(page, "Enter")
    wait_for_board(board, expected_board(EASY, EASY_DEAL, wins[: finish_at - 1]), timeout=30)
    finish = page.get_by_role("button", name="Finish")
    expect(finish).to_be_hidden()  # not yet won by foundation moves alone
    page.keyboard.insert_text(wins[finish_at - 1].upper())
    press(page, "Enter")
    wait_for_board(board, expected_board(EASY, EASY_DEAL, wins[:finish_at]))
    expect(finish).to_be_visible()
    keyboard_focus(page, board.locator(".card.face").first)
    press(page, "f")  # nothing picked up: f finishes
    expect(page.locator("#results")).to_be_visible()
    expect(page.locator(".celebration")).to_have_count(1)
    mine = page.locator("#results-body tr.me")
    expect(mine.locator("td").nth(3)).to_have_text(str(finish_at + 2 + finish_cards))  # + u, redo
    expect(mine.locator("td").nth(4)).to_have_text("52")


def every_page(page: Page, width: int, what: str) -> Iterator[str]:
    """Walk one new player through every page, yielding each page's name once it shows."""
    yield "name"
    page.goto(f"{page.url.split('#')[0]}#rules=sanibel")
    expect(page.locator("#rules-text h1")).to_be_visible()
    yield "rules"
    page.goto(f"{page.url.split('#')[0]}#lobby")
    sign_in(page, f"Pat {what}")
    expect(page.locator("#daily-games li").first).to_be_visible()
    yield "lobby"
    page.locator("nav.nav").get_by_role("link", name="Leaderboards").click()
    expect(page.locator("#board-tabs .tab").first).to_be_visible()
    yield "boards"
    page.locator("nav.nav").get_by_role("link", name="Lobby").click()
    create_race(page, "sanibel", 1, players=1)
    wins = winning_actions("sanibel", 1)
    type_actions(page, wins[:2])  # two long piles of 14 cards
    wait_for_board(my_board(page), expected_board("sanibel", 1, wins[:2]))
    page.get_by_label("Pile names").check()
    yield "race"
    resign(page)
    expect(page.locator("#results")).to_be_visible()
    yield "results"
    page.locator("#results").get_by_role("link", name="Watch the replay").click()
    expect(page.locator("#screen-replay")).to_have_attribute("data-ready", "true")
    page.get_by_role("button", name="To the end").click()
    yield "replay"


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_every_page_fits_the_screen_without_overlaps_or_sideways_scrolling(
    server: ServerThread, open_page: OpenPage, viewport: dict[str, int]
) -> None:
    page = open_page(server.url, viewport=viewport)
    kind = "phone" if viewport is PHONE else "desktop"
    problems = []
    for name in every_page(page, viewport["width"], kind):
        page.wait_for_timeout(250)  # animations end
        screenshot(page, f"{name}-{kind}.png")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > viewport["width"]:
            problems.append(f"{name}: {width} px wide")
        problems += [f"{name}: {overlap}" for overlap in page.evaluate(OVERLAPS)]
        if kind == "phone" and name == "lobby":  # the daily challenge near the top
            daily = page.locator(".daily-panel").bounding_box()
            create = page.locator("#create-form").bounding_box()
            assert daily and create and daily["y"] < create["y"]
        if kind == "phone" and name in ("lobby", "race"):  # sign-out and renaming reachable
            for button in ("Sign out", "Change name"):
                expect(page.get_by_role("button", name=button)).to_be_visible()
    assert not problems, "\n".join(problems)


def test_every_page_has_no_serious_accessibility_findings(
    server: ServerThread, open_page: OpenPage, axe_source: str
) -> None:
    page = open_page(server.url)
    findings = []
    for name in every_page(page, DESKTOP["width"], "axe"):
        findings += serious_findings(page, axe_source, name)
    assert not findings, "\n".join(findings)


def test_moves_animate_quickly_a_sanibel_redraw_is_fast_and_the_first_load_is_small(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    loaded = page.evaluate(
        "performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))"
        ".filter((e) => /\\.(js|css)$/.test(new URL(e.name).pathname))"
        ".reduce((sum, e) => sum + e.decodedBodySize, 0)"
    )
    on_disk = sum(
        path.stat().st_size
        for path in (ROOT / "client" / "web").rglob("*")
        if path.suffix in (".js", ".css")
    )
    sign_in(page, "Perf")
    create_race(page, "sanibel", 1, players=1)
    wait_for_board(my_board(page), expected_board("sanibel", 1, []))
    figures = page.evaluate(
        """async () => {
          const race = window.solrace.screens.race;
          const board = race.board;
          const before = board.view;
          await race.play('t9 7 t4');
          const after = board.view;
          const slides = [];
          await new Promise((done) => setTimeout(done, 250));
          for (let i = 0; i < 5; i += 1) {
            board.render(before);
            await board.animated;
            await new Promise((done) => setTimeout(done, 250));  // not a burst: it slides
            const start = performance.now();
            board.render(after);
            await board.animated;
            slides.push(performance.now() - start);
          }
          const redraws = [];
          for (let i = 0; i < 20; i += 1) {
            board.shape = null;  // a full redraw (a new table): nothing slides
            const start = performance.now();
            board.render(after);
            board.root.getBoundingClientRect();  // and its layout
            redraws.push(performance.now() - start);
          }
          const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
          return { slide: median(slides), slideMax: Math.max(...slides),
                   redraw: median(redraws), redrawMax: Math.max(...redraws) };
        }"""
    )
    print(
        f"\nfirst load: {loaded / 1024:.1f} KiB ({loaded:,} bytes) of JS+CSS (client/web on disk: "
        f"{on_disk / 1024:.1f} KiB); a move's animation: {figures['slide']:.0f} ms median, "
        f"{figures['slideMax']:.0f} ms max; a full Sanibel redraw: {figures['redraw']:.1f} ms "
        f"median, {figures['redrawMax']:.1f} ms max"
    )
    assert loaded <= 150_000  # 150 KB, the budget, read as the smaller of KB and KiB
    assert figures["slide"] < 1000 and figures["redraw"] < 200  # loose: the figures are printed
