"""Once a race's deal is revealed at its end, its spectators see every racer's cards, the
face-down ones too (issue 25: a resigned racer's face-down cards stayed hidden on the
spectator's result); a race that may count shows its spectators progress only until then
(issue 33: its racers share one deal)."""

from __future__ import annotations

from browser_pages import (
    DEAL,
    GAME,
    OpenPage,
    ServerThread,
    create_race,
    player_id,
    register,
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


def test_a_race_the_server_paired_is_watched_by_its_progress_and_its_boards_come_at_its_end(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann, bob = open_page(server.url), open_page(server.url)
    for page, name in ((ann, "Ann"), (bob, "Bob")):
        sign_in(page, name)
        register(page, f"{name}_w", f"{name}'s long secret")  # accounts: a race that counts
        page.get_by_role("button", name="Race someone now at Mount Sunflower", exact=True).click()
    screen = ann.locator("#screen-race")
    expect(screen).to_have_attribute("data-phase", "running")
    race = screen.get_attribute("data-race")
    cy = open_page(server.url)
    sign_in(cy, "Cy")
    cy.goto(f"{server.url}#watch={race}")
    panel = cy.locator(f'#watch-boards [data-player="{player_id(ann)}"]')
    expect(panel.locator(".watch-held")).to_have_text("Boards shown when the race ends")
    ann.evaluate("window.solrace.screens.race.play(window.solrace.screens.race.info.you.legal[0])")
    expect(panel.locator(".watch-figures")).to_contain_text("1 actions")
    expect(cy.locator("#watch-boards .card")).to_have_count(0)
    expect(cy.locator("#watch-feed li")).to_have_count(0)
    resign(ann)
    resign(bob)
    expect(cy.locator("#watch-results")).to_be_visible()
    expect(panel.locator(".watch-held")).to_be_hidden()
    expect(panel.locator(".pile-t .card.back")).to_have_count(0)  # the deal is shown:
    expect(panel.locator(".pile-t .card.revealed")).not_to_have_count(0)  # every card
