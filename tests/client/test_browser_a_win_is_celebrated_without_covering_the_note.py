"""Clearing the table is celebrated without covering what the page says: the "Cleared!"
banner was drawn over the "You finished — 1st so far" note (issue 25)."""

from __future__ import annotations

import pytest
from browser_pages import (
    DEAL,
    DESKTOP,
    GAME,
    PHONE,
    OpenPage,
    ServerThread,
    ann_and_bob_race,
    type_actions,
)
from harness import winning_actions
from playwright.sync_api import expect

BOXES = """() => {
  const box = (el) => el && !el.hidden ? el.getBoundingClientRect() : null;
  const texts = [...document.querySelectorAll('.celebration *')].filter(
    (el) => el.textContent.trim() && getComputedStyle(el).display !== 'none'
      && !el.classList.contains('flying')).map(box).filter(Boolean);
  return { note: box(document.getElementById('done-note')), texts: texts.map(
    (r) => ({ top: r.top, bottom: r.bottom, left: r.left, right: r.right })) };
}"""


def overlapping(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_cleared_banner_never_covers_the_finished_note(
    server: ServerThread, open_page: OpenPage, size: dict[str, int]
) -> None:
    ann, _, _ = ann_and_bob_race(open_page, server.url, GAME, DEAL)
    ann.set_viewport_size(size)
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running")
    type_actions(ann, winning_actions(GAME, DEAL))
    note = ann.locator("#done-note")
    expect(note).to_contain_text("Cleared! You finished", timeout=20_000)
    boxes = ann.evaluate(BOXES)
    assert not [t for t in boxes["texts"] if overlapping(t, boxes["note"])], boxes
