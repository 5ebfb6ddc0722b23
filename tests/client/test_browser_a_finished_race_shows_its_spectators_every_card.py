"""Once a race's deal is revealed at its end, its spectators see every racer's cards, the
face-down ones too (issue 25: a resigned racer's face-down cards stayed hidden on the
spectator's result)."""

from __future__ import annotations

from browser_pages import (
    DEAL,
    GAME,
    OpenPage,
    ServerThread,
    create_race,
    player_id,
    resign,
    sign_in,
)
from playwright.sync_api import expect

from protocol.games import rules_for


def test_a_resigned_racer_s_face_down_cards_are_shown_once_the_deal_is(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann = open_page(server.url)
    sign_in(ann, "Ann")
    race = create_race(ann, GAME, DEAL, players=1)
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running")
    cy = open_page(server.url)
    sign_in(cy, "Cy")
    cy.goto(f"{server.url}#watch={race}")
    board = cy.locator(f'#watch-boards [data-player="{player_id(ann)}"] .board')
    down = sum(rules_for(GAME).start(DEAL).position.face_down)
    expect(board.locator(".pile-t .card.back")).to_have_count(down)
    resign(ann)
    expect(cy.locator("#watch-results")).to_be_visible()
    expect(board.locator(".pile-t .card.back")).to_have_count(0)
    expect(board.locator(".pile-t .card.revealed")).to_have_count(down)
