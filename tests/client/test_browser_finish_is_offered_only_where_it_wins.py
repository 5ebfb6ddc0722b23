"""Finish, in the browser: it is offered only where the rules engine wins by deals and
foundation moves alone, whatever order the stock holds (along solver lines of every game,
and at made-up ends of Mount Sunflower, where it must deal first), it appears at the first
such position, and one click sends exactly the engine's actions and wins.

The set-up every browser test shares is described in tests/support/browser_pages.py; the
server of these tests has no daily deal preset.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from browser_pages import (
    Frames,
    OpenPage,
    ServerThread,
    create_race,
    expected_board,
    my_board,
    press,
    sent_actions,
    sign_in,
    state_after,
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

DAILY: dict[str, int] = {}  # this module's server has no daily deal preset (conftest)


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
