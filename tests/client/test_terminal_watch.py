"""The terminal client's ``solrace watch``, run as a real process against a real server on
127.0.0.1 (in the test's event loop), read through its plain output (standard output is a
pipe), the racers driven by ``client.api``: every racer's moves until the result, a race
that counts shown as progress until its end, and a dropped connection or lost moves
watched through. ``solrace play`` and ``board`` are in test_terminal.py."""

from __future__ import annotations

import re
from typing import Any

from harness import member, winning_actions
from store_loss import store_keeps_only
from terminals import DEAL, GAME, SERVERS, drop_connection_of, running_server, solrace

from client.api import Client
from client.terminal.render import board, make_console
from protocol.games import rules_for
from protocol.race import view_json
from protocol.replay import replay


def drawn(view: dict[str, Any], has_waste: bool = True) -> str:
    console = make_console(force_terminal=False)
    with console.capture() as capture:
        console.print(board(view, has_waste))
    return capture.get()


async def test_watch_shows_every_racers_moves_until_the_result() -> None:
    wins = winning_actions(GAME, DEAL)
    async with (
        running_server() as url,
        await Client.connect(url, "Ann") as ann,
        await Client.connect(url, "Bob") as bob,
    ):
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        async with solrace("watch", race, "--server", url) as watcher:
            await watcher.expect(rf"Watching race {race}: Mount Sunflower .*racers Ann")
            await bob.join_race(race)
            await ann.next_event("started")
            await watcher.expect("Started.")
            await watcher.expect(r"Ann · 0/52 home")
            for action in wins[:3]:
                await ann.act(race, action)
            await watcher.expect(rf"Ann: {re.escape(wins[0])} \(")
            await watcher.expect(rf"Ann: {re.escape(wins[2])} \(.*· 3 actions")
            await bob.resign(race)
            await watcher.expect("Bob: resigned.")
            await ann.resign(race)
            assert await watcher.finish() == 0
    rules = rules_for(GAME)
    after_three = view_json(rules.view(replay(rules, DEAL, wins[:3])))
    final_boards = watcher.output.rsplit("Ann · ", 1)[1]
    assert drawn(after_three, rules.has_waste) in final_boards
    assert re.search(r"\| \d \| Ann +\| resigned +\| +- \| +3 \|", watcher.output)
    assert re.search(r"\| \d \| Bob +\| resigned +\| +- \| +0 \|", watcher.output)


async def test_watch_shows_a_rated_race_s_progress_then_its_boards_at_the_end() -> None:
    async with (
        running_server() as url,
        await member(url, "Ann") as ann,  # two accounts the server pairs: a race that counts
        await member(url, "Bob") as bob,
    ):
        await ann.quick_race(GAME)
        await bob.quick_race(GAME)
        race = (await ann.next_event("paired")).data["race"]["race"]
        await ann.next_event("started")
        async with solrace("watch", race, "--server", url) as watcher:
            await watcher.expect(
                "A race that counts: progress only, boards shown when the race ends"
            )
            legal = (await ann.snapshot(race))["you"]["legal"]
            for _ in range(3):
                action = next(a for a in legal if a != "undo")
                legal = (await ann.act(race, action, legal=True))["legal"]
            mine = await ann.snapshot(race)
            actions = next(p["actions"] for p in mine["players"] if p["name"] == "Ann")
            await watcher.expect(rf"Ann · \d+/52 home · {actions} actions? · playing")
            final = mine["you"]["view"]
            await bob.resign(race)
            await ann.resign(race)
            assert await watcher.finish() == 0
    assert drawn(final, rules_for(GAME).has_waste) in watcher.output.rsplit("Ann · ", 1)[1]
    assert re.search(rf"\| \d \| Ann +\| resigned +\| +- \| +{actions} \|", watcher.output)


async def test_watch_spectates_again_after_the_connection_drops() -> None:
    wins = winning_actions(GAME, DEAL)
    async with running_server() as url, await Client.connect(url, "Ann") as ann:
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        await ann.act(race, wins[0])
        async with solrace("watch", race, "--server", url, "--name", "Eve") as watcher:
            await watcher.expect(r"Ann · 0/52 home · 1 action · playing")
            await drop_connection_of(url, "Eve")
            await watcher.expect("Reconnected.")
            await ann.act(race, wins[1])
            await watcher.expect(rf"Ann: {re.escape(wins[1])} \(.*· 2 actions")
            await ann.resign(race)
            assert await watcher.finish() == 0


async def test_watch_says_when_the_server_lost_moves_and_watches_the_race_as_it_is() -> None:
    wins = winning_actions(GAME, DEAL)
    async with running_server() as url, await Client.connect(url, "Ann") as ann:
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        for action in wins[:3]:
            await ann.act(race, action)
        async with solrace("watch", race, "--server", url, "--name", "Eve") as watcher:
            await watcher.expect(r"Ann · 0/52 home · 3 actions · playing")
            await store_keeps_only(SERVERS[url], ann.player, 1)
            await watcher.expect("The server lost some moves of this race.")
            await watcher.expect(r"Ann · 0/52 home · 1 action · playing")
            await ann.act(race, wins[1])
            await watcher.expect(rf"Ann: {re.escape(wins[1])} \(.*· 2 actions")
            await ann.resign(race)
            assert await watcher.finish() == 0
