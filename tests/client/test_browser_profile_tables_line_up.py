"""A profile's tables line up: each heading is aligned as its column's figures are, and
"My history" stands apart from the table above it (issue 25); on a phone each table shows
all its columns, without scrolling sideways."""

from __future__ import annotations

from browser_pages import PHONE, OpenPage, ServerThread, race_alone, resign
from playwright.sync_api import Page, expect

ALIGNMENTS = """(table) => {
  const heads = [...table.querySelectorAll('thead th')].map((th) => getComputedStyle(th).textAlign);
  const row = table.querySelector('tbody tr');
  const cells = [...row.children].map((cell) => getComputedStyle(cell).textAlign);
  return { heads, cells };
}"""


def my_profile_after_a_race(page: Page, name: str) -> None:
    race_alone(page, name)
    resign(page)
    expect(page.locator("#results")).to_be_visible()
    page.locator("nav.nav").get_by_role("link", name="Profile").click()
    expect(page.locator("#screen-profile")).to_have_attribute("data-ready", "true")


def test_profile_headings_align_with_their_figures_and_my_history_stands_apart(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    my_profile_after_a_race(page, "Ivo")
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


def test_on_a_phone_every_column_of_the_profile_s_tables_shows(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url, viewport=PHONE)
    my_profile_after_a_race(page, "Pia")
    regions = page.locator("#profile-body .table-scroll")
    expect(regions).to_have_count(2)
    for index in range(2):
        hidden = regions.nth(index).evaluate("(region) => region.scrollWidth - region.clientWidth")
        assert hidden <= 0, f"table {index + 1}: {hidden} px of columns off the screen"
