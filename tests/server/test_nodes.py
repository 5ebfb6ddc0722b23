"""Several server processes on one Redis are one service: players of one race on
different nodes race as on one; spectators anywhere see the feed; a player who moves to
another node takes their session with them (the old node's late writes are refused); a
node killed mid-race is carried on by the other. Real processes, a real Redis."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from harness import member, quick_race_played, winning_actions
from nodes import (
    DEAL,
    FAST,
    GAME,
    eventually,
    nodes_dealing,
    racing_across,
    started_nodes,
    view_after,
)
from racers import Racer
from serve_process import ServeProcess

from client.api import Client
from server.store import Store


@pytest.fixture
async def two_nodes(
    redis_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Store, ServeProcess, ServeProcess]]:
    async with nodes_dealing(redis_url, tmp_path, "--grace-ms", "2000", *FAST) as nodes:
        yield nodes


@asynccontextmanager
async def nodes_of_a_fresh_store(
    redis_url: str, tmp_path: Path, *options: str
) -> AsyncIterator[tuple[ServeProcess, ServeProcess]]:
    """Two nodes, started, on a Redis prefix of their own, with ``FAST`` and ``options``
    (a later option wins)."""
    args = ("--redis", redis_url, "--redis-prefix", f"fresh-{uuid.uuid4().hex}:", *FAST, *options)
    async with started_nodes(tmp_path, *args) as (a, b):
        yield a, b


async def test_players_on_two_nodes_race_one_race_with_a_spectator_on_either(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    store, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    race, ann, bob, cy, dee = await racing_across(a, b)
    starts = [(await c.next_event("started")).data for c in (ann, bob)]
    assert starts[0]["you"]["view"] == starts[1]["you"]["view"] == view_after([])
    live_on_b = await dee.list_live()
    assert [info["race"] for info in live_on_b] == [race]
    await cy.spectate(race)  # on Ann's node
    await dee.spectate(race)  # on Bob's node
    ann_racer, bob_racer = Racer(ann, race), Racer(bob, race)
    await ann_racer.play(wins[:30])
    await bob_racer.play(wins[:10])

    async def bob_sees_ann() -> bool:
        info = await bob.snapshot(race)
        ann_there = next(p for p in info["players"] if p["player"] == ann.player)
        return bool(ann_there["actions"] > 0 and ann_there["progress"] >= 0)

    assert await eventually(bob_sees_ann)  # opponents' standings cross nodes
    item = await dee.next_event("act", where=lambda d: d["player"] == ann.player)
    assert item.data["action"] == wins[0]  # Ann's feed reached a spectator on node B

    async def dee_sees_bob_s_cards() -> bool:
        watched = await dee.snapshot(race)
        bob_there = next(p for p in watched["players"] if p["player"] == bob.player)
        return bool(bob_there["view"] == view_after(wins[:10]))

    assert await eventually(dee_sees_bob_s_cards)
    finished = await ann_racer.play(wins[30:])
    assert finished["outcome"] == "finished"
    await bob.resign(race)
    results = [(await c.next_event("result")).data for c in (ann, bob)]
    assert results[0]["ranking"] == results[1]["ranking"]
    assert [entry["player"] for entry in results[0]["ranking"]] == [ann.player, bob.player]
    rematch = (await bob.rematch(race))["race"]  # asked on node B
    offer = await ann.next_event("rematch")  # heard on node A
    assert offer.data == {"race": race, "rematch": rematch, "by": bob.player}
    await ann.join_race(rematch)
    for client in (ann, bob):
        await client.next_event("started", where=lambda d: d["race"] == rematch)
    for racer in (ann_racer, bob_racer):
        logged = [e.action for e in await store.races.racer_log(race, racer.client.player)]
        assert logged == racer.acked
    for client in (ann, bob, cy, dee):
        await client.close()


async def test_a_challenge_from_one_node_reaches_a_player_on_the_other(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    _, a, b = two_nodes
    ann, bob = await Client.connect(a.url, "Ann"), await Client.connect(b.url, "Bob")
    race = (await ann.challenge(bob.player, GAME))["race"]
    told = await bob.next_event("challenged")  # heard on node B
    assert (told.data["race"], told.data["by"], told.data["name"]) == (race, ann.player, "Ann")
    await bob.join_race(race)
    for client in (ann, bob):
        await client.next_event("started", where=lambda d: d["race"] == race)
    # declined on node B, from the race's stored settings; heard on node A
    declined = (await ann.challenge(bob.player, GAME))["race"]
    await bob.decline_challenge(declined)
    told = await ann.next_event("challenge_declined")
    assert (told.data["race"], told.data["by"], told.data["name"]) == (declined, bob.player, "Bob")
    for client in (ann, bob):
        await client.close()


async def test_a_player_who_moves_to_another_node_takes_the_session_and_the_old_one_is_closed(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    store, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    ann = await Client.connect(a.url, "Ann")
    race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
    await ann.next_event("started")
    racer = Racer(ann, race)
    await racer.play(wins[:20])
    old_connection = ann.connection
    in_flight = asyncio.create_task(ann.act(race, wins[20], seq=21))  # on its way to A
    await asyncio.sleep(0)
    moved = Client(b.url, "Ann")
    moved.token, moved.last_event = ann.token, ann.last_event
    welcome = await moved.reconnect()
    assert welcome.player == ann.player and welcome.resumed
    assert old_connection is not None
    await asyncio.wait_for(old_connection.wait_closed(), 5)
    assert old_connection.close_code == 4001  # A let the session go
    await asyncio.gather(in_flight, return_exceptions=True)
    moved.seqs[race] = 20
    again = await moved.act(race, wins[20], seq=21)  # resent on B: answered once
    assert again["seq"] == 21
    for seq, action in enumerate(wins[21:], start=22):
        reply = await moved.act(race, action, seq=seq)
    assert reply["outcome"] == "finished"
    logged = [e.action for e in await store.races.racer_log(race, ann.player)]
    assert logged == wins  # every action once, whichever node wrote it
    await moved.close()
    await ann.close()


async def test_two_resumes_at_once_leave_one_session(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    store, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    ann = await Client.connect(a.url, "Ann")
    race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
    await ann.next_event("started")
    await Racer(ann, race).play(wins[:10])
    await ann.drop()
    twins = [Client(url, "Ann") for url in (a.url, b.url)]
    for twin in twins:
        twin.token = ann.token
    await asyncio.gather(*(twin.reconnect() for twin in twins), return_exceptions=True)
    await asyncio.sleep(1.0)  # the older of the two is told to go
    alive = [t for t in twins if t.connection is not None and t.reader and not t.reader.done()]
    assert len(alive) == 1
    (winner,) = alive
    winner.seqs[race] = 10
    for action in wins[10:]:
        reply = await winner.act(race, action)
    assert reply["outcome"] == "finished"
    assert [e.action for e in await store.races.racer_log(race, ann.player)] == wins
    for twin in twins:
        await twin.close()


async def test_a_node_killed_mid_race_is_carried_on_by_the_other(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    store, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    ann, bob = await Client.connect(a.url, "Ann"), await Client.connect(b.url, "Bob")
    dee = await Client.connect(b.url, "Dee")
    race = (await ann.create_race(GAME, deal=DEAL))["race"]
    await bob.join_race(race)
    start = (await ann.next_event("started")).data
    await bob.next_event("started")
    await dee.spectate(race)
    ann_racer, bob_racer = Racer(ann, race), Racer(bob, race)
    await ann_racer.play(wins[:25])
    a.kill()  # Ann's node is gone
    ann.url = b.url  # her client finds the other node (the load balancer's job)
    await ann.reconnect()
    snapshot = await ann.next_event("snapshot")
    (mine,) = snapshot.data["races"]
    assert mine["you"]["seq"] == 25 and mine["you"]["view"] == view_after(wins[:25])
    assert mine["start_at_ms"] == start["start_at_ms"]
    finished = await ann_racer.play(wins[25:])
    assert finished["outcome"] == "finished"
    await bob_racer.play(wins[:5])
    await bob.resign(race)
    result = (await bob.next_event("result")).data
    assert [entry["player"] for entry in result["ranking"]] == [ann.player, bob.player]
    await dee.next_event("result")  # the spectator on the surviving node saw the end
    for racer in (ann_racer, bob_racer):
        assert [
            e.action for e in await store.races.racer_log(race, racer.client.player)
        ] == racer.acked
    for client in (ann, bob, dee):
        await client.close()


async def test_a_lost_node_s_player_who_never_comes_back_is_dropped_by_the_other_node(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    _, a, b = two_nodes
    ann, bob = await Client.connect(a.url, "Ann"), await Client.connect(b.url, "Bob")
    race = (await ann.create_race(GAME, deal=DEAL))["race"]
    await bob.join_race(race)
    await bob.next_event("started")
    a.kill()  # Ann never comes back

    def ann_dropped(data: dict[str, object]) -> bool:
        players = data.get("players")
        assert isinstance(players, list)
        return any(p["player"] == ann.player and p["outcome"] == "dropped" for p in players)

    # the node's liveness lapses, then her grace period: the surviving node drops her
    await bob.next_event("standings", timeout=40, where=ann_dropped)
    await bob.resign(race)
    result = (await bob.next_event("result")).data
    assert {e["player"]: e["outcome"] for e in result["ranking"]}[ann.player] == "dropped"
    await bob.close()


async def test_boards_are_the_same_whatever_node_wrote_or_reads_them(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    _, a, b = two_nodes
    wins = winning_actions(GAME, DEAL)
    ann, bob = await member(a.url, "Ann"), await member(b.url, "Bob")
    for client, actions in ((ann, wins), (bob, wins[:10] + ["undo"] + wins[9:])):
        attempt = (await client.daily_start(GAME))["race"]["race"]
        await Racer(client, attempt).play(actions)
        await client.next_event("result")

    async def both_on_the_board() -> bool:
        return bool((await ann.daily_board(GAME))["total"] == 2)

    assert await eventually(both_on_the_board)
    boards = [await client.daily_board(GAME) for client in (ann, bob)]
    assert boards[0]["top"] == boards[1]["top"]
    assert sorted(entry["name"] for entry in boards[0]["top"]) == ["Ann", "Bob"]
    best = [await client.best_board(GAME) for client in (ann, bob)]
    assert best[0]["top"] == best[1]["top"] and best[0]["total"] == 2
    for client in (ann, bob):
        await client.close()


async def test_players_waiting_on_two_nodes_are_paired_and_race(
    two_nodes: tuple[Store, ServeProcess, ServeProcess],
) -> None:
    store, a, b = two_nodes
    ann, bob = await member(a.url, "Ann"), await member(b.url, "Bob")
    await ann.quick_race(GAME)
    await bob.quick_race(GAME)  # one pool, in the store, whichever node pairs it
    paired = [(await c.next_event("paired")).data["race"]["race"] for c in (ann, bob)]
    assert paired[0] == paired[1]
    race = paired[0]
    for client in (ann, bob):
        assert (await client.next_event("started")).data["race"] == race
    legal = (await bob.snapshot(race))["you"]["legal"]
    await bob.act(race, legal[0])
    await ann.resign(race)
    await bob.resign(race)
    results = [(await c.next_event("result")).data for c in (ann, bob)]
    assert results[0]["ranking"] == results[1]["ranking"]
    assert await store.pairing.pool(GAME) == []


async def test_a_player_paired_on_another_node_is_told_the_start_even_without_a_countdown(
    redis_url: str, tmp_path: Path
) -> None:
    """With no countdown the race has started before the other node follows it: its racer
    there is told ``started`` (their cards) right after ``paired``, as the pairer's is."""
    async with nodes_of_a_fresh_store(redis_url, tmp_path, "--countdown-ms", "0") as (a, b):
        ann, bob = await member(a.url, "Ann"), await member(b.url, "Bob")
        await ann.quick_race(GAME)
        await bob.quick_race(GAME)
        race = (await ann.next_event("paired")).data["race"]["race"]
        for client in (ann, bob):
            started = (await client.next_event("started", timeout=5)).data
            assert started["race"] == race and started["you"]["legal"]


async def told_unrated(client: Client, race: str, seconds: float = 2.0) -> list[str]:
    """The reasons of every ``unrated`` event ``client`` hears of ``race`` within ``seconds``."""
    reasons = []
    while True:
        try:
            told = await client.next_event("unrated", seconds, lambda e: e["race"] == race)
        except TimeoutError:
            return reasons
        reasons.append(told.data["reason"])


async def test_racers_on_two_nodes_are_told_once_why_their_race_was_not_rated(
    redis_url: str, tmp_path: Path
) -> None:
    """Each node follows the race and asks the store's facts (here: two accounts on one
    address); each racer hears ``unrated`` once, from their own node."""
    ends_by_the_clock = ("--countdown-ms", "0", "--max-race-ms", "1500")
    async with nodes_of_a_fresh_store(redis_url, tmp_path, *ends_by_the_clock) as (a, b):
        ann, bob = await member(a.url, "Ann"), await member(b.url, "Bob")
        race = await quick_race_played(ann, bob, GAME)
        assert [await told_unrated(c, race) for c in (ann, bob)] == [["same_address"]] * 2
