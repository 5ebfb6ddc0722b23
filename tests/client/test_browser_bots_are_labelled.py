"""A bot is labelled in the browser: a real headless Chromium races a real ``solrace bot``
process, and the bot's name says "(bot)" in the standings and in the ranking."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from browser_pages import DEAL, GAME, OpenPage, ServerThread, create_race, resign, sign_in
from playwright.sync_api import expect

SOLRACE = str(Path(sys.executable).with_name("solrace"))


def test_a_bot_racing_a_person_is_labelled_in_the_standings_and_the_ranking(
    server: ServerThread, open_page: OpenPage
) -> None:
    ann = open_page(server.url)
    sign_in(ann, "Ann")
    race = create_race(ann, GAME, DEAL, players=2)
    websocket = server.url.replace("http://", "ws://") + "ws"
    bot = subprocess.Popen(
        [SOLRACE, "bot", "--server", websocket, "--race", race, "--name", "Robo", "--pace", "0.05"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        standings = ann.locator("#standings")
        expect(standings).to_contain_text("(bot)", timeout=20_000)
        expect(standings).to_contain_text("Ann (you)")
        resign(ann)  # the bot plays on to its end: then the ranking
        expect(ann.locator("#results")).to_contain_text("(bot)", timeout=60_000)
    finally:
        bot.kill()
        bot.wait()
