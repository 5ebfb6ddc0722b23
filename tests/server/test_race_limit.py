"""A race has a longest duration (4 hours; ``--max-race-ms``): past it, whoever is still
playing did not finish (``timed_out``) and the race is ranked. The limit is kept by the
``timers`` lease holder from the stored start signal, so it holds after the process that
started the race is killed, and on the surviving node after the lease holder dies. Real
``solrace serve`` processes, a real Redis; the limit is shortened to a few seconds."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from harness import SERVE_QUICKLY, winning_actions
from nodes import lease_holder, node_of
from racers import Racer
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client
from protocol.games import rules_for
from protocol.race import Now
from protocol.race_record import restore
from protocol.race_views import race_result
from server.duties import LEASE_TTL_MS
from server.store import Store, open_store

GAME, DEAL = "mount_sunflower", 18
LIMIT_MS = 3_000
# the lease holder looks every 2 s; a lost holder's lease lapses first (10 s)
ON_TIME_MS = LIMIT_MS + 2 * 2_000
AFTER_A_LOST_HOLDER_MS = ON_TIME_MS + LEASE_TTL_MS
FAST = ("--countdown-ms", "100", "--rate", "10000", "--burst", "10000", *SERVE_QUICKLY)


def serving(redis_url: str, prefix: str, directory: Path) -> ServeProcess:
    """A node whose races last at most ``LIMIT_MS``; players get a minute's grace, so a
    racer is never dropped before the race times out."""
    args = ("--redis", redis_url, "--redis-prefix", prefix, "--grace-ms", "60000")
    return ServeProcess(free_port(), directory, *args, *FAST, "--max-race-ms", str(LIMIT_MS))


@pytest.fixture
async def store_and_prefix(redis_url: str) -> AsyncIterator[tuple[Store, str]]:
    prefix = f"limit-{uuid.uuid4().hex}:"
    store = open_store(redis_url, prefix=prefix)
    yield store, prefix
    await store.close()


async def stored_result(store: Store, race: str, seconds: float = 10) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while (result := await store.races.load_result(race)) is None:
        assert time.monotonic() < deadline, "the result was never stored"
        await asyncio.sleep(0.05)
    return result


async def as_its_log_replays(store: Store, race: str) -> list[dict[str, object]]:
    record = await store.races.load_race(race)
    assert record is not None
    moment = Now(10**9, int(time.time() * 1000))
    rebuilt = restore(record, rules_for(GAME), await store.races.actions(race), moment)
    ranking: list[dict[str, object]] = race_result(rebuilt)["ranking"]
    return ranking


async def test_a_race_past_its_limit_ends_with_the_unfinished_timed_out_and_is_ranked(
    redis_url: str, store_and_prefix: tuple[Store, str], tmp_path: Path
) -> None:
    store, prefix = store_and_prefix
    wins = winning_actions(GAME, DEAL)
    with serving(redis_url, prefix, tmp_path) as server:
        server.start()
        ann, bob, cy = [await Client.connect(server.url, n) for n in ("Ann", "Bob", "Cy")]
        race = (await ann.create_race(GAME, deal=DEAL, max_players=3))["race"]
        await bob.join_race(race)
        await cy.join_race(race)
        start_at = (await ann.next_event("started")).data["start_at_ms"]
        finished = await Racer(ann, race).play(wins)
        assert finished["outcome"] == "finished"
        await Racer(bob, race).play(wins[:30])
        await Racer(cy, race).play(wins[:3])
        result = (await bob.next_event("result", timeout=LIMIT_MS / 1000 + 10)).data
        assert start_at + LIMIT_MS <= time.time() * 1000 <= start_at + ON_TIME_MS
        outcomes = {entry["player"]: entry["outcome"] for entry in result["ranking"]}
        assert outcomes == {ann.player: "finished", bob.player: "timed_out", cy.player: "timed_out"}
        assert [entry["player"] for entry in result["ranking"]] == [
            ann.player,
            bob.player,
            cy.player,
        ]
        assert (await stored_result(store, race))["ranking"] == result["ranking"]
        assert await as_its_log_replays(store, race) == result["ranking"]
        assert race not in await store.races.listed_races("live")
        for client in (ann, bob, cy):
            await client.close()


async def test_the_limit_is_kept_after_the_process_that_started_the_race_is_killed(
    redis_url: str, store_and_prefix: tuple[Store, str], tmp_path: Path
) -> None:
    store, prefix = store_and_prefix
    wins = winning_actions(GAME, DEAL)
    with serving(redis_url, prefix, tmp_path) as server:
        server.start()
        ann, bob = await Client.connect(server.url, "Ann"), await Client.connect(server.url, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        start_at = (await ann.next_event("started")).data["start_at_ms"]
        await Racer(ann, race).play(wins[:10])
        server.kill()  # nothing of the race is left in any process: only in Redis
        await asyncio.to_thread(server.start)
        assert race in await store.races.listed_races("live")
        await ann.reconnect()  # Bob never comes back; his minute of grace is not over
        # the killed process held the timers lease: it lapses, the new process takes it
        result = (await ann.next_event("result", timeout=LIMIT_MS / 1000 + 20)).data
        assert start_at + LIMIT_MS <= time.time() * 1000 <= start_at + AFTER_A_LOST_HOLDER_MS
        outcomes = {entry["player"]: entry["outcome"] for entry in result["ranking"]}
        assert outcomes == {ann.player: "timed_out", bob.player: "timed_out"}
        assert (await stored_result(store, race))["ranking"] == result["ranking"]
        assert await as_its_log_replays(store, race) == result["ranking"]
        for client in (ann, bob):
            await client.close()


async def test_the_surviving_node_keeps_the_limit_once_the_timers_lease_holder_is_killed(
    redis_url: str, store_and_prefix: tuple[Store, str], tmp_path: Path
) -> None:
    store, prefix = store_and_prefix
    with (
        serving(redis_url, prefix, tmp_path / "a") as a,
        serving(redis_url, prefix, tmp_path / "b") as b,
    ):
        await asyncio.to_thread(a.start)  # the first node takes the leases
        await asyncio.to_thread(b.start)
        assert await lease_holder(store, "timers") == node_of(a)
        ann, bob = await Client.connect(a.url, "Ann"), await Client.connect(b.url, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        start_at = (await bob.next_event("started")).data["start_at_ms"]
        a.kill()  # the timers lease holder, before the race's time is up
        killed_at = time.time() * 1000
        assert killed_at < start_at + LIMIT_MS
        ann.url = b.url  # her client finds the other node (the load balancer's job)
        await ann.reconnect()
        # the lease lapses (10 s), node B takes it and ends the race
        result = (await bob.next_event("result", timeout=LIMIT_MS / 1000 + 20)).data
        assert time.time() * 1000 <= start_at + AFTER_A_LOST_HOLDER_MS
        assert await lease_holder(store, "timers") == node_of(b)
        outcomes = {entry["player"]: entry["outcome"] for entry in result["ranking"]}
        assert outcomes == {ann.player: "timed_out", bob.player: "timed_out"}
        assert (await stored_result(store, race))["ranking"] == result["ranking"]
        for client in (ann, bob):
            await client.close()
