"""Issue 25, "challenge a player from their profile": Ann opens Bob's profile and
challenges him to a game; Bob, on another screen, is offered it at once and accepts; both
are in the private race for two, which starts. A declined challenge goes away, and the
challenger is told and back in the lobby; a player who turns down every challenge (on their
own profile) is not asked at all."""

from __future__ import annotations

import re

from browser_pages import (
    GAME,
    OpenPage,
    ServerThread,
    player_id,
    race_alone,
    resign,
    sign_in,
)
from playwright.sync_api import Page, expect


def with_a_past(page: Page, name: str) -> None:
    """``name`` signs in and plays a race for one (a guest has a profile once they raced)."""
    race_alone(page, name)
    resign(page)
    expect(page.locator("#results")).to_be_visible()
    page.locator("nav.nav").get_by_role("link", name="Lobby").click()


def challenge(ann: Page, bob: Page, game: str) -> None:
    ann.goto(re.sub(r"#.*", "", ann.url) + f"#player={player_id(bob)}")
    expect(ann.locator("#screen-profile")).to_have_attribute("data-ready", "true")
    ann.get_by_label("Game to challenge to").select_option(game)
    ann.get_by_role("button", name="Challenge Bob").click()


def test_a_challenge_from_a_profile_is_accepted_and_the_race_starts(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann, bob = open_page(server.url), open_page(server.url)
    sign_in(ann, "Ann")
    with_a_past(bob, "Bob")
    challenge(ann, bob, "shady_lanes")
    screen = ann.locator("#screen-race")
    expect(screen).to_have_attribute("data-phase", "open")
    expect(ann.locator("#race-title")).to_have_text("Shady Lanes")
    race = screen.get_attribute("data-race")
    offer = bob.locator("#challenge-offer")
    expect(offer).to_have_text(re.compile(r"Ann \(guest\) challenges you to Shady Lanes\."))
    offer.get_by_role("button", name="Accept").click()
    expect(offer).to_be_hidden()
    for page in (ann, bob):
        expect(page.locator("#screen-race")).to_have_attribute("data-race", race or "")
        expect(page.locator("#screen-race")).to_have_attribute(
            "data-phase", re.compile("countdown|running")
        )


def declined(ann: Page) -> None:
    """Ann is told, and back in the lobby, out of the race."""
    expect(ann.locator("#notice")).to_have_text("Bob declined your challenge.")
    expect(ann.locator("#screen-lobby")).to_be_visible()
    races = ann.evaluate("window.solrace.conn.request('my_races').then((a) => a.races)")
    assert races == []


def test_a_declined_challenge_goes_away_and_the_challenger_is_told(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann, bob = open_page(server.url), open_page(server.url)
    sign_in(ann, "Ann")
    with_a_past(bob, "Bob")
    challenge(ann, bob, GAME)
    offer = bob.locator("#challenge-offer")
    expect(offer).to_be_visible()
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "open")  # waits
    offer.get_by_role("button", name="Decline").click()
    expect(offer).to_be_hidden()
    expect(bob.locator("#screen-lobby")).to_be_visible()
    declined(ann)


def test_a_player_who_turns_down_every_challenge_is_not_asked(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann, bob = open_page(server.url), open_page(server.url)
    sign_in(ann, "Ann")
    with_a_past(bob, "Bob")
    bob.goto(re.sub(r"#.*", "", bob.url) + f"#player={player_id(bob)}")  # his own profile
    bob.get_by_label("Turn down every challenge (the challenger is told)").check()
    challenge(ann, bob, GAME)
    declined(ann)
    expect(bob.locator("#challenge-offer")).to_be_hidden()
    bob.reload()  # remembered
    expect(bob.locator("#screen-profile")).to_have_attribute("data-ready", "true")
    expect(bob.get_by_label("Turn down every challenge (the challenger is told)")).to_be_checked()
