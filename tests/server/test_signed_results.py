"""Signed results through a real server: every race log and day's board is signed with the
key the server publishes (in ``welcome`` and at ``GET /signing-keys``); one key per
deployment on Redis (every restart and node signs alike), the operator's own key when
given, and every key ever used stays published after a rotation. Each ``act`` answer's
receipt is the running hash of the log the race later gives out."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from harness import player, running_server, winning_actions

from protocol.receipts import receipts
from protocol.signing import signature_problem
from server.app import RaceServer
from server.store import Store, open_store

GAME, DEAL = "mount_sunflower", 18


async def published(server: RaceServer) -> dict[str, str]:
    """``GET /signing-keys`` (from a thread: the server runs in this event loop)."""

    def get() -> dict[str, Any]:
        url = f"http://127.0.0.1:{server.port}/signing-keys"
        with urllib.request.urlopen(url, timeout=5) as response:
            answer: dict[str, Any] = json.loads(response.read())
        return answer

    return {row["key"]: row["public_key"] for row in (await asyncio.to_thread(get))["keys"]}


async def a_race_log(server: RaceServer) -> tuple[dict[str, Any], list[str]]:
    """Ann plays a few actions and resigns: the race's log and the receipts she was told."""
    ann = await player(server, "Ann")
    race = (await ann.create_race(GAME, deal=DEAL, max_players=1, countdown_ms=0))["race"]
    await ann.next_event("started")
    told = []
    for action in winning_actions(GAME, DEAL)[:4]:
        told.append((await ann.act(race, action))["receipt"])
    await ann.resign(race)
    return await ann.race_log(race), told


async def test_a_race_log_and_a_board_are_signed_with_the_published_key(store: Store) -> None:
    async with running_server(store) as server:
        log, told = await a_race_log(server)
        keys = await published(server)
        async with await player(server, "Cy") as cy:
            assert cy.welcome is not None and cy.welcome.signing_key is not None
            assert keys[cy.welcome.signing_key["key"]] == cy.welcome.signing_key["public_key"]
            board = await cy.daily_board(GAME)
        assert signature_problem(log, keys) is None
        assert signature_problem(board, keys) is None
        forged = {**log, "racers": [{**log["racers"][0], "outcome": "finished"}]}
        assert signature_problem(forged, keys) is not None
        (racer,) = log["racers"]
        assert receipts(log["race"], racer["player"], racer["actions"]) == told


async def test_every_restart_on_one_redis_signs_with_the_same_key(redis_url: str) -> None:
    prefix = f"signed-{time.monotonic_ns()}:"
    seen = []
    for _ in range(2):
        store = open_store(redis_url, prefix=prefix)
        async with running_server(store) as server:
            log, _ = await a_race_log(server)
            seen.append((log["signature"]["key"], await published(server)))
    assert seen[0] == seen[1] and len(seen[0][1]) == 1


async def test_an_operator_s_key_signs_and_the_old_key_stays_published(
    redis_url: str, tmp_path: Path
) -> None:
    prefix = f"rotated-{time.monotonic_ns()}:"
    async with running_server(open_store(redis_url, prefix=prefix)) as server:
        old_log, _ = await a_race_log(server)
    pem = tmp_path / "signing.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(pem)], check=True)
    store = open_store(redis_url, prefix=prefix)
    async with running_server(store, signing_key_path=pem) as server:
        new_log, _ = await a_race_log(server)
        keys = await published(server)
    assert new_log["signature"]["key"] != old_log["signature"]["key"]
    assert set(keys) == {old_log["signature"]["key"], new_log["signature"]["key"]}
    assert signature_problem(old_log, keys) is None and signature_problem(new_log, keys) is None
