"""A real race server in a thread of its own, with its own event loop, for tests whose own
code is synchronous (Playwright's sync API, hypothesis)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from server.app import RaceServer
from server.config import Settings
from server.store import MemoryStore, Store

T = TypeVar("T")


class ServerThread:
    """``with ServerThread(settings) as running:`` serves on ``running.port`` until the
    block ends. ``before_start`` runs on the server's loop first (e.g. to preset daily
    deals in the store)."""

    def __init__(
        self,
        settings: Settings,
        store: Store | None = None,
        before_start: Callable[[Store], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store or MemoryStore()
        self.server = RaceServer(settings, self.store)
        self.before_start = before_start
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="race-server", daemon=True)
        self.ready = threading.Event()
        self.failure: BaseException | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._start())
        except BaseException as error:
            self.failure = error
            self.ready.set()
            return
        self.ready.set()
        self.loop.run_forever()

    async def _start(self) -> None:
        if self.before_start is not None:
            await self.before_start(self.store)
        await self.server.start()

    def call(self, coroutine: Awaitable[T], timeout_s: float = 10) -> T:
        """Run ``coroutine`` on the server's loop and return its result."""

        async def wrapped() -> T:
            return await coroutine

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(timeout_s)

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        self.ready.wait(10)
        if self.failure is not None:
            raise self.failure
        return self

    def __exit__(self, *exc: Any) -> None:
        self.call(self.server.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
