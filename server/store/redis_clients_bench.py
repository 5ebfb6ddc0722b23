"""``solrace bench redis-clients``: the store's own hiredis connections (``redis_wire``)
against redis-py (with its hiredis parser) doing the same two jobs, side by side, on a
fresh redis-server of the command's own (issue 24: one Redis client library unless the
library cannot hold the figures).

- **Batches**, the writer's job on the action hot path: per action one ``XADD`` to the
  racer's log and one ``PUBLISH`` of the log hint (what ``APPEND_LOG`` does), sent as one
  batch of 1, 3 or 70 actions (an idle server, the paced load, saturation), batch after
  batch. ``BatchConnection.send`` against a redis-py pipeline (``transaction=False``).
  Printed: the round trip's median and p99, and this process's CPU per action.
- **Pub/sub**, what a node hears: another process publishes messages as fast as it can
  on one channel; ``Subscriber`` (the store's listener, with its production coalescing)
  against redis-py's ``PubSub.listen()``. Printed: this process's CPU per message heard
  and messages heard per second.

The client runs alone in this process, so its CPU (``time.thread_time``) is what each
library costs; Redis and the publisher run in processes of their own.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as redis

from server.store.redis_calls import wire_address
from server.store.redis_listen import HEAR_EVERY_S
from server.store.redis_wire import BatchConnection, Command, Subscriber

HINT = '{"k":"log","n":"node-a","p":"p0123456789ab","e":[[3,"t0 1 t4",123456]]}'
CHANNEL = "bench:race:r1"
BATCH_SIZES = (1, 3, 70)
PUBLISHER = """
import sys, redis
client = redis.Redis.from_url(sys.argv[1])
count, text = int(sys.argv[2]), sys.argv[3]
sys.stdin.readline()  # the listener is subscribed
pipe = client.pipeline(transaction=False)
for sent in range(count):
    pipe.publish(sys.argv[4], text)
    if sent % 500 == 499:
        pipe.execute()
pipe.execute()
client.publish(sys.argv[4], "end")
"""


def batch(actions: int) -> list[Command]:
    commands: list[Command] = []
    for n in range(actions):
        commands.append(("XADD", f"bench:log:{n % 8}", "*", "e", "t0 1 t4", "t", 123456))
        commands.append(("PUBLISH", CHANNEL, HINT))
    return commands


async def _timed(send: Callable[[], Awaitable[Any]], rounds: int) -> tuple[list[float], float]:
    """Round trips (seconds) of ``rounds`` sends one after another, and the CPU they took."""
    for _ in range(rounds // 10):  # warm up: connections made, caches filled
        await send()
    trips = []
    cpu = time.thread_time()
    for _ in range(rounds):
        began = time.perf_counter()
        await send()
        trips.append(time.perf_counter() - began)
    return trips, time.thread_time() - cpu


async def batches(url: str, actions: int, rounds: int) -> dict[str, dict[str, float]]:
    commands = batch(actions)
    own = BatchConnection(wire_address(url), deadline=5.0)
    library = redis.Redis.from_url(url)

    async def own_send() -> None:
        await own.send(commands)

    async def library_send() -> None:
        pipe = library.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        await pipe.execute()

    figures = {}
    try:
        for name, send in (("hiredis (own)", own_send), ("redis-py", library_send)):
            trips, cpu = await _timed(send, rounds)
            figures[name] = {
                "p50_ms": statistics.median(trips) * 1000,
                "p99_ms": statistics.quantiles(trips, n=100)[98] * 1000,
                "cpu_us_per_action": cpu / rounds / actions * 1e6,
            }
    finally:
        own.close()
        await library.aclose()
        await redis.Redis.from_url(url).delete(*{f"bench:log:{n % 8}" for n in range(actions)})
    return figures


def _publisher(url: str, messages: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, url, str(messages), HINT, CHANNEL],
        stdin=subprocess.PIPE,
        text=True,
    )


async def _heard(
    subscribe: Callable[[Callable[[str], None]], Awaitable[Callable[[], Awaitable[None]]]],
    url: str,
    messages: int,
) -> dict[str, float]:
    """Hear ``messages`` published by another process: the listener's CPU per message and
    messages per second, from the first heard to the last."""
    ended = asyncio.get_running_loop().create_future()
    heard = 0
    first = cpu = 0.0

    def hear(data: str) -> None:
        nonlocal heard, first, cpu
        if heard == 0:
            first, cpu = time.perf_counter(), time.thread_time()
        if data == "end":
            if not ended.done():
                ended.set_result((time.perf_counter() - first, time.thread_time() - cpu))
            return
        heard += 1

    close = await subscribe(hear)
    publisher = _publisher(url, messages)
    assert publisher.stdin is not None
    publisher.stdin.write("go\n")
    publisher.stdin.flush()
    try:
        seconds, cpu_seconds = await asyncio.wait_for(ended, 120)
    finally:
        publisher.wait(30)
        await close()
    return {
        "heard": heard,
        "cpu_us_per_message": cpu_seconds / heard * 1e6,
        "messages_per_s": heard / seconds,
    }


async def pubsub(url: str, messages: int) -> dict[str, dict[str, float]]:
    async def own(hear: Callable[[str], None]) -> Callable[[], Awaitable[None]]:
        subscriber = Subscriber(
            wire_address(url),
            lambda _channel, data: hear(data),
            lambda: None,
            5.0,
            HEAR_EVERY_S,
        )
        subscriber.channels.add(CHANNEL)
        await subscriber.open()

        async def close() -> None:
            subscriber.close()

        return close

    async def library(hear: Callable[[str], None]) -> Callable[[], Awaitable[None]]:
        client = redis.Redis.from_url(url, decode_responses=True)
        listener = client.pubsub(ignore_subscribe_messages=True)
        await listener.subscribe(CHANNEL)

        async def listen() -> None:
            async for message in listener.listen():
                if message is not None and message["type"] == "message":
                    hear(message["data"])

        task = asyncio.create_task(listen())

        async def close() -> None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await listener.aclose()
            await client.aclose()

        return close

    return {
        "hiredis (own)": await _heard(own, url, messages),
        "redis-py": await _heard(library, url, messages),
    }


async def run_clients(url: str, rounds: int, messages: int) -> dict[str, Any]:
    result: dict[str, Any] = {"rounds": rounds, "messages": messages, "batches": {}}
    for actions in BATCH_SIZES:
        result["batches"][str(actions)] = await batches(url, actions, rounds)
    result["pubsub"] = await pubsub(url, messages)
    return result


def print_table(result: dict[str, Any]) -> None:
    print(f"batches: per action one XADD and one PUBLISH; {result['rounds']} batches each")
    print(f"{'actions':>8} {'client':>14} {'p50 ms':>8} {'p99 ms':>8} {'CPU us/action':>14}")
    for actions, clients in result["batches"].items():
        for name, figures in clients.items():
            print(
                f"{actions:>8} {name:>14} {figures['p50_ms']:>8.3f} {figures['p99_ms']:>8.3f}"
                f" {figures['cpu_us_per_action']:>14.2f}"
            )
    print(f"pub/sub: {result['messages']} messages published by another process")
    print(f"{'client':>14} {'CPU us/message':>15} {'messages/s':>11}")
    for name, figures in result["pubsub"].items():
        print(
            f"{name:>14} {figures['cpu_us_per_message']:>15.2f} {figures['messages_per_s']:>11,.0f}"
        )
