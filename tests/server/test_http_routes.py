"""Plain HTTP on the websocket port: a browser client's file is read off the event loop, so
a disk that stalls on one file never stalls the players, health checks or other pages; the
daily chain's anchor is published (GET /daily-chain) and shown on every board."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from pathlib import Path

import pytest
from harness import player, running_server

import server.edge.http
from protocol.daily import CHAIN_FIRST_DAY, chain_anchor


async def test_a_stalled_static_file_read_does_not_stall_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    disk_answers = threading.Event()
    reading = threading.Event()
    real_read = server.edge.http.read_file

    def stalling_read(path: Path) -> bytes:  # a disk that answers only when told
        reading.set()
        disk_answers.wait(timeout=20)
        return real_read(path)

    monkeypatch.setattr(server.edge.http, "read_file", stalling_read)

    def get(port: int, path: str) -> int:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
            status: int = answer.status
            return status

    async with running_server() as race_server:
        port = race_server.port
        page = asyncio.create_task(asyncio.to_thread(get, port, "/"))
        assert await asyncio.to_thread(reading.wait, 10)
        assert await asyncio.to_thread(get, port, "/readyz") == 200  # while the disk stalls
        disk_answers.set()
        assert await page == 200


async def test_the_daily_chain_s_anchor_is_published_and_every_board_shows_it() -> None:
    async with running_server() as race_server:
        secret = await race_server.daily.secret_in_use()

        def get() -> dict[str, object]:
            address = f"http://127.0.0.1:{race_server.port}/daily-chain"
            with urllib.request.urlopen(address, timeout=5) as answer:
                published: dict[str, object] = json.loads(answer.read())
                return published

        published = await asyncio.to_thread(get)
        expected = {"anchor": chain_anchor(secret), "first_day": CHAIN_FIRST_DAY, "days": 3650}
        assert published == expected
        async with await player(race_server, "Ann") as ann:
            board = await ann.daily_board("sanibel")
        assert board["chain"] == {
            "anchor": published["anchor"],
            "first_day": CHAIN_FIRST_DAY,
            "seed": None,  # today's: shown once the day is over
        }
