"""Spectating: live races and daily attempts, a snapshot plus a live feed, spectator counts,
delays, refusals — and never a hidden card in any frame a spectator receives."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from harness import member, player, running_server, winning_actions
from hidden_cards import cards_in, hidden
from redis_server import RedisServer

from client.api import ServerError
from protocol.cards import name
from protocol.games import rules_for
from protocol.messages import Watch
from protocol.notation import parse_action
from protocol.race import view_json
from protocol.wire import decode_from_server
from server.store import Store
from server.store.redis_store import RedisStore

GAME, DEAL = "mount_sunflower", 18  # one deck: every card is unique, so a leak is exact


async def test_a_spectator_of_a_live_race_never_receives_a_hidden_card() -> None:
    wins = winning_actions(GAME, DEAL)
    rules = rules_for(GAME)
    async with running_server(countdown_ms=300) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        sam = await player(server, "Sam", record=True)
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await sam.spectate(race)  # during the countdown: no cards yet
        await ann.next_event("started")
        plays = {ann.player: wins[:70] + ["undo", "undo"] + wins[68:90], bob.player: wins[:45]}
        for step in range(max(len(p) for p in plays.values())):
            for client in (ann, bob):
                if step < len(plays[client.player]):
                    await client.act(race, plays[client.player][step])
        expected = sum(len(p) for p in plays.values())
        for _ in range(expected):  # the feed follows in slices: wait for all of it
            await sam.next_event("act", timeout=5)
        truth = {p: rules.start(DEAL) for p in plays}
        checked = 0
        for frame in sam.received:
            message = decode_from_server(frame, sam.encoding)
            if message["type"] == "watch" and message["kind"] == "act":
                racer = message["player"]
                truth[racer] = rules.apply(truth[racer], parse_action(message["action"])).state
                assert not cards_in(message) & hidden(truth[racer]), message
                if "view" in message:
                    assert message["view"] == view_json(rules.view(truth[racer]))
                checked += 1
            elif message["type"] == "watch" and message["kind"] == "started":
                assert message["view"] == view_json(rules.view(rules.start(DEAL)))
                assert not cards_in(message) & hidden(rules.start(DEAL))
            else:
                assert not cards_in(message), message  # welcome, snapshot before the start
        assert checked == expected
        for client in (ann, bob, sam):
            await client.close()


async def test_a_spectator_gets_a_snapshot_of_every_racer_and_the_live_count() -> None:
    wins = winning_actions(GAME, DEAL)
    async with running_server(countdown_ms=0) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        sam, sue = await player(server, "Sam"), await player(server, "Sue")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        for action in wins[:20]:
            last = await ann.act(race, action)
        live = await sam.list_live()
        assert [r["race"] for r in live] == [race]
        picture = await sam.spectate(race)
        views = {p["name"]: p["view"] for p in picture["players"]}
        assert views["Ann"] == (await ann.snapshot(race))["you"]["view"]
        actions = {p["name"]: p["actions"] for p in picture["players"]}
        assert actions == {"Ann": last["actions"], "Bob": 0} and picture["phase"] == "running"
        assert views["Bob"]["stock"] == 24 and picture["feed_seq"] >= 1
        await sue.spectate(race)
        count = await sam.next_event("spectators", where=lambda d: d["count"] == 2)
        assert count.data["count"] == 2
        await ann.act(race, wins[20])
        item = await sam.next_event("act")
        assert item.seq > picture["feed_seq"] and item.data["action"] == wins[20]
        for client in (ann, bob, sam, sue):
            await client.close()


async def test_a_feed_written_in_paced_chunks_reaches_every_spectator_whole_and_in_order() -> None:
    wins = winning_actions(GAME, DEAL)
    # Two spectators per chunk, 5 ms apart: writing to seven spectators outlasts the 10 ms
    # feed tick, so fan-outs of successive items overlap in time.
    async with running_server(countdown_ms=0, spectator_chunk=2, spectator_pause_ms=5) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        fans = [await player(server, f"Fan{i}") for i in range(7)]
        starts = [(await fan.spectate(race))["feed_seq"] for fan in fans]
        for action in wins[:30]:
            await ann.act(race, action)
        for fan, start in zip(fans, starts, strict=True):
            items = [await fan.next_event("act", timeout=5) for _ in range(30)]
            assert [item.data["action"] for item in items] == wins[:30]
            seqs = [item.seq for item in items]
            assert seqs == sorted(seqs) and seqs[0] > start
        for client in (ann, bob, *fans):
            await client.close()


async def test_an_item_reaches_many_spectators_in_order_without_waiting_for_the_tick() -> None:
    wins = winning_actions(GAME, DEAL)
    # The tick never comes during the test (a minute), and three spectators are written to
    # per loop turn: every item below reaches all twelve by the end-of-turn path alone.
    async with running_server(countdown_ms=0, feed_interval_ms=60_000, spectator_chunk=3) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        fans = [await player(server, f"Fan{i}") for i in range(12)]
        starts = [(await fan.spectate(race))["feed_seq"] for fan in fans]
        for action in wins[:20]:
            await ann.act(race, action)
        for fan, start in zip(fans, starts, strict=True):
            items = [await fan.next_event("act", timeout=5) for _ in range(20)]
            assert [item.data["action"] for item in items] == wins[:20]
            seqs = [item.seq for item in items]
            assert seqs == sorted(seqs) and seqs[0] > start
        for client in (ann, bob, *fans):
            await client.close()


async def test_racers_cannot_spectate_their_own_race() -> None:
    async with running_server(countdown_ms=0) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        with pytest.raises(ServerError) as refused:
            await bob.spectate(race)
        assert refused.value.code == "spectate_refused"
        for client in (ann, bob):
            await client.close()


async def test_the_spectator_delay_holds_the_feed_back() -> None:
    async with running_server(countdown_ms=0) as server:
        ann, bob, sam = [await player(server, n) for n in ("Ann", "Bob", "Sam")]
        race = (await ann.create_race(GAME, deal=DEAL, spectator_delay_ms=400))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        await sam.spectate(race)
        sent = time.monotonic()
        await ann.act(race, "t0 1 t1")
        item = await sam.next_event("act", timeout=5)
        assert time.monotonic() - sent >= 0.4
        assert item.data["action"] == "t0 1 t1"
        for client in (ann, bob, sam):
            await client.close()


async def test_a_daily_attempt_is_watched_only_by_accounts_who_finished_their_own() -> None:
    async with running_server() as server:
        ann, bob, cy = [await member(server, n) for n in ("Ann", "Bob", "Cy")]
        gus = await player(server, "Gus")
        attempt = (await ann.daily_start(GAME))["race"]["race"]
        live = await cy.list_live()
        assert [(r["race"], r["mode"]) for r in live] == [(attempt, "daily")]
        with pytest.raises(ServerError) as refused:
            await cy.spectate(attempt)  # Cy has not played today's deal
        assert refused.value.code == "spectate_refused"
        own = (await bob.daily_start(GAME))["race"]["race"]
        with pytest.raises(ServerError):
            await bob.spectate(attempt)  # Bob's own attempt is still running
        await bob.resign(own)
        picture = await bob.spectate(attempt)
        assert picture["players"][0]["name"] == "Ann"
        practice = (await gus.daily_start(GAME))["race"]["race"]  # a guest's: never ranked
        await gus.resign(practice)
        with pytest.raises(ServerError) as refused:
            await gus.spectate(attempt)  # else a guest tab shows the deal to a later account
        assert refused.value.code == "spectate_refused"
        for client in (ann, bob, cy, gus):
            await client.close()


@pytest.mark.parametrize("delay_ms", [0, 60_000])
async def test_a_race_just_over_is_shown_final_alike_on_both_stores_and_its_watch_ends(
    store: Store, delay_ms: int
) -> None:
    async with running_server(store, countdown_ms=0) as server:
        ann, bob, cy = [await player(server, n) for n in ("Ann", "Bob", "Cy")]
        created = await ann.create_race(GAME, deal=DEAL, spectator_delay_ms=delay_ms)
        race = created["race"]
        await bob.join_race(race)
        for client in (ann, bob):
            await client.next_event("started")
        for action in winning_actions(GAME, DEAL)[:3]:
            await ann.act(race, action)
        final = (await ann.snapshot(race))["you"]["view"]
        for client in (ann, bob):
            await client.resign(race)
        await ann.next_event("result")
        watched = await cy.spectate(race)
        assert watched["phase"] == "done" and (watched["feed_seq"], watched["spectators"]) == (0, 0)
        views = {p["name"]: p["view"] for p in watched["players"]}
        assert views["Ann"]["tableau"] == final["tableau"]  # the end, not the start
        ended = await cy.next_event("watch_ended")
        assert ended.data == {"race": race, "reason": "over"}
        assert "view" not in (await cy.snapshot(race))["players"][0]  # not watching


async def test_once_the_deal_is_revealed_spectators_see_every_racer_s_face_down_cards() -> None:
    rules = rules_for(GAME)
    async with running_server(countdown_ms=0) as server:
        ann, bob, cy = [await player(server, n) for n in ("Ann", "Bob", "Cy")]
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await cy.spectate(race)
        for client in (ann, bob):
            await client.next_event("started")
        first = winning_actions(GAME, DEAL)[0]
        await ann.act(race, first)
        for client in (ann, bob):
            await client.resign(race)
        result = await cy.next_event("result")
        assert result.data["deal"] == str(DEAL)  # a race's deal is revealed at its end
        states = {ann.player: rules.apply(rules.start(DEAL), parse_action(first)).state}
        states[bob.player] = rules.start(DEAL)
        for racer, state in states.items():
            down = [
                [name(card) for card in pile[:count]]
                for pile, count in zip(
                    state.position.tableau, state.position.face_down, strict=True
                )
            ]
            view = result.data["revealed"][racer]
            assert view["face_down_cards"] == down and view["face_down"] == [len(p) for p in down]
        watched = await cy.spectate(race)  # the race over, watched afresh: the same
        for standing in watched["players"]:
            assert standing["view"] == result.data["revealed"][standing["player"]]
        for client in (ann, bob, cy):
            await client.close()


async def test_a_first_spectator_never_gets_an_action_their_snapshot_already_holds(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    """A race nobody watched on this node showed its first spectator the race as it was,
    with an action still being written (applied, not yet answered nor fed); once written,
    the feed sent that action again: an ``act`` whose ``actions`` repeated the snapshot's
    (a client applying it plays the move twice). Redis is frozen to hold the write."""
    redis = redis_server_factory()
    store = RedisStore(redis.url, prefix="first-spectator:")
    wins = winning_actions(GAME, DEAL)
    async with running_server(store) as server:
        ann, dee = await player(server, "Ann"), await player(server, "Dee")
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        await ann.act(race, wins[0])
        replica = server.races.rooms[race]
        redis.pause()
        try:
            acting = asyncio.ensure_future(ann.act(race, wins[1]))
            await until(lambda: replica.race.racers[ann.player].last_seq == 2)
            watching = asyncio.ensure_future(dee.spectate(race))
            await until(lambda: bool(replica.spectators))  # its snapshot is taken
        finally:
            redis.resume()
        answer, watched = await acting, await watching
        (ann_seen,) = watched["players"]
        item = await dee.next_event("act", timeout=5)
        assert isinstance(item, Watch)
        assert ann_seen["actions"] < item.data["actions"] == answer["actions"], (ann_seen, item)
        assert item.seq > watched["feed_seq"]  # after the snapshot (a count may come first)
        for client in (ann, dee):
            await client.close()
    await store.close()


async def until(check: Callable[[], bool], seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.005)
