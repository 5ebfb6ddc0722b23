"""The browser lists the games the server serves (``GET /games``, also in every welcome):
nothing in the page names them (issue 24: listed once)."""

from __future__ import annotations

from browser_pages import OpenPage, ServerThread, sign_in
from playwright.sync_api import expect

from protocol.games import GAMES


def test_the_lobby_offers_every_game_of_the_server_s_by_its_title(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    sign_in(page, "Gil")
    titles = [entry.rules.title for entry in GAMES.values()]
    expect(page.locator("#quick-games button")).to_have_text(titles)
    expect(page.locator("#create-form select[name=game] option")).to_have_text(titles)
    expect(page.locator("#daily-games .daily-title")).to_contain_text(titles)
    page.locator("#create-form select[name=game]").select_option(label="Sanibel")
    options = page.locator("#game-options")
    expect(options).to_be_visible()
    expect(options.locator("legend")).to_have_text("Sanibel layout")
    expect(options.get_by_label("Face-down rounds")).to_have_value("3")
    expect(options.get_by_label("Face-up rounds")).to_have_value("7")
    page.locator("#create-form select[name=game]").select_option(label="Shady Lanes")
    expect(options).to_be_hidden()


def test_the_rules_read_before_the_name_list_the_server_s_games(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url)
    page.goto(f"{server.url}#rules=shady_lanes")  # before signing in, as a new player may
    tabs = page.locator("#rules-tabs a")
    expect(tabs).to_have_text([entry.rules.title for entry in GAMES.values()])
    expect(page.locator("#rules-tabs a[aria-current=page]")).to_have_text("Shady Lanes")
