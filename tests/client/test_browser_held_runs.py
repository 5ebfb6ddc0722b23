"""The browser tells a player plainly when their ranked run is held for a moderator (the
fair-play rule flagged it, docs/fairness.md): played here at a machine's pace, from the
keyboard, on a server that holds flagged runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from browser_pages import (
    DEAL,
    GAME,
    SETTINGS,
    OpenPage,
    ServerThread,
    register,
    sign_in,
    type_actions,
)
from harness import winning_actions
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    held = dataclasses.replace(SETTINGS, hold_flagged=True)
    with ServerThread(held, daily={GAME: DEAL}) as running:
        yield running


def test_a_ranked_run_held_for_review_says_so_where_the_result_is(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    sign_in(page, "Hal")
    register(page, "Hal_p", "Hal's long secret")
    page.get_by_role("button", name="Play today's Mount Sunflower", exact=True).click()
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(page.locator("#race-sub")).not_to_contain_text("practice")  # ranked
    type_actions(page, winning_actions(GAME, DEAL))  # all at once: a machine's pace
    expect(page.locator("#results")).to_be_visible(timeout=15_000)
    expect(page.locator("#results-rating")).to_have_text(
        "Held for review: a moderator looks at this run before it goes on the board."
    )
