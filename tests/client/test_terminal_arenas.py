"""Arenas in the terminal: ``solrace arena list`` shows each game's arena with its
countdown, ``solrace play --arena`` enters one and races the heats it is put in (``quit``
withdraws), ``solrace arena standings`` and ``watch`` show the standings. Real processes
against a real server (trial arenas of an hour), the other entrant driven by
``client.api``."""

from __future__ import annotations

import json
import os
import re

from harness import member
from terminals import running_server, solrace

from client.api import Client

HOUR_MS = 3_600_000
GAME = "sanibel"


async def test_arena_list_shows_each_game_s_arena_running_with_the_time_left() -> None:
    async with running_server(arena_every_ms=HOUR_MS) as url:
        async with solrace("arena", "list", "--server", url) as listing:
            assert await listing.finish() == 0
        async with solrace("arena", "list", GAME, "--server", url, "--json") as as_json:
            assert await as_json.finish() == 0
    assert re.search(r"sanibel-trial-\d{8}T\d{4} .*running, ends in \d+", listing.output)
    assert re.search(r"shady_lanes-trial-\d{8}T\d{4}", listing.output), listing.output
    listed = json.loads(as_json.output)
    assert {arena["game"] for arena in listed} == {GAME}
    assert [arena["status"] for arena in listed][:2] == ["running", "scheduled"]


async def test_play_arena_races_a_heat_and_quit_withdraws_then_standings_show_it() -> None:
    async with running_server(arena_every_ms=HOUR_MS, sweep_every_s=0.2) as url:
        bob = await member(url, "Bob")
        arena = next(a["id"] for a in await bob.list_arenas(GAME) if a["status"] == "running")
        await bob.join_arena(arena)
        account = ("--account", "Cat", "--register")
        env = {**os.environ, "SOLRACE_PASSWORD": "Cat's secret pass"}
        async with solrace("play", "--server", url, *account, "--arena", arena, env=env) as cat:
            await cat.expect(rf"You are in Trial Sanibel arena \({arena}\)")
            await cat.expect(r"Your heat: race [0-9a-f]+ starts soon")
            heat = (await bob.next_event("paired", timeout=15)).data["race"]["race"]
            await bob.next_event("started")
            await bob.resign(heat)
            await cat.type("quit")
            await cat.expect(r"You withdrew from Trial Sanibel arena; your points stay")
            assert await cat.finish() == 0
        await wait_for_a_scored_heat(bob, arena)
        async with solrace("arena", "standings", arena, "--server", url) as standings:
            assert await standings.finish() == 0
        await bob.close()
    assert re.search(rf"{arena}: standings \(2 players\)", standings.output), standings.output
    rows = re.findall(r"[│|] (\d) +[│|] (Bob|Cat) +[│|] 0 +[│|] 1 +[│|] 0 ", standings.output)
    assert sorted(rows) == [("1", "Cat"), ("2", "Bob")] or sorted(rows) == [
        ("1", "Bob"),
        ("2", "Cat"),
    ]


async def wait_for_a_scored_heat(client: Client, arena: str) -> None:
    """Until ``client`` is told standings where a heat counted: a withdrawal also lengthens the
    arena's log, and may be told first."""
    await client.next_event(
        "arena_standings",
        timeout=15,
        where=lambda d: d["arena"] == arena and any(line["heats"] for line in d["top"]),
    )


async def test_play_arena_with_risk_races_its_heats_in_risk_mode() -> None:
    async with running_server(arena_every_ms=HOUR_MS, sweep_every_s=0.2) as url:
        bob = await member(url, "Bob")
        arena = next(a["id"] for a in await bob.list_arenas(GAME) if a["status"] == "running")
        await bob.join_arena(arena)
        account = ("--account", "Cat", "--register", "--risk")
        env = {**os.environ, "SOLRACE_PASSWORD": "Cat's secret pass"}
        async with solrace("play", "--server", url, *account, "--arena", arena, env=env) as cat:
            await cat.expect(r"Your heat: race [0-9a-f]+ starts soon")
            heat = (await bob.next_event("paired", timeout=15)).data["race"]
            (cat_id,) = [p["player"] for p in heat["players"] if p["player"] != bob.player]
            assert heat["risk"] == [cat_id]  # Cat's heat is raced without undo, Bob's with
            await cat.type("quit")
            await cat.expect(r"You withdrew from Trial Sanibel arena")
            assert await cat.finish() == 0
        await bob.close()
