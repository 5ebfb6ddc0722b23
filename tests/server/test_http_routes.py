"""Plain HTTP on the websocket port: a browser client's file is read off the event loop, so
a disk that stalls on one file never stalls the players, health checks or other pages."""

from __future__ import annotations

import asyncio
import threading
import urllib.request
from pathlib import Path

import pytest
from harness import running_server

import server.http


async def test_a_stalled_static_file_read_does_not_stall_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    disk_answers = threading.Event()
    reading = threading.Event()
    real_read = server.http.read_file

    def stalling_read(path: Path) -> bytes:  # a disk that answers only when told
        reading.set()
        disk_answers.wait(timeout=20)
        return real_read(path)

    monkeypatch.setattr(server.http, "read_file", stalling_read)

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
