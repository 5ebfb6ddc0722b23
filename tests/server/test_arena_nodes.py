"""One arena on two real ``solrace serve`` nodes sharing one real Redis (issue 35, "How it
must hold up"; docs/arenas.md, "Playing an arena" and its decisions): entrants on both
nodes race heats whose racers are on different nodes, and both nodes tell the same
standings; the node holding the ``timers`` lease (which runs the arenas) is killed with
-9 in the middle of a heat, and the other node takes the pairing over within the lease
time, scores the heat that was running once, and keeps pairing the entrants. At the end
the arena's log in the store holds every heat played exactly once."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import pytest
from harness import member
from nodes import FAST, eventually, lease_holder, node_of
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client
from protocol.arena import HeatResult, standings
from server.duties import LEASE_TTL_MS
from server.store import Store, open_store

GAME = "sanibel"
DAY_MS = 86_400_000  # a trial arena of a day: it runs for the whole test
SWEEP_S = 2.0  # a node claims the lapsed lease on its next sweep (``sweep_every_s``)
PAIRER_S = 1.0  # and runs the arenas every second (``arena_pairer.PAIR_EVERY_S``)
TAKE_OVER_S = LEASE_TTL_MS / 1000 + SWEEP_S + PAIRER_S


def arena_node(directory: Path, redis_url: str, prefix: str) -> ServeProcess:
    args = ("--redis", redis_url, "--redis-prefix", prefix, "--grace-ms", "60000")
    args += ("--arena-every-ms", str(DAY_MS), "--registrations-per-address", "100", *FAST)
    return ServeProcess(free_port(), directory, *args)


async def paired(clients: list[Client]) -> dict[str, frozenset[str]]:
    """Every client is put in a heat and its heat starts: the heats, by race, and racers."""
    heats: dict[str, frozenset[str]] = {}
    for client in clients:
        race = (await client.next_event("paired", timeout=40)).data["race"]
        heats[race["race"]] = frozenset(p["player"] for p in race["players"])
        await client.next_event("started", where=lambda d, r=race["race"]: d["race"] == r)
    return heats


async def resigned(clients: list[Client], heats: dict[str, frozenset[str]]) -> None:
    for client in clients:
        await client.resign(next(r for r, racers in heats.items() if client.player in racers))


async def heats_raced(clients: list[Client]) -> dict[str, frozenset[str]]:
    heats = await paired(clients)
    await resigned(clients, heats)
    return heats


async def scored(store: Store, arena: str) -> list[str]:
    return [e.heat for e in await store.arenas.log(arena) if isinstance(e, HeatResult)]


@pytest.mark.timeout(180)
async def test_two_nodes_run_one_arena_and_the_survivor_takes_it_over_when_its_runner_is_killed(
    redis_url: str, tmp_path: Path
) -> None:
    prefix = f"arena-nodes-{uuid.uuid4().hex}:"
    store = open_store(redis_url, prefix=prefix)
    with (
        arena_node(tmp_path / "a", redis_url, prefix) as a,
        arena_node(tmp_path / "b", redis_url, prefix) as b,
    ):
        await asyncio.to_thread(a.start)  # the first node takes the leases: it runs arenas
        await asyncio.to_thread(b.start)
        assert await lease_holder(store, "timers") == node_of(a)
        clients = [await member(a.url, "Ann"), await member(a.url, "Bob")]
        clients += [await member(b.url, "Cy"), await member(b.url, "Dee")]
        node = {c.player: ("a" if c.url == a.url else "b") for c in clients}
        arenas = await clients[0].list_arenas(GAME)
        arena: str = next(x["id"] for x in arenas if x["status"] == "running")
        for client in clients:
            await client.join_arena(arena)

        played = await heats_raced(clients)
        played |= await heats_raced(clients)  # nobody meets their last opponent: across
        assert any(len({node[p] for p in racers}) == 2 for racers in played.values())

        async def told_alike() -> bool:  # both nodes tell the same standings
            pages = [await c.arena_standings(arena) for c in (clients[0], clients[2])]
            seen = [(p["version"], p["players"], p["top"]) for p in pages]
            return seen[0][0] == len(played) and seen[0] == seen[1]

        assert await eventually(told_alike, 15)

        in_flight = await paired(clients)
        a.kill()  # kill -9 the node running the arena, in the middle of the heats
        killed_at = time.monotonic()
        for client in clients[:2]:  # theirs come back on b (the load balancer's job)
            client.url = b.url
            await client.reconnect()
        await resigned(clients, in_flight)
        played |= in_flight

        async def b_runs_the_arenas() -> bool:
            return await lease_holder(store, "timers") == node_of(b)

        async def scored_by_b() -> bool:  # the heats running at the kill, scored by b
            return set(in_flight) <= set(await scored(store, arena))

        assert await eventually(b_runs_the_arenas, TAKE_OVER_S)
        assert time.monotonic() - killed_at <= TAKE_OVER_S
        assert await eventually(scored_by_b, TAKE_OVER_S)  # once the arena's lease lapsed
        played |= await heats_raced(clients)  # the entrants keep being paired, on b

        async def all_scored() -> bool:
            return len(await scored(store, arena)) >= len(played)

        assert await eventually(all_scored, 15)
        log = await store.arenas.log(arena)
        results = [entry for entry in log if isinstance(entry, HeatResult)]
        assert sorted(r.heat for r in results) == sorted(played)  # each heat once, none lost
        assert {r.heat: frozenset(x.player for x in r.racers) for r in results} == played
        assert {h.heat for h in await store.arenas.heats(arena)} == set(played)
        assert {line.player: line.heats for line in standings(log)} == {
            c.player: 4 for c in clients
        }
        for client in clients:
            await client.close()
    await store.close()
