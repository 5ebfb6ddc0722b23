"""``solrace bench recovery``: how long racers wait when the server process dies.

A redis-server of the command's own and a real ``solrace serve --redis`` on a fixed port;
``racers`` players race in pairs on Sanibel deals and each plays ``actions_before``
actions. Then the server is killed (SIGKILL: no goodbye, nothing drained) and a new
process is started on the same port and Redis. Two times are measured: from the kill to
the new process's banner ("serving on"), and from that banner until every racer has
reconnected (a new connection, ``hello`` with its resume token and the last event it
saw), got its ``snapshot`` back with its race at the sequence number it had reached, and
had one more action accepted (stored, then answered). Racers start reconnecting when the
new process is up (as clients retrying every 50 ms would, to within 50 ms), at most
``concurrency`` connection handshakes at a time; the rest of each racer's way back runs
concurrently. Racers are lean (``bench.benchplayer.Listener``: msgpack on one
websockets connection), not ``client.api.Client``s.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidHandshake

from bench.benchplayer import Listener, connect_many, greet_all, playouts
from bench.benchprocess import SERVE_BANNER, free_port, own_redis, serve_command, spawn

TARGET_S = 5.0
SUBPROTOCOL = "solrace.v1.msgpack"


@dataclass
class Racer:
    player: Listener
    id: str = ""
    name: str = ""
    token: str = ""
    race: str = ""
    actions: tuple[str, ...] = ()
    seq: int = 0  # the last action answered


async def set_up(url: str, count: int, before: int) -> list[Racer]:
    """``count`` racers in races of two, each having played ``before`` actions."""
    players = await connect_many(url, count, SUBPROTOCOL, Listener)
    welcomes = await greet_all(players, [f"racer{i}" for i in range(count)])
    racers = [
        Racer(p, w["player"], w["name"], w["token"]) for p, w in zip(players, welcomes, strict=True)
    ]
    pool = playouts("sanibel", 24, before + 1, seed=11)
    deals = list(pool)

    async def pair_up(host: Racer, guest: Racer, deal: int) -> None:
        created = await host.player.call(
            "create_race", game="sanibel", deal=str(deal), max_players=2, countdown_ms=0
        )
        race = created["race"]["race"]
        await guest.player.call("join_race", race=race)
        for racer in (host, guest):
            racer.race, racer.actions = race, tuple(pool[deal])
            await racer.player.wait_started(race)

    await asyncio.gather(
        *(
            pair_up(racers[i], racers[i + 1], deals[(i // 2) % len(deals)])
            for i in range(0, count - 1, 2)
        )
    )
    await asyncio.gather(*(play(racer, before) for racer in racers))
    return racers


async def play(racer: Racer, count: int) -> None:
    for _ in range(count):
        seq = racer.seq + 1
        await racer.player.call("act", race=racer.race, seq=seq, action=racer.actions[seq - 1])
        racer.seq = seq


async def come_back(racer: Racer, url: str, gate: asyncio.Semaphore) -> float:
    """The racer's way back into its race; the moment it is done."""
    async with gate:
        pause = 0.05
        while True:
            try:
                connection = await connect(
                    url,
                    subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
                    compression=None,
                    max_size=2**22,
                    open_timeout=30,
                    ping_interval=None,
                )
                break
            except (OSError, InvalidHandshake, TimeoutError):
                await asyncio.sleep(pause)
    old, racer.player = racer.player, Listener(connection)
    racer.player.last_event = old.last_event
    welcome = await racer.player.call(
        "hello", protocol=1, name=racer.name, token=racer.token, last_event=old.last_event
    )
    if welcome["player"] != racer.id or not welcome["resumed"]:
        raise RuntimeError(f"{racer.id} came back as {welcome['player']}: {welcome}")
    await racer.player.read_until(lambda: racer.player.snapshot is not None)
    assert racer.player.snapshot is not None
    mine = [view for view in racer.player.snapshot["races"] if view["race"] == racer.race]
    if not mine or mine[0]["you"]["seq"] != racer.seq:
        raise RuntimeError(f"{racer.id}'s snapshot does not hold its race at {racer.seq}")
    await play(racer, 1)
    return time.perf_counter()


async def run_recovery(options: dict[str, Any]) -> dict[str, Any]:
    with own_redis() as redis, tempfile.TemporaryDirectory() as directory:
        port = free_port()
        url = f"ws://127.0.0.1:{port}/ws"
        command = serve_command(port, "--redis", redis.url, "--redis-prefix", "recovery:")
        command += ["--spill-file", str(Path(directory) / "spill.jsonl")]
        server = spawn(command, SERVE_BANNER)
        try:
            racers = await set_up(url, options["racers"], options["actions_before"])
            killed = time.perf_counter()
            server.kill()
            server.wait(10)
            server = await asyncio.to_thread(spawn, command, SERVE_BANNER)
            up = time.perf_counter()
            gate = asyncio.Semaphore(options["concurrency"])
            outcomes = await asyncio.gather(
                *(come_back(racer, url, gate) for racer in racers), return_exceptions=True
            )
            await asyncio.gather(*(r.player.connection.close() for r in racers))
        finally:
            server.terminate()
            server.wait(30)
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    back = sorted(o - up for o in outcomes if isinstance(o, float))
    every = back[-1] if back and not failures else None
    return {
        "settings": options,
        "kill_to_up_s": round(up - killed, 2),
        "up_to_all_back_s": None if every is None else round(every, 2),
        "back_p50_s": round(statistics.median(back), 2) if back else None,
        "back_p99_s": round(back[min(len(back) - 1, int(len(back) * 0.99))], 2) if back else None,
        "racers_back": len(back),
        "failures": len(failures),
        "first_failure": repr(failures[0]) if failures else None,
        "target_met": every is not None and every <= TARGET_S,
    }


def print_result(result: dict[str, Any]) -> None:
    settings = result["settings"]
    print(
        f"recovery: {settings['racers']} racers in races of 2 on Redis, "
        f"{settings['actions_before']} actions each before kill -9; "
        f"{settings['concurrency']} connection handshakes at a time"
    )
    print(f"kill -9 -> new process serving:  {result['kill_to_up_s']} s")
    verdict = "met" if result["target_met"] else "NOT met"
    every = result["up_to_all_back_s"]
    print(
        "new process serving -> every racer back (welcome, snapshot of its race, one more "
        f"action accepted): {'not all came back' if every is None else f'{every} s'} "
        f"(target <= {TARGET_S:g} s: {verdict})"
    )
    print(
        f"per racer: p50 {result['back_p50_s']} s, p99 {result['back_p99_s']} s; "
        f"back {result['racers_back']}, failed {result['failures']}"
        + (f" (first: {result['first_failure']})" if result["failures"] else "")
    )
