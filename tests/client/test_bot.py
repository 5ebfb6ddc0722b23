"""Bots race through the real server from their own view only."""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from harness import SERVE_QUICKLY, player, running_server, url
from hypothesis import given, settings
from hypothesis import strategies as st
from redis_server import free_port

from client.bot import guess, position_from_view, run_bots
from client.views import after_action
from protocol.cards import HIDDEN, deck
from protocol.daily import DAY_MS, day_of
from protocol.games import GAMES, rules_for
from protocol.race import view_json
from protocol.race_views import race_result
from server.store import MemoryStore
from solrace.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))


async def test_two_bots_finish_a_race_against_the_real_server() -> None:
    async with running_server(countdown_ms=50) as server:
        create = {"game": "sanibel", "options": {"down": 0, "up": 10}, "deal": 1}
        results = await run_bots(url(server), ["b1", "b2"], create=create, pace_s=0)
        assert [r["outcome"] for r in results] == ["finished", "finished"]
        race_id = results[0]["race"]
        result = race_result(server.race_desk.rooms[race_id].race)
        assert [r["outcome"] for r in result["ranking"]] == ["finished", "finished"]


async def test_a_bot_wins_with_face_down_cards_it_cannot_see() -> None:
    async with running_server(countdown_ms=0) as server:
        create = {"game": "mount_sunflower_easy", "deal": 1}
        (result,) = await run_bots(url(server), ["solo"], create=create, pace_s=0, nodes=20_000)
        assert result["outcome"] == "finished" and result["progress"] == 52


async def test_bots_play_the_daily_challenge_each_on_their_own() -> None:
    store = MemoryStore()
    now = int(time.time() * 1000)
    for day in (day_of(now), day_of(now - DAY_MS)):  # bots are guests: yesterday's daily
        await store.days.set_daily_deal("mount_sunflower_easy", day, 1)
    async with running_server(store) as server:
        results = await run_bots(
            url(server), ["d1", "d2"], daily="mount_sunflower_easy", pace_s=0, nodes=20_000
        )
        outcomes = [r["outcome"] for r in results]
        assert outcomes[0] == "finished"  # seeded bots: the first one's guesses win
        assert outcomes[1] in ("finished", "resigned")  # the other may guess wrong and give up
        assert results[0]["race"] != results[1]["race"]


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from(list(GAMES)), st.integers(1, 10**6), st.lists(st.integers(0, 99), max_size=40)
)
def test_the_bot_rebuilds_its_view_and_guesses_only_unseen_cards(
    game: str, deal: int, picks: list[int]
) -> None:
    rules = rules_for(game)
    state = rules.start(deal)
    view = view_json(rules.view(state))
    for pick in picks:
        legal = rules.legal_actions(state)
        if not legal:
            break
        outcome = rules.apply(state, legal[pick % len(legal)])
        reply: dict[str, object] = {"events": [e.as_dict() for e in outcome.events]}
        state = outcome.state
        if str(legal[pick % len(legal)]) == "undo":
            reply["view"] = view_json(rules.view(state))
        view = after_action(view, reply, rules.undo_allowed)
        assert view == view_json(rules.view(state))
    masked = position_from_view(view, rules)
    assert masked == state.position.masked()
    world = guess(masked, rules, random.Random(deal))
    assert world.masked() == masked  # every visible card stays where it is
    everything = [
        c
        for group in (world.tableau, world.foundations, world.reserves, (world.waste, world.stock))
        for p in group
        for c in p
    ]
    assert HIDDEN not in everything and Counter(everything) == Counter(deck(rules.decks))


def test_the_bot_command_races_several_bots_and_reports_each() -> None:
    port = free_port()
    solrace = str(Path(sys.executable).with_name("solrace"))
    server = subprocess.Popen(
        [solrace, "serve", "--port", str(port), *SERVE_QUICKLY], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None and "serving" in server.stdout.readline()
        done = subprocess.run(
            [
                solrace,
                "bot",
                "--server",
                f"ws://127.0.0.1:{port}/ws",
                "--create",
                "sanibel",
                "--options",
                '{"down": 0, "up": 10}',
                "--deal",
                "1",
                "--count",
                "2",
                "--pace",
                "0.035",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        names = [line.split(":")[0] for line in lines]
        assert re.fullmatch(r"bot1-([0-9a-f]{4})", names[0])
        assert names[1] == "bot2-" + names[0].split("-")[1]  # numbered, one tag per command
        assert all("finished after" in line for line in lines)
    finally:
        server.terminate()
        server.wait(10)


async def test_bots_of_separate_bot_commands_get_distinct_names() -> None:
    solrace = str(Path(sys.executable).with_name("solrace"))
    async with running_server(countdown_ms=0) as server:
        host = await player(server, "Host")
        race = (await host.create_race("mount_sunflower_easy", deal=1, max_players=4))["race"]
        commands = [
            await asyncio.create_subprocess_exec(
                solrace,
                "bot",
                "--server",
                url(server),
                "--race",
                race,
                "--count",
                count,
                stdout=asyncio.subprocess.DEVNULL,
            )
            for count in ("2", "1")
        ]
        try:
            started = await host.next_event("started", timeout=30)
            names = [p["name"] for p in started.data["players"] if p["name"] != "Host"]
            assert len(names) == 3
            assert len(set(names)) == 3, names
        finally:
            for command in commands:
                command.kill()
                await command.wait()
            await host.close()


def test_a_bot_name_prefix_too_long_for_the_suffix_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["bot", "--create", "sanibel", "--name", "x" * 18])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err == "error: solrace bot: --name must be 1 to 17 printable characters\n"
