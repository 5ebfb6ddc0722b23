"""``solrace bench arena``'s watchers: a process of their own (so that reading thousands of
feeds never delays the bots), ``count`` guests on one node, each ``arena_watch``-ing one
arena. Each ``arena_standings`` they get is kept as its version and the kernel's receive
time of the packet that completed its frame (``SO_TIMESTAMPNS``, CLOCK_REALTIME, as
``bench spectators``), decoded as it comes, nothing else kept.

Driven by lines on standard input, as ``bench spectators``'s swarm: it prints "watching"
once every watcher watches; ``stop`` then one line of JSON, the heats ``[[version,
end_ns], ...]``, answers one line of JSON: the delivery histogram (``deliveries``), the
pairs missed, how many watchers are still connected, how many of those got the last
heat's version, and this process's CPU."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from array import array
from typing import Any

import msgpack
from websockets.frames import Frame, Opcode
from websockets.protocol import Event

from bench.arenareport import deliveries
from bench.benchplayer import CONNECT_BATCH, HELLO_BATCH, Player, own_cpu_seconds
from bench.spectatorbench import StampedConnection, open_stamped


class WatcherConnection(StampedConnection):
    """A stamped connection that, once ``recording``, keeps only the version and receive
    time of each ``arena_standings`` event."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recording = False
        self.versions: array[int] = array("q")
        self.times: array[int] = array("q")

    def process_event(self, event: Event) -> None:
        if self.recording and isinstance(event, Frame) and event.opcode is Opcode.BINARY:
            message = msgpack.unpackb(event.data, raw=False)
            if message.get("kind") == "arena_standings":
                self.versions.append(message["version"])
                self.times.append(self.read_at[0])
            return
        super().process_event(event)


async def open_watcher(url: str) -> WatcherConnection:
    connection = await open_stamped(url, WatcherConnection)
    assert isinstance(connection, WatcherConnection)
    return connection


async def watch(url: str, count: int, arena: str) -> None:
    connections: list[WatcherConnection] = []
    for start in range(0, count, CONNECT_BATCH):
        size = min(CONNECT_BATCH, count - start)
        connections += await asyncio.gather(*(open_watcher(url) for _ in range(size)))
    watchers = [Player(connection) for connection in connections]
    for start in range(0, count, HELLO_BATCH):
        batch = watchers[start : start + HELLO_BATCH]
        await asyncio.gather(*(w.hello("fan") for w in batch))
        await asyncio.gather(*(w.call("arena_watch", arena=arena) for w in batch))
    for connection in connections:
        connection.recording = True
    cpu0, wall0 = own_cpu_seconds(), time.perf_counter()
    print("watching", flush=True)
    await asyncio.to_thread(sys.stdin.readline)  # "stop"
    heats = [
        (int(v), int(end)) for v, end in json.loads(await asyncio.to_thread(sys.stdin.readline))
    ]
    cpu, wall = own_cpu_seconds() - cpu0, time.perf_counter() - wall0
    for connection in connections:
        connection.recording = False
    histogram, missed = deliveries([(c.versions, c.times) for c in connections], heats)
    last = max((v for v, _ in heats), default=0)
    alive = [c for c in connections if c.raw is not None]
    answer = {
        "histogram": dict(histogram),
        "missed": missed,
        "connected": len(connections),
        "alive": len(alive),
        "held": sum(1 for c in alive if c.versions and c.versions[-1] >= last),
        "pushes": sum(len(c.versions) for c in connections),
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "unstamped": sum(c.unstamped for c in connections),
    }
    print(json.dumps(answer), flush=True)


class Watchers:
    """The watchers' process, seen from the command."""

    def __init__(self, url: str, count: int, arena: str) -> None:
        command = [sys.executable, "-m", "bench.arenawatchers", url, str(count), arena]
        self.popen = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    async def line(self) -> str:
        assert self.popen.stdout is not None
        return await asyncio.to_thread(self.popen.stdout.readline)

    async def watching(self) -> None:
        answer = await self.line()
        if "watching" not in answer:
            raise RuntimeError(f"the watchers' process answered {answer[:200]!r}")

    async def stop(self, heats: list[tuple[int, int]]) -> dict[str, Any]:
        assert self.popen.stdin is not None
        self.popen.stdin.write("stop\n" + json.dumps(heats) + "\n")
        self.popen.stdin.flush()
        answer = await self.line()
        if not answer.startswith("{"):
            raise RuntimeError(f"the watchers' process answered {answer[:200]!r}")
        got: dict[str, Any] = json.loads(answer)
        return got

    def close(self) -> None:
        if self.popen.stdin is not None:
            self.popen.stdin.close()
        try:
            self.popen.wait(30)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(10)


if __name__ == "__main__":
    asyncio.run(watch(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
    os._exit(0)  # thousands of connections need no goodbye: the nodes are stopped next
