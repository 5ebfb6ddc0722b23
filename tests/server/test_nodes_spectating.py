"""Spectators of a race whose nodes differ from theirs (real ``solrace serve`` processes on
one Redis): the whole feed in order, the spectator delay and the daily's spoiler rule hold on
the other node, and a node hears a race once from Redis however many of its players watch."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from harness import member, winning_actions
from nodes import DEAL, FAST, GAME, eventually, nodes_dealing, view_after
from racers import Racer
from redis.asyncio import Redis
from serve_process import ServeProcess

from client.api import Client, ServerError
from protocol.messages import Watch
from server.store import Store
from server.store.base import race_channel


@pytest.fixture
async def two_nodes(
    redis_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Store, ServeProcess, ServeProcess]]:
    async with nodes_dealing(redis_url, tmp_path, "--grace-ms", "2000", *FAST) as nodes:
        yield nodes


async def feed_until_result(client: Client, race: str, seconds: float = 30) -> list[Watch]:
    """Every spectator feed item of ``race`` that ``client`` receives, up to its result."""
    items: list[Watch] = []
    async with asyncio.timeout(seconds):
        async for item in client.events():
            if isinstance(item, Watch) and item.race == race:
                items.append(item)
                if item.kind == "result":
                    return items
    raise AssertionError("the client closed before the result")


async def test_a_spectator_on_another_node_gets_the_whole_feed_in_order(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    _, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    ann, bob = await Client.connect(a.url, "Ann"), await Client.connect(a.url, "Bob")
    dee = await Client.connect(b.url, "Dee")
    race = (await ann.create_race(GAME, deal=DEAL))["race"]
    await bob.join_race(race)
    for client in (ann, bob):
        await client.next_event("started")
    watched = await dee.spectate(race)  # on node B; both racers are on node A
    ann_racer, bob_racer = Racer(ann, race), Racer(bob, race)
    await ann_racer.play(wins[:40])
    await bob_racer.play(wins[:15])
    await ann_racer.play(wins[40:])
    await bob.resign(race)
    feed = await feed_until_result(dee, race)
    seqs = [item.seq for item in feed]
    assert seqs == list(range(watched["feed_seq"] + 1, watched["feed_seq"] + 1 + len(feed)))
    for racer in (ann_racer, bob_racer):
        acts = [
            i.data["action"]
            for i in feed
            if i.kind == "act" and i.data["player"] == racer.client.player
        ]
        assert acts == racer.acked  # every action, in the order it was played
    assert len(ann_racer.acked) > 100
    assert feed[-1].data["ranking"][0]["player"] == ann.player
    for client in (ann, bob, dee):
        await client.close()


async def test_the_spectator_delay_holds_on_another_node(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    _, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    delay_ms = 1500
    ann, dee = await Client.connect(a.url, "Ann"), await Client.connect(b.url, "Dee")
    race = (await ann.create_race(GAME, deal=DEAL, max_players=1, spectator_delay_ms=delay_ms))[
        "race"
    ]
    await ann.next_event("started")
    await dee.spectate(race)
    racer = Racer(ann, race)
    await racer.play(wins[:1])
    played = time.monotonic()  # answered once stored, about when node B can read it
    await racer.play(wins[1:5])
    seen = await dee.snapshot(race)  # what a spectator sees now: nothing played yet
    (ann_seen,) = seen["players"]
    assert ann_seen["view"] == view_after([])
    item = await dee.next_event("act", where=lambda d: d["player"] == ann.player)
    assert item.data["action"] == wins[0]
    assert delay_ms / 1000 - 0.1 <= time.monotonic() - played <= delay_ms / 1000 + 2

    async def dee_sees_five() -> bool:
        (standing,) = (await dee.snapshot(race))["players"]
        return bool(standing["view"] == view_after(wins[:5]))

    assert await eventually(dee_sees_five, 5)
    for client in (ann, dee):
        await client.close()


async def test_the_daily_spoiler_rule_holds_on_another_node(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    _, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    ann, bob = await member(a.url, "Ann"), await member(a.url, "Bob")
    cy = await member(b.url, "Cy")  # no attempt of his own today
    ann_attempt = (await ann.daily_start(GAME))["race"]["race"]
    bob_attempt = (await bob.daily_start(GAME))["race"]["race"]
    await Racer(ann, ann_attempt).play(wins[:10])
    await Racer(bob, bob_attempt).play(wins[:5])  # on node A, not finished
    bob_on_b = Client(b.url, "Bob")  # Bob comes back through node B
    bob_on_b.token, bob_on_b.last_event = bob.token, bob.last_event
    await bob_on_b.reconnect()
    for refused in (bob_on_b, cy):
        with pytest.raises(ServerError) as error:
            await refused.spectate(ann_attempt)
        assert error.value.code == "spectate_refused"
    await bob_on_b.resign(bob_attempt)  # his own attempt is over now
    watched = await bob_on_b.spectate(ann_attempt)
    assert watched["race"] == ann_attempt
    await Racer(ann, ann_attempt).play(wins[10:11])
    before = watched["players"][0]["actions"]
    # the feed from node A reaches node B: a ranked attempt's progress (no cards till its end)
    item = await bob_on_b.next_event("progress", where=lambda d: d["player"] == ann.player)
    assert item.data["actions"] > before and "events" not in item.data
    for client in (ann, bob, bob_on_b, cy):
        await client.close()


async def acts_seen(client: Client, race: str, count: int, seconds: float = 10) -> list[str]:
    """The actions of the first ``count`` act items of ``race``'s feed ``client`` receives."""
    actions: list[str] = []
    async with asyncio.timeout(seconds):
        async for item in client.events():
            if isinstance(item, Watch) and item.race == race and item.kind == "act":
                actions.append(item.data["action"])
                if len(actions) == count:
                    return actions
    raise AssertionError("the client closed before the actions came")


async def test_a_node_hears_a_race_once_from_redis_however_many_of_its_players_watch(
    two_nodes: tuple[Store, ServeProcess, ServeProcess], redis_url: str
) -> None:
    store, a, b = two_nodes
    ann = await Client.connect(a.url, "Ann")  # racing alone on node A
    race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
    await ann.next_event("started")
    channel = f"{store.prefix}{race_channel(race)}"  # type: ignore[attr-defined]
    redis = Redis.from_url(redis_url)

    async def subscribers() -> int:
        return int(dict(await redis.pubsub_numsub(channel))[channel.encode()])

    first = await Client.connect(b.url, "Watcher0")
    await first.spectate(race)
    with_one = await eventually(subscribers)
    watchers = [first] + [await Client.connect(b.url, f"Watcher{i}") for i in range(1, 6)]
    for watcher in watchers[1:]:
        await watcher.spectate(race)
    assert 1 <= with_one <= 2  # node B (and perhaps node A, whose player races)
    assert await subscribers() == with_one  # one subscription per node, not per watcher
    await Racer(ann, race).play(winning_actions(GAME, DEAL)[:3])
    for watcher in watchers:  # and every watcher on node B gets each item from it
        assert await acts_seen(watcher, race, 3) == winning_actions(GAME, DEAL)[:3]
    await redis.aclose()
    for client in (ann, *watchers):
        await client.close()
