"""Issue 25, watching: *Watch* shows the top live race (the most watched, then the most
racers) and goes on to the next one when it ends, with the top live races listed;
*Follow Ann* (on her board there, or *Follow their races* on her profile) watches her live
race and her next one; and the moves come as a live feed ("Ann · 1 · 8♥ t0→t1")."""

from __future__ import annotations

import re

from browser_pages import (
    DEAL,
    GAME,
    OpenPage,
    ServerThread,
    ann_and_bob_race,
    player_id,
    resign,
    sign_in,
    state_after,
    type_actions,
)
from harness import winning_actions
from playwright.sync_api import expect

from protocol.cards import name

SUITS = {"H": "♥", "D": "♦", "S": "♠", "C": "♣"}


def test_watch_shows_the_top_live_race_with_its_moves_as_they_come(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann, bob, race = ann_and_bob_race(open_page, server.url, GAME, DEAL)
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running")
    cy = open_page(server.url)
    sign_in(cy, "Cy")
    cy.get_by_role("navigation", name="Main").get_by_role("link", name="Watch").click()
    screen = cy.locator("#screen-watch")
    expect(screen).to_have_attribute("data-race", race)
    expect(cy.locator("#watch-title")).to_have_text("Top live race: Mount Sunflower")
    expect(cy.locator(f'#watch-top li[data-race="{race}"]')).to_contain_text("Ann vs Bob")

    first = winning_actions(GAME, DEAL)[0]
    src, count, dst = first.split()
    card = name(state_after(GAME, DEAL, []).position.tableau[int(src[1:])][-int(count)])
    type_actions(ann, [first])
    expect(cy.locator("#watch-feed li").first).to_have_text(
        f"Ann · 1 · {card[:-1]}{SUITS[card[-1]]} {src}→{dst}"
    )
    type_actions(bob, ["deal"])
    expect(cy.locator("#watch-feed li").first).to_have_text("Bob · 1 · deal")
    expect(cy.locator("#watch-feed li")).to_have_count(2)
    for page in (ann, bob):  # over: no live race left for the module's next test
        resign(page)


def test_a_followed_player_is_watched_race_after_race(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann, bob, race = ann_and_bob_race(open_page, server.url, GAME, DEAL)
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running")
    dee = open_page(f"{server.url}#watch={race}")
    sign_in(dee, "Dee")
    dee.get_by_role("link", name="Follow Ann").click()
    expect(dee).to_have_url(re.compile(f"#follow={player_id(ann)}$"))
    screen = dee.locator("#screen-watch")
    expect(screen).to_have_attribute("data-race", race)
    expect(dee.locator("#watch-title")).to_have_text(re.compile(r"^Following Ann: "))

    resign(ann)
    resign(bob)
    expect(screen).to_have_attribute("data-phase", "done")
    ann.get_by_role("button", name="Rematch").click()
    bob.get_by_role("button", name="Join the rematch").click()
    expect(ann.locator("#screen-race")).not_to_have_attribute("data-race", race)
    rematch = ann.locator("#screen-race").get_attribute("data-race")
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running", timeout=10_000)
    expect(screen).to_have_attribute("data-race", rematch or "", timeout=15_000)
    expect(dee.locator("#watch-title")).to_have_text(re.compile(r"^Following Ann: "))
    for page in (ann, bob):  # over: no live race left for the module's next test
        resign(page)
