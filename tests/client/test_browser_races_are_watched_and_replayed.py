"""Races watched and replayed in a real headless Chromium: a spectator following a live
race, the page's replayer against the engine in every game, a finished race's replay
and its link, and a daily run whose cards stay secret until its day is over.

The set-up every browser test shares is described in tests/support/browser_pages.py.
"""

from __future__ import annotations

import re

from browser_pages import (
    DEAL,
    GAME,
    OpenPage,
    ServerThread,
    ann_and_bob_race,
    create_race,
    expected_board,
    my_board,
    player_id,
    register,
    resign,
    screenshot,
    sign_in,
    state_after,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import expect

from protocol.cards import name
from protocol.games import rules_for
from protocol.notation import parse_action
from protocol.race import view_json

SUITS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}  # as the browser writes suits


def test_a_spectator_picks_a_live_race_and_sees_every_move(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    ann = open_page(server.url)
    sign_in(ann, "Ann")
    race = create_race(ann, GAME, DEAL, players=1)
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running")
    ann_id = player_id(ann)

    cy = open_page(server.url)
    sign_in(cy, "Cy")
    cy.get_by_role("button", name="Refresh").click()
    live = cy.locator(f'#live-races [data-race="{race}"]')
    expect(live).to_contain_text("Ann")
    live.get_by_role("button", name="Watch").click()
    expect(cy.locator("#watch-spectators")).to_have_text("1 watching")
    watched = cy.locator(f'#watch-boards [data-player="{ann_id}"] .board')
    wait_for_board(watched, expected_board(GAME, DEAL, []))

    for step in range(1, 6):
        type_actions(ann, wins[step - 1 : step])
        wait_for_board(watched, expected_board(GAME, DEAL, wins[:step]))
    expect(cy.locator(f'#watch-boards [data-player="{ann_id}"] .watch-figures')).to_contain_text(
        f"last: {wins[4]}"
    )
    # An undo replaces the racer's view: the spectator's board goes back one move too.
    type_actions(ann, ["undo"])
    wait_for_board(my_board(ann), expected_board(GAME, DEAL, wins[:4]))
    wait_for_board(watched, expected_board(GAME, DEAL, wins[:4]))
    # The spectator's cards are only shown: clicking them does nothing.
    assert cy.locator("#watch-boards .card[role=button]").count() == 0
    screenshot(cy, "spectator.png")


def test_the_pages_replayer_deals_and_plays_every_game_as_the_engine_does(
    server: ServerThread, open_page: OpenPage
) -> None:
    import random

    generator = random.Random(13)
    cases = []
    for game, options, deal in [
        ("sanibel", {}, 1),
        ("sanibel", {"down": 0, "up": 10}, 31999),
        ("shady_lanes", {}, 27),
        ("shady_lanes", {}, 32000),
        ("mount_sunflower", {}, 18),
        ("mount_sunflower_easy", {}, 10**20 - 1),
    ]:
        rules = rules_for(game, options)
        state = rules.start(deal)
        actions = []
        for _ in range(200):
            legal = [str(action) for action in rules.legal_actions(state)]
            if not legal:
                break
            action = generator.choice(legal)
            state = rules.apply(state, parse_action(action)).state
            actions.append(action)
        view = view_json(rules.view(state))
        view.setdefault("reserves", [])
        view.pop("can_undo", None)
        cases.append(
            {"game": game, "options": options, "deal": str(deal), "actions": actions, "view": view}
        )
    assert any("undo" in case["actions"] for case in cases)
    assert any("auto" in case["actions"] for case in cases)
    page = open_page(server.url)
    shown = page.evaluate(
        """async (cases) => {
          const { positionsOf, viewOf } = await import('/js/replayer.js');
          return cases.map((c) => {
            const positions = positionsOf(c.game, c.options, c.deal, c.actions);
            const { can_undo, ...view } = viewOf(positions[positions.length - 1]);
            return view;
          });
        }""",
        cases,
    )
    for case, view in zip(cases, shown, strict=True):
        assert view == case["view"], f"{case['game']} deal {case['deal']}"


def test_a_finished_race_replays_to_the_same_final_position_and_its_link_opens_it_anywhere(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    ann, bob, race = ann_and_bob_race(open_page, server.url, GAME, DEAL)
    expect(bob.locator("#screen-race")).to_have_attribute("data-phase", "running")
    type_actions(bob, wins[:3])
    wait_for_board(my_board(bob), expected_board(GAME, DEAL, wins[:3]))
    type_actions(ann, wins)
    expect(ann.locator("#standings .standing.me")).to_have_class(
        re.compile(r"\bfinished\b"), timeout=30_000
    )
    resign(bob)
    expect(ann.locator("#results")).to_be_visible()

    ann.locator("#results").get_by_role("link", name="Watch the replay").click()
    replay = ann.locator("#screen-replay")
    expect(replay).to_have_attribute("data-ready", "true")
    ann_board = replay.locator(f'article[data-player="{player_id(ann)}"] .board')
    bob_board = replay.locator(f'article[data-player="{player_id(bob)}"] .board')
    expect(ann.locator("#replay-moves li")).to_have_count(len(wins) + 3)
    # moves read as a person reads them: the card moved, where from and to (Bob's first)
    src, count, dst = wins[0].split()
    moved = name(rules_for(GAME).deal(int(DEAL)).tableau[int(src[1:])][-int(count)])
    card = f"{moved[:-1]}{SUITS[moved[-1]]}"
    expect(ann.locator("#replay-moves li").first).to_contain_text(f"{card} {src}→{dst}")
    wait_for_board(ann_board, expected_board(GAME, DEAL, []))  # side by side, at the start
    wait_for_board(bob_board, expected_board(GAME, DEAL, []))
    step = ann.get_by_role("button", name="Step forward")
    for _ in range(3):
        step.click()
    played = [
        int(replay.locator(f'article[data-player="{p}"]').get_attribute("data-played") or 0)
        for p in (player_id(ann), player_id(bob))
    ]
    assert sum(played) == 3
    wait_for_board(ann_board, expected_board(GAME, DEAL, wins[: played[0]]))
    wait_for_board(bob_board, expected_board(GAME, DEAL, wins[: played[1]]))
    ann.get_by_role("button", name="To the end").click()
    wait_for_board(ann_board, expected_board(GAME, DEAL, wins))
    wait_for_board(bob_board, expected_board(GAME, DEAL, wins[:3]))
    ann.get_by_label("Seek").fill(str(len(wins) + 2))  # seek: one step before the end
    wait_for_board(ann_board, expected_board(GAME, DEAL, wins[:-1]))
    ann.get_by_label("Speed").select_option("16")
    ann.get_by_role("button", name="▶ Play").click()  # plays on from there, at 16x
    wait_for_board(ann_board, expected_board(GAME, DEAL, wins))
    expect(ann.get_by_role("button", name="▶ Play")).to_be_visible()  # stopped at the end
    link = ann.locator("#replay-result").get_by_label("Replay link").input_value()
    assert link.endswith(f"/#replay={race}")

    # The link, opened by someone else in a new browser context, opens the same replay.
    cy = open_page(link)
    sign_in(cy, "Cy")
    expect(cy.locator("#screen-replay")).to_have_attribute("data-ready", "true")
    cy.get_by_role("button", name="To the end").click()
    wait_for_board(
        cy.locator(f'#screen-replay [data-player="{player_id(ann)}"] .board'),
        expected_board(GAME, DEAL, wins),
    )
    expect(cy.locator("#replay-result tbody tr")).to_have_count(2)

    # Spectating the finished race shows its result: the table, the deal, the actions.
    cy.goto(f"{server.url}#watch={race}")
    results = cy.locator("#watch-results")
    expect(results).to_contain_text(f"Deal {DEAL}")
    rows = results.locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Ann")
    expect(rows.nth(0).locator("td").nth(3)).to_have_text(
        ann.locator("#replay-result tbody tr").nth(0).locator("td").nth(3).inner_text()
    )
    expect(rows.nth(1).locator("td").nth(3)).to_have_text("3")
    screenshot(ann, "replay-desktop.png")


def test_a_replay_outlines_the_cards_each_move_moved_and_charts_the_cards_home(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    played = wins[: wins.index("deal") + 2]  # the first deal, and the auto after it
    page = open_page(server.url)
    sign_in(page, "Rae")
    create_race(page, GAME, DEAL, players=1)
    type_actions(page, played)
    wait_for_board(my_board(page), expected_board(GAME, DEAL, played))
    resign(page)
    page.locator("#results").get_by_role("link", name="Watch the replay").click()
    replay = page.locator("#screen-replay")
    expect(replay).to_have_attribute("data-ready", "true")
    board = replay.locator(".board")
    expect(board.locator(".moved")).to_have_count(0)  # at the start, nothing has moved

    page.get_by_role("button", name="Step forward").click()
    dst = played[0].split()[2]
    expect(board.locator(".moved")).to_have_count(1)
    expect(board.locator(f'[data-pile="{dst}"] .card.face').last).to_have_class(
        re.compile(r"\bmoved\b")
    )
    deal = played.index("deal")
    before = state_after(GAME, DEAL, played[:deal]).position.tableau
    after = state_after(GAME, DEAL, played[: deal + 1]).position.tableau
    dealt = sum(len(new) - len(old) for old, new in zip(before, after, strict=True))
    page.get_by_label("Seek").fill(str(deal + 1))
    expect(board.locator(".moved")).to_have_count(dealt)  # one card on each pile dealt to

    chart = page.get_by_role("img", name="Cards home over time: Rae")
    expect(chart.locator("polyline")).to_have_count(1)
    home = len([c for pile in state_after(GAME, DEAL, played).position.foundations for c in pile])
    assert home > 0
    box = chart.bounding_box()
    assert box
    chart.click(position={"x": box["width"] - 2, "y": box["height"] / 2})  # the race's end
    expect(replay).to_have_attribute("data-step", str(len(played)))
    expect(replay.locator(".watch-figures")).to_contain_text(f"{home} cards home")


def test_a_daily_run_replays_only_once_its_deal_is_shown(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    page = open_page(server.url)
    sign_in(page, "Val")
    register(page, "Val", "Val's long secret")  # today's deal is for accounts
    page.get_by_role("button", name="Play today's Mount Sunflower", exact=True).click()
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    type_actions(page, wins[:2])
    wait_for_board(my_board(page), expected_board(GAME, DEAL, wins[:2]))
    resign(page)
    page.locator("#results").get_by_role("link", name="Watch the replay").click()
    expect(page.locator("#replay-message")).to_contain_text("stays secret until its day is over")
    expect(page.locator("#replay-moves li")).to_have_count(2)  # the moves, without the cards
    expect(page.locator("#replay-controls")).to_be_hidden()
