"""What the terminal client's tests share: a real server in the test's event loop, the
``solrace`` command run as a real process (its output read through a pipe, or a
pseudo-terminal), another racer's connection cut, and reading numbered actions off the
screen (``tests/client/test_terminal*.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import os
import re
import struct
import sys
import termios
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from harness import TEST_SETTINGS

from protocol.errors import IllegalAction
from protocol.games import rules_for
from protocol.notation import TABLEAU_PILES, Move
from server.app import RaceServer
from server.store import MemoryStore

SOLRACE = Path(sys.executable).with_name("solrace")
GAME, DEAL = "mount_sunflower", 18  # a deal with a winning action list in tests/data/wins
SETTINGS = dataclasses.replace(TEST_SETTINGS, grace_ms=5_000)
PROMPT = "Your move (a number, an action, or help):"
NUMBERED = re.compile(r"(\d+)\) (deal|auto|undo|[a-z]\d? \d+ [a-z]\d?)")


@asynccontextmanager
async def running_server(**changes: Any) -> AsyncIterator[str]:
    """A race server on a free port of 127.0.0.1; yields its websocket URL."""
    server = RaceServer(dataclasses.replace(SETTINGS, **changes), MemoryStore())
    await server.start()
    url = f"ws://127.0.0.1:{server.port}/ws"
    SERVERS[url] = server
    try:
        yield url
    finally:
        del SERVERS[url]
        await server.stop()


SERVERS: dict[str, RaceServer] = {}


async def drop_connection_of(url: str, name: str) -> None:
    """Cut ``name``'s TCP connection on the server's side, as a network failure would."""
    server = SERVERS[url]
    (session,) = [s for s in server.sessions.by_player.values() if s.name == name]
    line = server.lines.get(session.player)
    assert line is not None and line.connection.transport is not None
    line.connection.transport.abort()


class Terminal:
    """A ``solrace`` process with its standard input and output as pipes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.output = ""
        self.seen = 0  # how far ``expect`` has read

    @classmethod
    async def start(cls, *argv: str, env: dict[str, str] | None = None) -> Terminal:
        process = await asyncio.create_subprocess_exec(
            str(SOLRACE),
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
        )
        return cls(process)

    async def expect(self, pattern: str, timeout: float = 10.0) -> re.Match[str]:
        """Read until ``pattern`` matches output not yet matched; the match."""
        regex = re.compile(pattern)
        assert self.process.stdout is not None
        async with asyncio.timeout(timeout):
            while True:
                found = regex.search(self.output, self.seen)
                if found:
                    self.seen = found.end()
                    return found
                chunk = await self.process.stdout.read(65536)
                if not chunk:
                    raise AssertionError(f"no {pattern!r} before the end of:\n{self.output}")
                self.output += chunk.decode()

    async def type(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def finish(self, timeout: float = 10.0) -> int:
        """The exit status, once the process has ended; everything it printed is read."""
        assert self.process.stdout is not None
        async with asyncio.timeout(timeout):
            self.output += (await self.process.stdout.read()).decode()
            return await self.process.wait()

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()


class PseudoTerminal(Terminal):
    """A ``solrace`` process in a pseudo-terminal of 40 rows and 100 columns, as a person
    would run it."""

    def __init__(self, process: asyncio.subprocess.Process, master: int) -> None:
        super().__init__(process)
        self.master = master
        self.chunks: asyncio.Queue[bytes] = asyncio.Queue()
        asyncio.get_running_loop().add_reader(master, self._readable)

    @classmethod
    async def open(cls, *argv: str) -> PseudoTerminal:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
        process = await asyncio.create_subprocess_exec(
            str(SOLRACE),
            *argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm-256color"},
        )
        os.close(slave)
        return cls(process, master)

    def _readable(self) -> None:
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the process has gone: its side of the terminal is closed
            chunk = b""
        if not chunk:
            asyncio.get_running_loop().remove_reader(self.master)
        self.chunks.put_nowait(chunk)

    async def expect(self, pattern: str, timeout: float = 10.0) -> re.Match[str]:
        regex = re.compile(pattern)
        async with asyncio.timeout(timeout):
            while True:
                found = regex.search(self.output, self.seen)
                if found:
                    self.seen = found.end()
                    return found
                chunk = await self.chunks.get()
                if not chunk:
                    raise AssertionError(f"no {pattern!r} before the end of:\n{self.output}")
                self.output += chunk.decode(errors="replace")

    async def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def close(self) -> None:
        self.kill()
        with contextlib.suppress(ValueError):
            asyncio.get_running_loop().remove_reader(self.master)
        os.close(self.master)


@asynccontextmanager
async def solrace(*argv: str, env: dict[str, str] | None = None) -> AsyncIterator[Terminal]:
    terminal = await Terminal.start(*argv, env=env)
    try:
        yield terminal
    finally:
        terminal.kill()
        await terminal.process.wait()


def an_action_that_does_not_fit(game: str, deal: int) -> tuple[str, str]:
    """A tableau move refused at the start of the deal, and the engine's sentence for it."""
    rules = rules_for(game)
    start = rules.start(deal)
    for src in TABLEAU_PILES[: rules.tableau_piles]:
        for dst in TABLEAU_PILES[: rules.tableau_piles]:
            try:
                rules.apply(start, Move(src, 1, dst))
            except IllegalAction as refusal:
                if refusal.code == "does_not_fit":
                    return f"{src} 1 {dst}", refusal.message
    raise AssertionError("every tableau move fits")


def numbered_actions(screen: str) -> dict[str, int]:
    """The numbered legal list of the last screen printed in ``screen``."""
    listing = screen.rsplit("Actions:", 1)[-1]
    return {action: int(number) for number, action in NUMBERED.findall(listing)}


async def play_to_the_end(ann: Terminal, actions: list[str]) -> int:
    """Type ``actions`` into a ``play`` screen, by number when the list shows them; how many
    went by number."""
    by_number = 0
    screen = ann.output[: ann.seen]
    for action in actions:
        listed = numbered_actions(screen)
        if action in listed:
            by_number += 1
            await ann.type(str(listed[action]))
        else:
            await ann.type(action)
        start = ann.seen
        await ann.expect(rf"{re.escape(PROMPT)}|You finished in")
        screen = ann.output[start : ann.seen]
        assert f"{action}:" in screen or "undo" in action, screen[-600:]
    return by_number


# ---------------------------------------------------------------------- views
