"""What fits on a phone and a desktop beyond the walk of every page
(test_browser_pages_fit_are_accessible_and_fast.py): a fanned court card shows only its
corner under the next card, and the spectator screen, live and with its result, has no
sideways scrolling, no overlaps and no serious axe-core findings.

The set-up every browser test shares is described in tests/support/browser_pages.py; the
server of these tests has no daily deal preset.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_pages import (
    DESKTOP,
    OVERLAPS,
    PHONE,
    OpenPage,
    ServerThread,
    add_test_style,
    create_race,
    expected_board,
    my_board,
    resign,
    screenshot,
    serious_findings,
    sign_in,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import Page, expect

DAILY: dict[str, int] = {}  # this module's server has no daily deal preset (conftest)


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
    add_test_style(page, ".fan .card.face .middle { visibility: visible !important; }")
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
        findings += serious_findings(page, axe_source, name)
    assert pages == 2
    assert not findings, "\n".join(findings)
