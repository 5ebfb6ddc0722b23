"""Redis's own figures (INFO, MEMORY USAGE, the keys) read with the ``redis-cli`` process,
so that nothing in ``bench/`` imports ``redis`` (``tests/server/test_server_boundary.py``):
the benchmarks reach the server's data only through the store's public face."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence


class RedisCli:
    """``redis-cli -u URL`` run once per call; every reply raw (``--no-raw`` is not given
    and its output is not a terminal), one line per reply unless it is a bulk of lines."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def run(self, *args: str, given: str | None = None) -> str:
        process = await asyncio.create_subprocess_exec(
            "redis-cli",
            "-u",
            self.url,
            *args,
            stdin=asyncio.subprocess.PIPE if given is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await process.communicate(None if given is None else given.encode())
        if process.returncode != 0 or out.startswith(b"ERR") or b"ERR " in err:
            raise RuntimeError(f"redis-cli {' '.join(args)}: {(err or out).decode().strip()}")
        return out.decode()

    async def call(self, *command: str) -> str:
        """One command's reply, stripped."""
        return (await self.run(*command)).strip()

    async def info(self, section: str) -> dict[str, str]:
        """``INFO section`` as a dict of its ``name:value`` lines."""
        text = await self.run("INFO", section)
        pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
        return {name.strip(): value.strip() for name, value in pairs}

    async def keys(self) -> list[str]:
        """Every key (``--scan``: SCAN to the end)."""
        return (await self.run("--scan")).split()

    async def calls(self, commands: Sequence[tuple[str, ...]]) -> list[str]:
        """The replies of one-line-reply commands sent through one connection (the commands
        on redis-cli's standard input; their words must hold no blanks)."""
        if not commands:
            return []
        given = "".join(" ".join(command) + "\n" for command in commands)
        replies = (await self.run(given=given)).split("\n")
        return replies[: len(commands)]
