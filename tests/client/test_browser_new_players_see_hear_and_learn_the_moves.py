"""What a new player sees, hears and learns of the moves, in the browser: cards slide and
flip unless the player prefers reduced motion, sound is off by default and chimes once
switched on, every keyboard shortcut plays its action with the keyboard kept on the table,
each game's action box example is valid and its pile names are the notation (typed in any
case), and How to play shows each game's key move playing the move its caption names.

The set-up every browser test shares is described in tests/support/browser_pages.py; the
server of these tests has no daily deal preset.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest
from browser_pages import (
    Frames,
    OpenPage,
    ServerThread,
    create_race,
    expected_board,
    focus_is_on_the_board,
    keyboard_focus,
    my_board,
    press,
    screenshot,
    sent_actions,
    shown_board,
    sign_in,
    state_after,
    type_actions,
    wait_for_board,
    wait_until_true,
)
from harness import winning_actions
from playwright.sync_api import expect

from protocol.errors import IllegalAction
from protocol.games import rules_for
from protocol.notation import parse_action
from protocol.race import view_json

DAILY: dict[str, int] = {}  # this module's server has no daily deal preset (conftest)


GAMES = ["sanibel", "shady_lanes", "mount_sunflower", "mount_sunflower_easy"]


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
        expect(page.locator(".celebration .flying")).to_have_count(24)
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
    wait_until_true(page, "window.__audio.tones >= 1")
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


def test_mount_sunflower_easy_s_rules_say_what_differs_and_point_to_the_rest(
    server: ServerThread, open_page: OpenPage
) -> None:
    """Issue 25: Easy's rules repeated Mount Sunflower's but for one sentence."""
    page = open_page(server.url)
    page.goto(f"{server.url}#rules=mount_sunflower_easy")
    rules = page.locator("#rules-text")
    expect(rules.locator(".sub")).to_contain_text(
        "Mount Sunflower with one change: Deal is allowed at any time"
    )
    expect(rules).not_to_contain_text("A card goes on a card one rank higher")  # not repeated
    rules.get_by_role("link", name="Mount Sunflower", exact=True).click()
    expect(rules).to_contain_text("A card goes on a card one rank higher")
