"""The browser's second pass, the parts a new player learns and feels: reduced motion and
the flips, sound off by default, every keyboard shortcut, pile names and the action box's
example in each game, each game's key move on How to play, Finish in each game family, and
the phone's fanned court cards and the spectator screen in the layout and axe-core walks.

Same real server and Debian Chromium as the other tests/client/test_browser_*.py, with the
helpers of tests/support/browser_pages.py.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from browser_pages import (
    DESKTOP,
    OVERLAPS,
    PHONE,
    SETTINGS,
    Frames,
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
    shown_board,
    sign_in,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import Page, expect

from protocol import cards
from protocol.errors import IllegalAction
from protocol.games import rules_for
from protocol.notation import parse_action
from protocol.position import Position
from protocol.race import view_json

GAMES = ["sanibel", "shady_lanes", "mount_sunflower", "mount_sunflower_easy"]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(SETTINGS, daily={}) as running:
        yield running


def state_after(game: str, deal: int, actions: list[str]) -> Any:
    rules = rules_for(game)
    state = rules.start(deal)
    for action in actions:
        state = rules.apply(state, parse_action(action)).state
    return state


def sent_actions(frames: Frames) -> list[str]:
    return [m["action"] for m in frames.sent if m["type"] == "act"]


def accept_every_dialog(page: Page) -> None:
    page.on("dialog", lambda dialog: dialog.accept())


# ====================================================================== 1. motion


ANIMATIONS = """() => document.getAnimations().map((a) => ({
  pile: a.effect?.target?.closest?.('.pile')?.dataset.pile ?? null,
  card: a.effect?.target?.dataset?.card ?? null,
  frames: a.effect.getKeyframes().map((k) => k.transform ?? '').join(' | '),
  duration: a.effect.getTiming().duration,
}))"""

PLAY_AND_LIST_ANIMATIONS = (
    """async (action) => {
  // not within 120 ms of another redraw (a standings event redraws too): the board slides
  await new Promise((done) => setTimeout(done, 700));
  await window.solrace.screens.race.play(action);
  return ("""
    + ANIMATIONS
    + ")();\n}"
)


def test_with_reduced_motion_nothing_moves_and_without_it_cards_slide_and_flip(
    server: ServerThread, open_page: OpenPage
) -> None:
    game, deal = "sanibel", 1
    move = "t9 7 t4"  # all 7 face-up cards of t9: the card under them turns face up
    assert state_after(game, deal, [move]).position.face_down[9] == 2
    seen: dict[str, dict[str, list[dict[str, Any]]]] = {}
    motions: tuple[Literal["no-preference"], Literal["reduce"]] = ("no-preference", "reduce")
    for motion in motions:
        page = open_page(server.url)
        page.emulate_media(reduced_motion=motion)
        sign_in(page, f"Mo {motion}")
        create_race(page, game, deal, players=1)
        wait_for_board(my_board(page), expected_board(game, deal, []))
        seen[motion] = {
            "move": page.evaluate(PLAY_AND_LIST_ANIMATIONS, move),
            "deal": page.evaluate(PLAY_AND_LIST_ANIMATIONS, "deal"),
        }
        wait_for_board(my_board(page), expected_board(game, deal, [move, "deal"]))
        # The win's celebration: suits fly, unless the player prefers reduced motion.
        seen[motion]["celebration"] = page.evaluate(
            """async () => {
              const { celebrate } = await import('/js/celebrate.js');
              celebrate(document.getElementById('screen-race'));
              return ("""
            + ANIMATIONS
            + ")();\n}"
        )
        expect(page.locator(".celebration-text")).to_have_text("Cleared!")
        flying = page.locator(".celebration .flying").first
        shown = flying.evaluate("(e) => getComputedStyle(e).display") != "none"
        assert shown == (motion != "reduce")

    moving = seen["no-preference"]
    # (A standings event may redraw the board while it slides: the same cards slide again.)
    flips = {(a["pile"], a["card"]) for a in moving["move"] if "rotateY" in a["frames"]}
    (revealed,) = expected_board(game, deal, [move])["t9"]["up"]
    assert flips == {("t9", revealed)}, moving["move"]  # the revealed card flips
    slides = {(a["pile"], a["card"]) for a in moving["move"] if "translate" in a["frames"]}
    moved = expected_board(game, deal, [])["t9"]["up"]
    # the 7 moved cards slide (cards that the taller pile pushes aside slide too)
    assert len(moved) == 7 and {("t4", card) for card in moved} <= slides
    assert all(a["duration"] == 120 for a in moving["move"])
    dealt = {(a["pile"], a["card"]) for a in moving["deal"] if "translate" in a["frames"]}
    dealt_card = expected_board(game, deal, [move, "deal"])["w"]
    assert ("w", dealt_card) in dealt  # the dealt card slides from the stock
    assert len(moving["celebration"]) >= 24  # the suits fly and the banner pops
    still = seen["reduce"]
    assert still == {"move": [], "deal": [], "celebration": []}


# ====================================================================== 2. sound

COUNT_TONES = """
window.__audio = { contexts: 0, tones: 0 };
const Original = window.AudioContext;
window.AudioContext = class extends Original {
  constructor(...args) { super(...args); window.__audio.contexts += 1; }
  createOscillator() { window.__audio.tones += 1; return super.createOscillator(); }
};
"""


def test_sound_is_off_by_default_and_once_switched_on_each_move_chimes(
    server: ServerThread, open_page: OpenPage
) -> None:
    game, deal = "sanibel", 1
    page = open_page(server.url)
    page.context.add_init_script(COUNT_TONES)
    page.reload()
    sign_in(page, "Sol")
    create_race(page, game, deal, players=1)
    board = my_board(page)
    wait_for_board(board, expected_board(game, deal, []))
    sound = page.get_by_label("Sound")
    expect(sound).not_to_be_checked()
    type_actions(page, ["deal", "undo"])
    wait_for_board(board, expected_board(game, deal, ["deal", "undo"]))
    assert page.evaluate("window.__audio") == {"contexts": 0, "tones": 0}  # not a sound made

    sound.check()
    type_actions(page, ["deal"])
    wait_for_board(board, expected_board(game, deal, ["deal"]))
    page.wait_for_function("window.__audio.tones >= 1")
    assert page.evaluate("window.__audio.contexts") == 1
    page.reload()  # the choice is remembered
    expect(page.get_by_label("Sound")).to_be_checked()


# ====================================================================== 3. keyboard


def test_each_shortcut_key_plays_its_action_and_the_keyboard_stays_on_the_table(
    server: ServerThread, open_page: OpenPage
) -> None:
    game, deal = "sanibel", 1
    wins = winning_actions(game, deal)
    rules = rules_for(game)
    state = rules.start(deal)
    auto_at = None  # the first position of the winning line where Auto moves a card
    for k, action in enumerate(wins):
        if (
            any(str(legal) == "auto" for legal in rules.legal_actions(state))
            and state.position.stock
        ):
            auto_at = k
            break
        state = rules.apply(state, parse_action(action)).state
    assert auto_at is not None
    page = open_page(server.url)
    frames = Frames(page)
    sign_in(page, "Key")
    create_race(page, game, deal, players=1)
    board = my_board(page)
    wait_for_board(board, expected_board(game, deal, []))
    played: list[str] = []

    def key(name: str, action: str | None) -> None:
        before = len(sent_actions(frames))
        press(page, name)
        if action is not None:
            played.append(action)
        frames.settle()
        assert sent_actions(frames)[before:] == ([action] if action else [])
        wait_for_board(board, expected_board(game, deal, played))
        assert focus_is_on_the_board(page), f"the keyboard left the table after {name}"

    keyboard_focus(page, board.locator('[data-pile="t0"] .card.face').last)
    key("d", "deal")
    key("u", "undo")
    key("s", "deal")  # s deals too
    key("u", "undo")
    key("D", "deal")  # a capital is the same key
    key("u", "undo")
    type_actions(page, wins[:auto_at])
    played += wins[:auto_at]
    wait_for_board(board, expected_board(game, deal, played), timeout=30)
    frames.settle()
    keyboard_focus(page, board.locator(".card.face").first)
    key("a", "auto")
    assert page.locator("#race-message").inner_text() == ""
    # f with nothing picked up and the game not yet finishable: nothing goes out, the page
    # says why.
    expect(page.get_by_role("button", name="Finish")).to_be_hidden()
    key("f", None)
    expect(page.locator("#race-message")).to_contain_text("Finish needs every card face up")
    # Escape drops a selection made with a pile key; the next key acts on nothing held.
    press(page, "0")
    expect(board.locator('[data-pile="t0"] .card.selected')).not_to_have_count(0)
    press(page, "Escape")
    expect(board.locator(".card.selected")).to_have_count(0)
    assert focus_is_on_the_board(page)


EXAMPLE = re.compile(r"type a move: (.+)")
PILE = re.compile(r"(t\d|f\d|r\d|w|s)")


@pytest.mark.parametrize("game", GAMES)
def test_each_game_s_action_box_example_is_valid_pile_names_are_the_notation_and_any_case_works(
    server: ServerThread, open_page: OpenPage, game: str
) -> None:
    deal = 1
    rules = rules_for(game)
    start = rules.start(deal)
    page = open_page(server.url)
    sign_in(page, f"Ty {game}")
    create_race(page, game, deal, players=1)
    board = my_board(page)
    wait_for_board(board, expected_board(game, deal, []))

    # The example: its first move is legal here, and every move names piles of this game.
    box = page.get_by_label("Action in notation")
    placeholder = box.get_attribute("placeholder") or ""
    found = EXAMPLE.fullmatch(placeholder)
    assert found, placeholder
    examples = [text.strip() for text in found.group(1).split(",")]
    legal = [str(action) for action in rules.legal_actions(start)]
    from_piles = [action for action in legal if re.match(r"[tr]\d", action)]
    if from_piles:  # the first example is a legal move of this very position
        assert examples[0] in from_piles, f"{examples[0]} is not legal at the start"
    playable = [text for text in examples if text in legal]
    assert playable, f"none of {examples} is legal at the start of {game} {deal}"
    for text in examples:
        try:
            rules.apply(start, parse_action(text))
        except IllegalAction as refusal:
            assert refusal.code != "unknown_pile", f"{game}: {text}: {refusal}"

    # Pile names: each pile shows its notation name, and only that.
    page.get_by_label("Pile names").check()
    view = view_json(rules.view(start))
    piles = [f"t{i}" for i in range(len(view["tableau"]))]
    piles += [f"f{i}" for i in range(len(view["foundations"]))]
    piles += [f"r{i}" for i in range(len(view.get("reserves", [])))]
    piles += ["s"] + (["w"] if game in ("sanibel", "shady_lanes") else [])
    names = board.locator(".pile-name")
    expect(names.first).to_be_visible()
    shown = names.evaluate_all(
        "(tags) => tags.map((t) => [t.closest('.pile').dataset.pile, t.innerText,"
        " getComputedStyle(t).display !== 'none' && t.getBoundingClientRect().width > 0])"
    )
    assert sorted(pile for pile, _, _ in shown) == sorted(piles)
    for pile, text, visible in shown:
        assert text == pile and PILE.fullmatch(text) and visible, (pile, text, visible)
    screenshot(page, f"pile-names-{game}.png")

    # The notation in any case: the example's move, Undo and Deal, typed oddly.
    odd = [playable[0].upper(), "UnDo", "DEAL"]
    type_actions(page, odd)
    wait_for_board(board, expected_board(game, deal, [playable[0], "undo", "deal"]))
    expect(page.locator("#race-message")).to_have_text("")


# ====================================================================== 4. How to play

MOVE = re.compile(r"^([tr]\d) (\d+) (t\d)\b")


@pytest.mark.parametrize("game", GAMES)
def test_each_game_s_key_move_is_shown_and_plays_the_move_its_caption_names(
    server: ServerThread, open_page: OpenPage, game: str
) -> None:
    page = open_page(server.url)
    page.goto(f"{server.url}#rules={game}")  # before signing in, as a new player may
    rules = page.locator("#rules-text")
    expect(rules.locator("h1")).to_contain_text("How to play")
    expect(page.locator("#rules-tabs [aria-current=page]")).to_have_attribute(
        "href", f"#rules={game}"
    )
    caption = rules.locator(".example figcaption").inner_text()
    found = MOVE.match(caption)
    assert found, caption
    src, count, dst = found.group(1), int(found.group(2)), found.group(3)
    example = rules.locator(".example .board")
    expect(example).to_be_visible()
    states: list[dict[str, Any]] = []
    for _ in range(100):  # the example alternates every 1.8 s: collect both positions
        board = shown_board(example)
        if board not in states:
            states.append(board)
        if len(states) == 2:
            break
        page.wait_for_timeout(100)
    assert len(states) == 2, "the key move never played"
    before, after = sorted(states, key=lambda b: len(b[dst]["up"]))  # the group arrives
    if src[0] == "r":  # a reserve's card leaves; the reserve takes the waste's top card
        assert after[dst]["up"] == [*before[dst]["up"], before[src]]
        assert after[src] == before["w"] and after["w"] != before["w"]
    else:
        moved = before[src]["up"][-count:]
        assert len(moved) == count
        assert after[dst]["up"] == before[dst]["up"] + moved
        left = before[src]["up"][:-count]
        if left or before[src]["down"] == 0:
            assert after[src] == {"down": before[src]["down"], "up": left}
        else:  # the card under the group turns face up
            assert after[src]["down"] == before[src]["down"] - 1
            assert len(after[src]["up"]) == 1
    untouched = {pile for pile in before if pile not in (src, dst, "w")}
    assert {p: before[p] for p in untouched} == {p: after[p] for p in untouched}
    assert example.locator("[role=button]").count() == 0  # shown, not played


# ====================================================================== 5. Finish


def finish_line(game: str, deal: int, actions: list[str], plan: str) -> tuple[list[str], int, bool]:
    """What Finish sends after ``actions`` by ``plan`` (as js/controls.js ``finish``): the
    actions, the count the rules give them, and whether the engine says the game is won."""
    rules = rules_for(game)
    state = state_after(game, deal, actions)
    sent: list[str] = []
    counted = 0
    for _ in range(300):
        legal = {str(action) for action in rules.legal_actions(state)}
        if plan == "deal-first" and state.position.stock:
            action = "deal"
        elif "auto" in legal:
            action = "auto"
        elif state.position.stock:
            action = "deal"
        else:
            break
        try:
            outcome = rules.apply(state, parse_action(action))
        except IllegalAction:
            return sent, counted, False
        sent.append(action)
        counted += outcome.counted
        state = outcome.state
    return sent, counted, rules.is_won(state.position)


def plans_along(page: Page, game: str, deal: int, actions: list[str]) -> list[str | None]:
    """The page's ``finishPlan`` of the engine's view before each of ``actions``."""
    rules = rules_for(game)
    state = rules.start(deal)
    views = []
    for action in actions:
        views.append(view_json(rules.view(state)))
        state = rules.apply(state, parse_action(action)).state
    plans: list[str | None] = page.evaluate(
        """async ([game, views]) => {
          const { finishPlan } = await import('/js/finish.js');
          return views.map((view) => finishPlan(game, view));
        }""",
        [game, views],
    )
    return plans


LINES = [
    ("sanibel", 1),
    ("sanibel", 2),
    ("shady_lanes", 16),
    ("shady_lanes", 27),
    ("mount_sunflower", 1),
    ("mount_sunflower", 18),
    ("mount_sunflower_easy", 1),
    ("mount_sunflower_easy", 2),
]


def test_finish_is_offered_only_where_the_engine_wins_it_whatever_the_stock_holds(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    offered = {"auto": 0, "with a stock": 0}
    for game, deal in LINES:
        wins = winning_actions(game, deal)
        plans = plans_along(page, game, deal, wins)
        for k, plan in enumerate(plans):
            if plan is None:
                continue
            state = state_after(game, deal, wins[:k])
            assert not any(state.position.face_down), (game, deal, k)
            _, _, won = finish_line(game, deal, wins[:k], plan)
            assert won, f"{game} {deal}: Finish offered after {k} actions ({plan}) does not win"
            offered["auto" if plan == "auto" else "with a stock"] += 1
    print(f"\nFinish offered: {offered}")
    assert offered["auto"] > 0 and offered["with a stock"] > 0


@pytest.mark.parametrize(
    ("game", "deal"),
    [("sanibel", 1), ("shady_lanes", 27), ("mount_sunflower", 1)],
    ids=["sanibel", "shady_lanes", "mount_sunflower"],
)
def test_finish_appears_at_the_first_position_it_wins_and_one_click_wins_it(
    server: ServerThread, open_page: OpenPage, game: str, deal: int
) -> None:
    wins = winning_actions(game, deal)
    page = open_page(server.url)
    plans = plans_along(page, game, deal, wins)
    at = next(k for k, plan in enumerate(plans) if plan)
    plan = plans[at]
    assert plan is not None
    finish_actions, finish_counted, won = finish_line(game, deal, wins[:at], plan)
    assert won
    stock = state_after(game, deal, wins[:at]).position.stock
    print(f"\n{game} {deal}: Finish from action {at} of {len(wins)}, {plan}, stock {len(stock)}")
    frames = Frames(page)
    sign_in(page, f"Fin {game}")
    create_race(page, game, deal, players=1)
    board = my_board(page)
    type_actions(page, wins[: at - 1])
    wait_for_board(board, expected_board(game, deal, wins[: at - 1]), timeout=60)
    finish = page.get_by_role("button", name="Finish")
    expect(finish).to_be_hidden()  # one action earlier it does not win by itself
    type_actions(page, wins[at - 1 : at])
    wait_for_board(board, expected_board(game, deal, wins[:at]))
    expect(finish).to_be_visible()
    frames.settle()
    before = len(sent_actions(frames))
    finish.click()
    press(page, "f")  # pressed again while it plays: nothing more is sent
    expect(page.locator("#results")).to_be_visible(timeout=30_000)
    frames.settle()
    assert sent_actions(frames)[before:] == finish_actions
    expect(page.locator("#race-message")).to_have_text("")
    cards = 104 if game in ("sanibel", "shady_lanes") else 52
    mine = page.locator("#results-body tr.me")
    expect(mine.locator("td").nth(3)).to_have_text(str(at + finish_counted))
    expect(mine.locator("td").nth(4)).to_have_text(str(cards))


# ====================================================================== 6. phone

STRAYS = """() => {
  // In a fanned pile, what of a covered card shows above the next card: only its corner.
  const strays = [];
  let courts = 0;
  for (const pile of document.querySelectorAll('#race-board .fan')) {
    const cards = [...pile.querySelectorAll('.card')];
    for (let i = 0; i + 1 < cards.length; i += 1) {
      if (!cards[i].classList.contains('face')) continue;
      if (cards[i].classList.contains('court')) courts += 1;
      const next = cards[i + 1].getBoundingClientRect().top;
      for (const part of cards[i].querySelectorAll('*')) {
        if (part.closest('.corner.top')) continue;
        const style = getComputedStyle(part);
        const box = part.getBoundingClientRect();
        if (style.visibility === 'hidden' || style.display === 'none' || !box.height) continue;
        if (box.top < next - 0.5) strays.push(`${cards[i].dataset.card} ${part.className}`);
      }
    }
  }
  return { courts, strays };
}"""


def test_a_fanned_court_card_shows_only_its_corner_on_a_phone_and_a_desktop(
    server: ServerThread, open_page: OpenPage
) -> None:
    game, deal = "sanibel", 1
    page = open_page(server.url, viewport=PHONE)
    sign_in(page, "Phoebe")
    create_race(page, game, deal, players=1)
    wait_for_board(my_board(page), expected_board(game, deal, []))
    for kind, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(250)
        found = page.evaluate(STRAYS)
        assert found["courts"] >= 3, found  # courts under other cards, on this deal
        assert found["strays"] == [], f"{kind}: {found['strays']}"
        screenshot(page, f"court-cards-{kind}.png")
    # The check sees the bar the court frame drew before: showing the middles again on a
    # phone brings their top edge into the visible strip.
    page.set_viewport_size(PHONE)
    page.add_style_tag(content=".fan .card.face .middle { visibility: visible !important; }")
    page.wait_for_timeout(100)
    assert any("middle" in stray for stray in page.evaluate(STRAYS)["strays"])


def watch_pages(
    server: ServerThread, open_page: OpenPage, viewport: dict[str, int], what: str
) -> Iterator[tuple[str, Page]]:
    """Cy watches Ann and Bob race Sanibel (long piles), then sees its result."""
    game, deal = "sanibel", 1
    wins = winning_actions(game, deal)
    ann = open_page(server.url)
    sign_in(ann, f"Ann {what}")
    race = create_race(ann, game, deal, players=2)
    bob = open_page(f"{server.url}#race={race}")
    sign_in(bob, f"Bob {what}")
    for racer in (ann, bob):
        expect(racer.locator("#screen-race")).to_have_attribute("data-phase", "running")
        type_actions(racer, wins[:2])
        wait_for_board(my_board(racer), expected_board(game, deal, wins[:2]))
    cy = open_page(server.url, viewport=viewport)
    sign_in(cy, f"Cy {what}")
    cy.goto(f"{server.url}#watch={race}")
    expect(cy.locator("#screen-watch")).to_be_visible()
    expect(cy.locator("#watch-boards .board")).to_have_count(2)
    for board in cy.locator("#watch-boards .board").all():
        wait_for_board(board, expected_board(game, deal, wins[:2]))
    yield "watch", cy
    for racer in (ann, bob):
        resign(racer)
    expect(cy.locator("#watch-results tbody tr")).to_have_count(2)
    yield "watch-result", cy


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_spectator_screen_fits_the_screen_without_overlaps_or_sideways_scrolling(
    server: ServerThread, open_page: OpenPage, viewport: dict[str, int]
) -> None:
    kind = "phone" if viewport is PHONE else "desktop"
    problems = []
    for name, page in watch_pages(server, open_page, viewport, kind):
        page.wait_for_timeout(250)
        screenshot(page, f"{name}-{kind}.png")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > viewport["width"]:
            problems.append(f"{name}: {width} px wide")
        problems += [f"{name}: {overlap}" for overlap in page.evaluate(OVERLAPS)]
    assert not problems, "\n".join(problems)


def test_the_spectator_screen_has_no_serious_accessibility_findings(
    server: ServerThread, open_page: OpenPage, axe_source: str
) -> None:
    findings = []
    pages = 0
    for name, page in watch_pages(server, open_page, DESKTOP, "axe"):
        pages += 1
        page.add_script_tag(content=axe_source)
        violations = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".filter((v) => v.impact === 'serious' || v.impact === 'critical')"
            ".map((v) => `${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes[0].target})`)"
        )
        findings += [f"{name}: {violation}" for violation in violations]
    assert pages == 2
    assert not findings, "\n".join(findings)


def foundation(suit: str, top: str) -> list[str]:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    return [rank + suit for rank in ranks[: ranks.index(top) + 1]]


def test_mount_sunflower_s_finish_deals_first_only_where_every_order_of_the_stock_wins(
    server: ServerThread, open_page: OpenPage
) -> None:
    """Made-up ends of Mount Sunflower (no solver line offers Finish there with a stock): 10
    cards left, 7 on the piles and 3 in the stock. The standard game deals only while no
    pile is empty, so Finish must deal first; Easy may send the cards home first."""
    foundations = [foundation("S", "10"), foundation("H", "10"), foundation("D", "J")]
    foundations.append(foundation("C", "J"))

    def view(piles: list[str]) -> dict[str, Any]:
        return {
            "tableau": [[card] for card in piles],
            "face_down": [0] * 7,
            "foundations": foundations,
            "waste": [],
            "stock": 3,
        }

    # Stock {JS, JH, QH}: wherever a deal puts them, each goes home before what it covers.
    forced = view(["KS", "KH", "KD", "KC", "QD", "QC", "QS"])
    # Stock {QS, KS, QH}: a deal may put the QS or the KS on the JS of t0 and bury it.
    buried = view(["JS", "KH", "KD", "KC", "QD", "QC", "JH"])
    plans = open_page(server.url).evaluate(
        """async (cases) => {
          const { finishPlan } = await import('/js/finish.js');
          return cases.map(([game, view]) => finishPlan(game, view));
        }""",
        [
            ["mount_sunflower", forced],
            ["mount_sunflower_easy", forced],
            ["mount_sunflower", buried],
            ["mount_sunflower_easy", buried],
        ],
    )
    # Standard: sending cards home first empties piles, and then no deal is allowed.
    assert plans[0] == "deal-first"
    assert plans[1] == "auto-first"  # Easy: home first, then each dealt card is alone
    assert plans[2] is None  # some orders bury the JS: no promise
    assert plans[3] == "auto-first"  # Easy sends the JS home before dealing
    # The engine agrees, for every order of the stock.
    stocks = {"forced": ["JS", "JH", "QH"], "buried": ["QS", "KS", "QH"]}
    cases = [("forced", forced), ("forced", forced), ("buried", buried), ("buried", buried)]
    games = ["mount_sunflower", "mount_sunflower_easy"] * 2
    for plan, game, (name, shown) in zip(plans, games, cases, strict=True):
        orders = list(itertools.permutations(stocks[name]))
        results = {
            strategy: [engine_wins(game, shown, list(order), strategy) for order in orders]
            for strategy in ("auto-first", "deal-first")
        }
        if plan is None:
            assert not any(all(wins) for wins in results.values()), (game, name)
        else:
            assert all(results[plan]), (game, name, plan)
    assert not all(  # the standard game's rule is why Finish deals first there
        engine_wins("mount_sunflower", forced, list(order), "auto-first")
        for order in itertools.permutations(stocks["forced"])
    )


def engine_wins(game: str, shown: dict[str, Any], stock: list[str], strategy: str) -> bool:
    """Whether the engine wins ``shown`` with ``stock`` by deals and ``auto`` alone."""
    rules = rules_for(game)
    position = Position(
        tableau=tuple(tuple(cards.parse(c) for c in pile) for pile in shown["tableau"]),
        face_down=tuple(shown["face_down"]),
        foundations=tuple(tuple(cards.parse(c) for c in pile) for pile in shown["foundations"]),
        reserves=(),
        waste=(),
        stock=tuple(cards.parse(c) for c in stock),
    )
    auto, deal = parse_action("auto"), parse_action("deal")

    def home(position: Position) -> Position:
        try:
            return rules.play(position, auto)[0]
        except IllegalAction:  # no card can go home now
            return position

    while position.stock:
        if strategy == "auto-first":
            position = home(position)
        try:
            position = rules.play(position, deal)[0]
        except IllegalAction:  # Mount Sunflower: no deal while a pile is empty
            return False
    return rules.is_won(home(position))
