"""A racer in a real headless Chromium whose server's store came back with fewer of their
moves than it had accepted (tests/support/store_loss.py) is told so plainly, sees the
cards the server holds now, and plays on from them; a spectator is told too and watches
the race as it is now.

The set-up every browser test shares is described in tests/support/browser_pages.py.
"""

from __future__ import annotations

from browser_pages import (
    DEAL,
    GAME,
    OpenPage,
    ServerThread,
    expected_board,
    my_board,
    player_id,
    race_alone,
    sign_in,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import expect
from store_loss import store_keeps_only


def test_moves_the_store_lost_are_said_and_the_game_goes_on_from_the_cards_it_holds(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    page = open_page(server.url)
    race = race_alone(page, "Lou")
    lou = player_id(page)
    cy = open_page(server.url)
    sign_in(cy, "Cy")
    cy.get_by_role("button", name="Refresh").click()
    cy.locator(f'#live-races [data-race="{race}"]').get_by_role("button", name="Watch").click()
    watched = cy.locator(f'#watch-boards [data-player="{lou}"] .board')
    type_actions(page, wins[:6])
    wait_for_board(my_board(page), expected_board(GAME, DEAL, wins[:6]))
    wait_for_board(watched, expected_board(GAME, DEAL, wins[:6]))

    server.call(store_keeps_only(server.server, lou, 3))
    expect(page.locator("#race-message")).to_have_text(
        "The server lost your last 3 moves: your game goes on from the cards shown. "
        "It will not be rated or ranked."
    )
    wait_for_board(my_board(page), expected_board(GAME, DEAL, wins[:3]))
    expect(cy.locator("#watch-message")).to_have_text(
        "The server lost some moves of this race; watching again from what it holds."
    )
    wait_for_board(watched, expected_board(GAME, DEAL, wins[:3]))
    type_actions(page, wins[3:4])  # numbered above the lost ones: played
    wait_for_board(my_board(page), expected_board(GAME, DEAL, wins[:4]))
    wait_for_board(watched, expected_board(GAME, DEAL, wins[:4]))
