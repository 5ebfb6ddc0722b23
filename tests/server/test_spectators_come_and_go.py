"""Spectators who keep coming and going, on either of two nodes, while two racers on
different nodes play: each ``act`` a spectator gets has more ``actions`` than the racer's
last it knew (from its snapshot, or an earlier item), never the same again. Real
processes, a real Redis; the measurement behind it is in docs/server.md."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from pathlib import Path

import pytest
from harness import SERVE_QUICKLY, winning_actions
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client, ServerError
from protocol.messages import Watch

GAME, DEAL = "mount_sunflower", 18
SECONDS = 8.0


async def race_again_and_again(ann: Client, bob: Client, races: list[str], until: float) -> None:
    """Ann and Bob race deal DEAL to its end, and again, until ``until``."""
    wins = winning_actions(GAME, DEAL)

    async def play(client: Client, race: str) -> None:
        for seq, action in enumerate(wins, 1):
            if time.monotonic() > until:
                return
            await client.act(race, action, seq=seq)
            await asyncio.sleep(0.002)

    while time.monotonic() < until:
        race = (await ann.create_race(GAME, deal=DEAL, max_players=2))["race"]
        await bob.join_race(race)
        for client in (ann, bob):
            await client.next_event("started")
        races.append(race)
        await asyncio.gather(play(ann, race), play(bob, race))


async def watch_again_and_again(
    clients: list[Client], races: list[str], until: float, seen: list[tuple[int, int]]
) -> None:
    """Spectate the race being played, on a node picked at random, for a moment, and
    again: each act's ``actions`` with the last its racer had for this spectator."""
    while time.monotonic() < until:
        client = random.choice(clients)
        race = races[-1]
        try:
            snapshot = await client.spectate(race)
        except ServerError:  # over meanwhile
            continue
        known = {standing["player"]: standing["actions"] for standing in snapshot["players"]}
        leave = time.monotonic() + random.uniform(0.05, 0.3)
        while (left := leave - time.monotonic()) > 0:
            try:
                item = await client.next_event("act", timeout=left)
            except TimeoutError:
                break
            assert isinstance(item, Watch)
            player = item.data["player"]
            seen.append((known[player], item.data["actions"]))
            known[player] = item.data["actions"]
        await client.unspectate(race)
        while client.queue.qsize():  # what came before the unspectate was answered
            client.queue.get_nowait()


@pytest.mark.timeout(60)
async def test_spectators_coming_and_going_on_two_nodes_never_get_an_action_twice(
    redis_url: str, tmp_path: Path
) -> None:
    args = ("--redis", redis_url, "--redis-prefix", f"come-go-{uuid.uuid4().hex}:")
    args += ("--countdown-ms", "100", "--rate", "10000", "--burst", "10000", *SERVE_QUICKLY)
    with (
        ServeProcess(free_port(), tmp_path / "a", *args) as a,
        ServeProcess(free_port(), tmp_path / "b", *args) as b,
    ):
        await asyncio.to_thread(a.start)
        await asyncio.to_thread(b.start)
        ann, bob = await Client.connect(a.url, "Ann"), await Client.connect(b.url, "Bob")
        spectators = [
            [await Client.connect(node.url, f"S{i}") for node in (a, b)] for i in range(6)
        ]
        races: list[str] = []
        until = time.monotonic() + SECONDS
        racing = asyncio.ensure_future(race_again_and_again(ann, bob, races, until))
        while not races:
            await asyncio.sleep(0.01)
        seen: list[tuple[int, int]] = []
        await asyncio.gather(
            *(watch_again_and_again(clients, races, until, seen) for clients in spectators)
        )
        await racing
        doubles = [(before, after) for before, after in seen if after <= before]
        assert len(seen) > 1000, len(seen)
        assert doubles == [], f"{len(doubles)} of {len(seen)} act items did not move on"
        for client in (ann, bob, *(c for clients in spectators for c in clients)):
            await client.close()
