"""A profile's tables line up: each heading is aligned as its column's figures are, and
"My history" stands apart from the table above it (issue 25)."""

from __future__ import annotations

from browser_pages import DEAL, GAME, OpenPage, ServerThread, create_race, resign, sign_in
from playwright.sync_api import expect

ALIGNMENTS = """(table) => {
  const heads = [...table.querySelectorAll('thead th')].map((th) => getComputedStyle(th).textAlign);
  const row = table.querySelector('tbody tr');
  const cells = [...row.children].map((cell) => getComputedStyle(cell).textAlign);
  return { heads, cells };
}"""


def test_profile_headings_align_with_their_figures_and_my_history_stands_apart(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    sign_in(page, "Ivo")
    create_race(page, GAME, DEAL, players=1)
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    resign(page)
    expect(page.locator("#results")).to_be_visible()
    page.locator("nav.nav").get_by_role("link", name="Profile").click()
    tables = page.locator("#profile-body table")
    expect(tables).to_have_count(2)
    for index in range(2):
        lined = tables.nth(index).evaluate(ALIGNMENTS)
        assert lined["heads"] == lined["cells"], lined
    history = page.locator("#profile-body h2", has_text="My history")
    gap = history.evaluate(
        "(h) => h.getBoundingClientRect().top"
        " - h.previousElementSibling.getBoundingClientRect().bottom"
    )
    assert gap >= 16, gap
