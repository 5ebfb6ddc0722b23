"""The mixed load of ``solrace bench soak --mix``, beside its racing pairs: what a real
server also sees all day. Short-lived guests (connect, a few actions of the daily
challenge as practice, resign, leave: a new player each time), spectators who watch one
live race after another, and pairs whose next race is a rematch (a random deal: they play
a few legal actions and resign). Errors are counted, never fatal."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from typing import Any

from bench.benchplayer import Listener, connect_many

GUEST_GAME = "mount_sunflower"
GUEST_ACTIONS = 5
WATCH_S = 5.0  # a spectator watches one race this long
SUBPROTOCOL = "solrace.v1.msgpack"


def _error(counts: Counter[str], error: Exception) -> None:
    text = str(error)
    counts[text.split(": ")[1] if ": " in text else type(error).__name__] += 1


async def play_legal(player: Listener, race: str, legal: list[str], count: int) -> int:
    """Up to ``count`` actions, each the first legal one, then resign: the actions played."""
    played = 0
    for seq in range(1, count + 1):
        if not legal:
            break
        answer = await player.call("act", race=race, seq=seq, action=legal[0], legal=True)
        played += 1
        if answer["outcome"] is not None:
            return played
        legal = answer.get("legal", [])
    await player.call("resign", race=race)
    return played


async def guests(url: str, per_s: float, stop_at: float, counts: Counter[str]) -> None:
    """A new guest every ``1 / per_s`` seconds, each gone a moment later."""
    number = 0
    while time.perf_counter() < stop_at:
        number += 1
        started_at = time.perf_counter()
        try:
            (guest,) = await connect_many(url, 1, SUBPROTOCOL, Listener)
            try:
                await guest.hello(f"guest{number}")
                attempt = (await guest.call("daily_start", game=GUEST_GAME))["race"]
                legal = attempt["you"].get("legal", [])
                counts["actions"] += await play_legal(guest, attempt["race"], legal, GUEST_ACTIONS)
                counts["guests"] += 1
            finally:
                await guest.connection.close()
        except Exception as error:  # a refusal or a lost connection: counted
            _error(counts, error)
        await asyncio.sleep(max(0.0, started_at + 1 / per_s - time.perf_counter()))


async def spectators(url: str, count: int, stop_at: float, counts: Counter[str]) -> None:
    """``count`` spectators, each watching one live race after another."""
    watchers = await connect_many(url, count, SUBPROTOCOL, Listener)
    rng = random.Random(count)
    for index, watcher in enumerate(watchers):
        await watcher.hello(f"watcher{index}")

    async def watch(watcher: Listener) -> None:
        while time.perf_counter() < stop_at:
            try:
                live = (await watcher.call("list_live"))["races"]
                if not live:
                    await asyncio.sleep(1.0)
                    continue
                race = rng.choice(live)["race"]
                await watcher.call("spectate", race=race)
                counts["watched"] += 1
                until = time.perf_counter() + WATCH_S
                with contextlib.suppress(TimeoutError):
                    while (left := until - time.perf_counter()) > 0:  # read the feed
                        await asyncio.wait_for(watcher.connection.recv(), left)
                await watcher.call("unspectate", race=race)
            except Exception as error:
                _error(counts, error)
                await asyncio.sleep(1.0)

    await asyncio.gather(*(watch(w) for w in watchers))
    for watcher in watchers:
        await watcher.connection.close()


async def rematch(pair: tuple[Listener, Listener], race: str, counts: Counter[str]) -> None:
    """The pair's next race is a rematch of ``race``: a few legal actions each, resigned."""
    host, guest = pair
    new: dict[str, Any] = (await host.call("rematch", race=race))["race"]
    await guest.call("rematch", race=race)
    await asyncio.gather(*(p.wait_started(new["race"]) for p in pair))
    views = [(await p.call("snapshot", race=new["race"]))["race"] for p in pair]
    done = await asyncio.gather(
        *(
            play_legal(p, new["race"], view["you"].get("legal", []), GUEST_ACTIONS)
            for p, view in zip(pair, views, strict=True)
        )
    )
    counts["rematches"] += 1
    counts["actions"] += sum(done)
