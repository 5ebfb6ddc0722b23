"""Issue 25, "a card-back and theme choice; bigger cards on wide screens": the card back
and the table's colour are chosen under the table and remembered; a wide, tall screen
deals bigger cards than a laptop's."""

from __future__ import annotations

from browser_pages import OpenPage, ServerThread, my_board, race_alone
from playwright.sync_api import expect

BACK = "(root) => getComputedStyle(root.querySelector('.card.back')).backgroundColor"
FELT = "() => getComputedStyle(document.documentElement).getPropertyValue('--felt').trim()"
CARD_WIDTH = "(root) => root.querySelector('.card').getBoundingClientRect().width"


def test_the_card_back_and_the_table_are_chosen_and_remembered(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    race_alone(page, "Lou")
    board = my_board(page)
    assert board.evaluate(BACK) == "rgb(29, 63, 143)"  # blue, at first
    assert page.evaluate(FELT) == "#1f7040"  # green
    page.get_by_label("Card back").select_option("red")
    page.get_by_label("Table colour").select_option("grey")
    assert board.evaluate(BACK) == "rgb(155, 28, 44)"
    assert page.evaluate(FELT) == "#3c454e"
    page.reload()  # the race resumes, in the look chosen
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(page.get_by_label("Card back")).to_have_value("red")
    assert board.evaluate(BACK) == "rgb(155, 28, 44)"
    assert page.evaluate(FELT) == "#3c454e"


def test_a_wide_screen_deals_bigger_cards_than_a_laptop(
    server: ServerThread, open_page: OpenPage
) -> None:
    widths = {}
    for size in ({"width": 1280, "height": 800}, {"width": 1920, "height": 1080}):
        page = open_page(server.url, viewport=size)
        race_alone(page, f"W{size['width']}")
        widths[size["width"]] = my_board(page).evaluate(CARD_WIDTH)
    assert widths[1280] <= 96 < 120 <= widths[1920], widths
