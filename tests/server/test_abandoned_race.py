"""A race whose racers all walk away (their connections gone, never back) ends by itself
once the grace period is over: every racer ``dropped``, the result in Redis, and the race
off the spectators' list. A real ``solrace serve`` process, a real Redis."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path

from harness import SERVE_QUICKLY, winning_actions
from racers import Racer
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client
from server.store import open_store

GAME, DEAL = "mount_sunflower", 18
GRACE_MS = 1_000


async def test_a_race_whose_racers_all_disconnect_ends_by_itself_and_leaves_the_live_list(
    redis_url: str, tmp_path: Path
) -> None:
    prefix = f"abandoned-{uuid.uuid4().hex}:"
    store = open_store(redis_url, prefix=prefix)
    args = ("--redis", redis_url, "--redis-prefix", prefix, "--grace-ms", str(GRACE_MS))
    fast = ("--countdown-ms", "100", "--rate", "10000", "--burst", "10000", *SERVE_QUICKLY)
    wins = winning_actions(GAME, DEAL)
    try:
        with ServeProcess(free_port(), tmp_path, *args, *fast) as server:
            server.start()
            ann, bob = [await Client.connect(server.url, name) for name in ("Ann", "Bob")]
            cy = await Client.connect(server.url, "Cy")  # only looks at the live list
            race = (await ann.create_race(GAME, deal=DEAL))["race"]
            await bob.join_race(race)
            await ann.next_event("started")
            await Racer(ann, race).play(wins[:10])
            await Racer(bob, race).play(wins[:3])
            assert race in [info["race"] for info in await cy.list_live()]
            await ann.drop()  # gone, as a closed laptop would be; never back
            await bob.drop()
            left = time.monotonic()
            deadline = left + GRACE_MS / 1000 + 10
            while (result := await store.races.load_result(race)) is None:
                assert time.monotonic() < deadline, "the race never ended"
                await asyncio.sleep(0.05)
            assert time.monotonic() - left >= GRACE_MS / 1000 - 0.1  # not before the grace
            outcomes = {entry["player"]: entry["outcome"] for entry in result["ranking"]}
            assert outcomes == {ann.player: "dropped", bob.player: "dropped"}
            assert [entry["player"] for entry in result["ranking"]] == [ann.player, bob.player]
            assert race not in [info["race"] for info in await cy.list_live()]
            assert race not in await store.races.listed_races("live")
            while json.loads(server.get("/healthz")[1])["races"] != 0:  # let go of, too
                assert time.monotonic() < deadline, "the ended race stayed in memory"
                await asyncio.sleep(0.05)
            for client in (ann, bob, cy):
                await client.close()
    finally:
        await store.close()
