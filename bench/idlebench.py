"""``solrace bench idle``: the memory one server process spends on each idle player.

A real ``solrace serve`` (the memory store, the default keepalive and rate limits) is
started with this process's limit on open files raised to its hard limit (it inherits it);
its resident memory (VmRSS) is read once it is up and idle, then ``connections``
websocket connections are opened, ``CONNECT_BATCH`` at a time, and each says ``hello``
(a new player); after ``wait_s`` seconds with all of them connected and idle the RSS is
read again. The figure is (RSS with them - RSS before) / connections. Then every
connection is closed and the RSS read once more (what the process gives back).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.benchplayer import connect_all, greet_all
from bench.benchprocess import (
    SERVE_BANNER,
    free_port,
    health,
    raise_open_files,
    rss_kib,
    serve_command,
    spawn,
)

TARGET_KIB = 20.0
SETTLE_S = 2.0


async def run_idle(options: dict[str, Any]) -> dict[str, Any]:
    count = options["connections"]
    raise_open_files(count + 256)
    port = free_port()
    server = spawn(serve_command(port), SERVE_BANNER)
    try:
        await asyncio.sleep(SETTLE_S)
        before = rss_kib(server.pid)
        url = f"ws://127.0.0.1:{port}/ws"
        started = time.perf_counter()
        players = await connect_all(url, count, "solrace.v1.msgpack")
        await greet_all(players, [f"idle{i}" for i in range(count)])
        connect_s = time.perf_counter() - started
        await asyncio.sleep(options["wait_s"])
        connected = (await asyncio.to_thread(health, port))["players"]
        with_them = rss_kib(server.pid)
        await asyncio.gather(*(p.connection.close() for p in players))
        await asyncio.sleep(SETTLE_S)
        after = rss_kib(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    per_connection = (with_them - before) / count
    return {
        "settings": options,
        "connect_s": round(connect_s, 1),
        "players_connected": connected,
        "rss_before_mib": round(before / 1024, 1),
        "rss_with_them_mib": round(with_them / 1024, 1),
        "rss_after_close_mib": round(after / 1024, 1),
        "kib_per_connection": round(per_connection, 2),
        "target_met": per_connection <= TARGET_KIB,
    }


def print_result(result: dict[str, Any]) -> None:
    settings = result["settings"]
    print(
        f"idle: {settings['connections']:,} connections, each said hello, opened in "
        f"{result['connect_s']} s; read {settings['wait_s']:g} s later "
        f"({result['players_connected']:,} players connected, says /healthz)"
    )
    print(
        f"server RSS: {result['rss_before_mib']} MiB before, {result['rss_with_them_mib']} MiB "
        f"with them, {result['rss_after_close_mib']} MiB {SETTLE_S:g} s after they closed (their "
        "sessions wait out the grace period)"
    )
    verdict = "met" if result["target_met"] else "NOT met"
    print(
        f"per idle connection: {result['kib_per_connection']} KiB "
        f"(target <= {TARGET_KIB:g} KiB: {verdict})"
    )
