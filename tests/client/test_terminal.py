"""The terminal client: ``solrace play`` and ``solrace board`` run as real
processes against a real server on 127.0.0.1 (in the test's event loop), read through their
plain output (standard output is a pipe), with other racers driven by ``client.api``."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import shlex
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from harness import winning_actions
from store_loss import store_keeps_only
from terminals import (
    DEAL,
    GAME,
    PROMPT,
    SERVERS,
    SETTINGS,
    PseudoTerminal,
    an_action_that_does_not_fit,
    drop_connection_of,
    play_to_the_end,
    running_server,
    solrace,
)

from client.api import Client
from client.views import after_action
from protocol.daily import DAY_MS, day_of
from protocol.games import GAMES, rules_for
from protocol.race import view_json
from server.app import RaceServer
from server.desks.daily import DailyDeals
from server.store import MemoryStore
from solrace.cli import build_parser, main


@pytest.mark.parametrize("game", list(GAMES))
def test_a_view_kept_from_event_items_matches_the_engine_after_every_action(game: str) -> None:
    rules = rules_for(game)
    rng = random.Random(game)
    for deal in (1, 2, 3):
        state = rules.start(deal)
        view = view_json(rules.view(state))
        for _ in range(120):
            action = rng.choice(rules.legal_actions(state) or [None])
            if action is None:
                break
            outcome = rules.apply(state, action)
            state = outcome.state
            reply: dict[str, Any] = {"events": [event.as_dict() for event in outcome.events]}
            if str(action) == "undo":
                reply["view"] = view_json(rules.view(state))
            view = after_action(view, reply, rules.undo_allowed)
            assert view == view_json(rules.view(state)), (deal, str(action))


# ---------------------------------------------------------------------- play


async def test_play_races_to_the_end_by_numbers_and_notation_and_shows_the_ranking() -> None:
    wins = winning_actions(GAME, DEAL)
    async with running_server() as url, await Client.connect(url, "Bob") as bob:
        race = (await bob.create_race(GAME, deal=DEAL))["race"]
        async with solrace("play", "--server", url, "--name", "Ann", "--race", race) as ann:
            await ann.expect(r"Joined race .*racers Bob, Ann \(2/2\)")
            await bob.next_event("started")
            await ann.expect("Go!")
            await ann.expect(re.escape(PROMPT))
            assert " t0  t1  t2  t3  t4  t5  t6" in ann.output
            await bob.act(race, wins[0])  # Bob's progress reaches Ann as standings
            by_number = await play_to_the_end(ann, wins)
            await ann.expect("Waiting for the others to finish")
            await bob.resign(race)
            assert await ann.finish() == 0
    assert by_number >= 1
    assert re.search(r"\| +\| Bob +\| +0/52 \| +1 \| playing +\|", ann.output)  # his progress
    assert re.search(r"You finished in \d+:\d\d\.\d with \d+ actions", ann.output)
    assert re.search(r"\| 1 \| Ann \(you\) +\| finished +\| +\d+:\d\d\.\d \|", ann.output)
    assert re.search(r"\| 2 \| Bob +\| resigned +\| +- \| +1 \| +0/52 \|", ann.output)
    assert "You placed 1st of 2." in ann.output
    assert f"Deal number {DEAL}" in ann.output
    seal = re.search(r"Deal sealed before play: ([0-9a-f]{64})", ann.output)  # before Go!
    assert seal and seal.start() < ann.output.index("Go!")
    assert f"solrace verify race {race} --server {url}" in ann.output


async def test_play_shows_a_bot_as_a_bot_among_the_racers_and_in_the_ranking() -> None:
    async with running_server() as url, await Client.connect(url, "Robo", bot=True) as robo:
        race = (await robo.create_race(GAME, deal=DEAL))["race"]
        async with solrace("play", "--server", url, "--name", "Ann", "--race", race) as ann:
            await ann.expect(r"Joined race .*racers Robo \(bot\), Ann \(2/2\)")
            await ann.expect(re.escape(PROMPT))
            await ann.type("resign")
            await robo.resign(race)
            assert await ann.finish() == 0
    assert re.search(r"\| \d \| Robo \(bot\) +\| resigned", ann.output)


async def test_play_quick_waits_for_an_opponent_then_races() -> None:
    quick = ("play", "--name", "Ann", "--quick", GAME)
    async with (
        running_server() as url,
        await Client.connect(url, "Bob") as bob,
        solrace(*quick, "--server", url) as ann,
    ):
        await ann.expect(r"Waiting for someone to race at Mount Sunflower \(your rating 1500\)")
        await bob.quick_race(GAME)
        await ann.expect(r"Paired with Bob: race [0-9a-f]+ starts soon")
        await ann.expect("Go!")
        await ann.expect(re.escape(PROMPT))
        race = (await bob.next_event("paired")).data["race"]["race"]
        await bob.resign(race)
        await ann.type("resign")
        assert await ann.finish() == 0
    assert "You placed" in ann.output
    # and that it was not rated, and why (issue 32)
    assert "Not rated: fewer than two racers had accounts (a guest is never rated)." in ann.output


async def test_play_shows_the_sentence_of_a_refused_action_and_goes_on() -> None:
    refused, sentence = an_action_that_does_not_fit(GAME, DEAL)
    async with running_server() as url:
        args = ("play", "--server", url, "--name", "Ann", "--create", GAME, "--deal", str(DEAL))
        async with solrace(*args, "--players", "1") as ann:
            await ann.expect(re.escape(PROMPT))
            await ann.type(refused)
            found = await ann.expect(r"(.*) \[(\w+)\]")
            assert found.groups() == (sentence, "does_not_fit")
            await ann.type("99")
            await ann.expect(r"There is no action 99: choose 1 to \d+\.")
            await ann.type("1")
            await ann.expect(r"0/52 home · 1 action\b")
            await ann.type("resign")
            await ann.expect("You resigned.")
            assert await ann.finish() == 0
    assert re.search(r"\| 1 \| Ann \(you\) +\| resigned +\| +- \| +1 \|", ann.output)


async def test_play_create_prints_a_join_command_that_names_its_server_and_works() -> None:
    async with running_server() as url:
        args = ("play", "--server", url, "--name", "Ann", "--create", GAME, "--deal", str(DEAL))
        async with solrace(*args) as ann:
            found = await ann.expect(r"Others join with:  (solrace play .*)\n")
            command = shlex.split(found.group(1))
            race = command[command.index("--race") + 1]
            assert command == ["solrace", "play", "--race", race, "--server", url]
            async with solrace(*command[1:], "--name", "Bob") as bob:  # run as printed
                await bob.expect(rf"Joined race {race}: .*racers Ann, Bob \(2/2\)")
                await ann.expect("Bob joined")
                for racer in (ann, bob):
                    await racer.expect(re.escape(PROMPT))
                    await racer.type("resign")
                    await racer.expect("You resigned.")
                assert await ann.finish() == 0
                assert await bob.finish() == 0


async def test_play_without_a_name_is_player_and_a_random_suffix_not_the_login_name() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SOLRACE_NAME"}
    async with running_server() as url:
        args = ("play", "--server", url, "--create", GAME, "--players", "1")
        async with solrace(*args, env=env) as racer:
            await racer.expect(re.escape(PROMPT))
            await racer.type("resign")
            found = await racer.expect(r"\| 1 \| (\S+) \(you\) +\| resigned")
            assert await racer.finish() == 0
    assert re.fullmatch(r"Player-\d{4}", found.group(1))


def test_solrace_name_names_the_player_when_no_name_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOLRACE_NAME", "Zed")
    assert build_parser().parse_args(["play", "--daily", GAME]).name == "Zed"


async def test_play_counts_down_before_the_start() -> None:
    async with running_server(countdown_ms=1500) as url, await Client.connect(url, "Bob") as bob:
        race = (await bob.create_race(GAME, deal=DEAL))["race"]
        async with solrace("play", "--server", url, "--name", "Ann", "--race", race) as ann:
            await ann.expect(r"The race starts in 1\.\d s\.")
            await ann.expect(r"^1\.\.\.$|\n1\.\.\.\n")
            await ann.expect("Go!")
            await ann.type("resign")
            await bob.next_event("started")
            await bob.resign(race)
            assert await ann.finish() == 0


async def test_play_reconnects_and_resumes_after_the_connection_drops() -> None:
    async with running_server() as url, await Client.connect(url, "Bob") as bob:
        race = (await bob.create_race(GAME, deal=DEAL))["race"]
        async with solrace("play", "--server", url, "--name", "Ann", "--race", race) as ann:
            await ann.expect(re.escape(PROMPT))
            await ann.type("1")
            await ann.expect(r"· 1 action\b")
            await drop_connection_of(url, "Ann")
            await ann.expect("Connection lost; reconnecting...")
            await ann.expect("Reconnected.")
            await ann.expect(r"· 1 action\b")  # the race as it was, from a fresh snapshot
            await ann.type("1")
            await ann.expect(r"· 2 actions\b")
            await ann.type("resign")
            await bob.resign(race)
            assert await ann.finish() == 0
    assert re.search(r"\| \d \| Ann \(you\) +\| resigned +\| +- \| +2 \|", ann.output)


async def test_play_says_when_the_server_lost_moves_and_goes_on_from_the_cards_it_holds() -> None:
    async with running_server() as url:
        args = ("play", "--server", url, "--name", "Ann", "--create", GAME, "--deal", str(DEAL))
        async with solrace(*args, "--players", "1") as ann:
            for played in ("1 action", "2 actions", "3 actions"):
                await ann.expect(re.escape(PROMPT))
                await ann.type("1")
                await ann.expect(rf"· {played}\b")
            (player,) = SERVERS[url].sessions.by_player
            await store_keeps_only(SERVERS[url], player, 1)
            await ann.expect(
                "The server lost your last 2 moves: your game goes on from the cards "
                "shown. It will not be rated or ranked."
            )
            await ann.expect(r"· 1 action\b")  # the game as the store holds it
            await ann.type("1")
            await ann.expect(r"· 2 actions\b")  # numbered above the lost ones: played
            await ann.type("resign")
            await ann.expect("You resigned.")
            assert await ann.finish() == 0


async def test_play_on_a_terminal_colours_the_cards_and_redraws_the_screen() -> None:
    async with running_server() as url:
        args = ("play", "--server", url, "--name", "Ann", "--create", GAME, "--deal", str(DEAL))
        ann = await PseudoTerminal.open(*args, "--players", "1")
        try:
            await ann.expect(re.escape(PROMPT))
            screen = ann.output
            assert "\x1b[2J" in screen or "\x1b[H" in screen  # cleared before drawing
            assert re.search(r"\x1b\[31m10♥", screen)  # hearts in red (t5 shows 10♥)
            assert not re.search(r"\x1b\[31m4♣", screen)  # clubs not
            await ann.type("1")
            await ann.expect(r"1 action")
            await ann.type("resign")
            await ann.expect("You placed 1st of 1.")
            assert await ann.process.wait() == 0
        finally:
            ann.close()


UNPROVEN = "This deal has not been proven winnable."


def after_the_last_clear(screen: str) -> str:
    """What a person sees on a terminal: the output since the screen was last cleared."""
    return re.split(r"\x1b\[2J|\x1b\[H", screen)[-1]


async def whole_screen(terminal: PseudoTerminal) -> str:
    """The screen once drawn to its prompt: a prompt matched may be an earlier screen's, with
    the next one read only in part."""
    await terminal.expect(re.escape(PROMPT))
    while PROMPT not in after_the_last_clear(terminal.output):
        await terminal.expect(re.escape(PROMPT))
    return after_the_last_clear(terminal.output)


async def test_play_daily_on_a_terminal_says_plainly_that_the_deal_is_not_proven() -> None:
    async with running_server() as url:  # daily_certify=False: the deal is not certified
        ann = await PseudoTerminal.open("play", "--server", url, "--name", "Ann", "--daily", GAME)
        try:
            assert UNPROVEN in await whole_screen(ann)
            await ann.type("1")
            await ann.expect(r"1 action\b")
            assert UNPROVEN in await whole_screen(ann)  # still there after a redraw
            await ann.type("resign")
            await ann.expect(r"Daily board")
            assert await ann.process.wait() == 0
        finally:
            ann.close()


async def test_play_daily_says_nothing_of_proof_when_the_deal_is_certified() -> None:
    settings = dataclasses.replace(SETTINGS, daily_certify=True)
    server = RaceServer(settings, MemoryStore())
    with ThreadPoolExecutor(max_workers=1) as pool:
        proves_all = DailyDeals(server.store, settings, lambda game, deal, nodes, end: True, pool)
        server.daily = server.daily_desk.deals = proves_all
        now = int(time.time() * 1000)
        for day in (day_of(now), day_of(now - DAY_MS)):  # a guest plays yesterday's
            await proves_all.deal_for(GAME, day)  # proven already
        await server.start()
        try:
            url = f"ws://127.0.0.1:{server.port}/ws"
            async with solrace("play", "--server", url, "--name", "Ann", "--daily", GAME) as ann:
                await ann.expect(re.escape(PROMPT))
                await ann.type("resign")
                await ann.expect(r"Daily board")
                assert await ann.finish() == 0
        finally:
            await server.stop()
    assert "Daily Mount Sunflower of" in ann.output
    assert "not been proven" not in ann.output and "not proven" not in ann.output
    assert "practice on yesterday's deal" in ann.output  # a guest never sees today's


# ---------------------------------------------------------------------- board


async def test_board_lists_a_resigned_daily_attempt_and_the_time_to_the_next_day() -> None:
    async with running_server() as url:
        account = ("--account", "Cat", "--register")  # ranked attempts are accounts'
        env = {**os.environ, "SOLRACE_PASSWORD": "Cat's secret pass"}
        async with solrace("play", "--server", url, *account, "--daily", GAME, env=env) as cat:
            await cat.expect("Account Cat created; you are signed in.")
            await cat.expect(r"Daily Mount Sunflower of \d{4}-\d\d-\d\d \(ranked")
            await cat.expect(re.escape(PROMPT))
            await cat.type("1")
            await cat.expect(r"· 1 action\b")
            await cat.type("resign")
            await cat.expect(r"Daily board .* \(1 player\)")
            assert await cat.finish() == 0
        async with solrace("board", GAME, "--server", url) as board:
            assert await board.finish() == 0
        async with solrace("board", GAME, "--server", url, "--json") as as_json:
            assert await as_json.finish() == 0
    data = json.loads(as_json.output)
    # the day's deal is drawn from the server's secret: the first action may send a card home
    home = data["top"][0]["progress"]
    assert re.search(r"daily challenge of \d{4}-\d\d-\d\d \(1 player\)", board.output)
    assert re.search(rf"\| 1 \| Cat +\| +DNF \| +1 \| +{home}/52 \|", board.output), board.output
    assert re.search(r"The next daily challenge begins in \d+ (h|min|s)", board.output)
    assert f"The deal was sealed before play: {data['commitment']}" in board.output
    assert [(e["name"], e["finished"], e["actions"]) for e in data["top"]] == [("Cat", False, 1)]


async def test_play_daily_says_plainly_when_a_run_is_held_for_a_moderator() -> None:
    async with running_server(hold_flagged=True) as url:
        account = ("--account", "Dot", "--register")
        env = {**os.environ, "SOLRACE_PASSWORD": "Dot's secret pass"}
        async with solrace("play", "--server", url, *account, "--daily", GAME, env=env) as dot:
            await dot.expect(r"Daily Mount Sunflower of \d{4}-\d\d-\d\d \(ranked")
            await dot.expect(re.escape(PROMPT))
            for _ in range(21):  # typed ahead: played at a machine's pace
                await dot.type("1")
            await dot.expect(r"· 21 actions\b")
            await dot.type("resign")
            await dot.expect(
                "Held for review: a moderator looks at this run before it goes on the board."
            )
            await dot.expect(r"Daily board .* \(0 players\)")  # not on it while held
            assert await dot.finish() == 0


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "argv",
    [
        ["play"],
        ["play", "--race", "abc", "--daily", "sanibel"],
        ["play", "--create", "chess"],
        ["play", "--race", "abc", "--deal", "5"],
        ["play", "--daily", "sanibel", "--register"],
        ["play", "--create", "sanibel", "--deal", "0"],
        ["play", "--create", "sanibel", "--players", "9"],
        ["play", "--create", "sanibel", "--options", "{"],
        ["play", "--create", "sanibel", "--options", '{"down": 11}'],
        ["play", "--daily", "sanibel", "--server", "http://example.org/"],
        ["play", "--daily", "sanibel", "--name", ""],
        ["watch"],
        ["watch", "NOT-AN-ID"],
        ["board", "chess"],
        ["board", "sanibel", "--date", "2024-13-01"],
        ["board", "sanibel", "--top", "0"],
        ["board", "sanibel", "--best", "--date", "2024-01-01"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err


def test_an_unreachable_server_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["board", "sanibel", "--server", "ws://127.0.0.1:9/ws"])
    out, err = capsys.readouterr()
    assert status == 1
    assert out == ""
    assert re.fullmatch(r"solrace: cannot reach the server at ws://127\.0\.0\.1:9/ws: .*\n", err)
