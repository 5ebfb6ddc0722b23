"""Arenas end to end (docs/arenas.md, "Playing an arena"): players list the arenas, enter
one, are put in heats while it runs (told ``paired``; the heat's race names its arena and
moves no rating), each heat over is scored into the standings pushed to every participant,
and idle players are paired again; a player who does not meet the entry conditions is
refused with its code; a heat recorded whose race never opened (its node died between the
two) is scored as nobody finishing after a minute. A real server on both stores, trial
arenas of an hour."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from harness import member, player, running_server

from client.api import Client, ServerError
from protocol.arena import HeatResult
from protocol.race import Now
from protocol.verify import check_log
from server.app import RaceServer
from server.desks.arena_desk import arena_of, record_of
from server.desks.arena_pairer import LEASE_MS, LOST_HEAT_MS
from server.store import Store
from server.store.arena_records import HeatStart

HOUR_MS = 3_600_000
GAME = "sanibel"


@pytest.fixture
async def server(store: Store) -> AsyncIterator[RaceServer]:
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as running:
        yield running


async def the_arena(client: Client) -> str:
    arenas = await client.list_arenas(GAME)
    running = [arena for arena in arenas if arena["status"] == "running"]
    assert [arena["game"] for arena in running] == [GAME]
    arena: str = running[0]["id"]
    return arena


async def test_the_list_shows_each_game_s_arena_running_now(server: RaceServer) -> None:
    ann = await member(server, "Ann")
    arenas = await ann.list_arenas()
    running = {arena["game"] for arena in arenas if arena["status"] == "running"}
    assert running == {"sanibel", "shady_lanes", "mount_sunflower", "mount_sunflower_easy"}
    assert all(arena["heat_size"] == 2 and arena["players"] == 0 for arena in arenas)
    await ann.close()


async def test_entrants_race_heats_that_score_and_are_paired_again_with_someone_new(
    server: RaceServer,
) -> None:
    players = [await member(server, name) for name in ("Ann", "Bob", "Cy", "Dee")]
    ann = players[0]
    arena = await the_arena(ann)
    assert (await ann.join_arena(arena))["joined"] is True
    assert (await ann.join_arena(arena))["joined"] is False  # entering again changes nothing
    for client in players[1:]:
        await client.join_arena(arena)
    heats = {c.player: (await c.next_event("paired", timeout=15)).data["race"] for c in players}
    assert {heat["arena"] for heat in heats.values()} == {arena}
    assert all(heat["ranked"] and heat["max_players"] == 2 for heat in heats.values())
    assert len({heat["race"] for heat in heats.values()}) == 2  # two heats of two
    for client in players:
        await client.next_event("started")
        await client.resign(heats[client.player]["race"])
    result = await ann.next_event("result")
    assert result.data["deal"] is None and result.data["nonce"] is None  # the wave's deal
    unrated = await ann.next_event("unrated")
    assert unrated.data["reason"] == "arena"
    with pytest.raises(ServerError) as refused:
        await ann.race_log(heats[ann.player]["race"])
    assert refused.value.code == "heat_log_later"
    told = await ann.next_event(
        "arena_standings", timeout=15, where=lambda data: data["version"] >= 2
    )
    assert told.data["arena"] == arena and told.data["players"] == 4
    assert told.data["me"]["heats"] == 1 and told.data["me"]["points"] == 0  # nobody finished
    again = (await ann.next_event("paired", timeout=15)).data["race"]  # idle again: a new wave
    first_opponent = next(p for p in heats[ann.player]["players"] if p["player"] != ann.player)
    assert first_opponent["player"] not in {p["player"] for p in again["players"]}
    page = await players[1].arena_standings(arena)
    assert page["version"] >= 2 and page["me"]["player"] == players[1].player
    for client in players:
        await client.close()


async def test_a_guest_is_refused_entry_with_the_standing_s_code(server: RaceServer) -> None:
    guest = await player(server, "Gus")
    arena = await the_arena(guest)
    with pytest.raises(ServerError) as refused:
        await guest.join_arena(arena)
    assert refused.value.code == "guest"
    await guest.close()


async def test_an_arena_the_calendar_does_not_hold_is_not_found(server: RaceServer) -> None:
    ann = await member(server, "Ann")
    with pytest.raises(ServerError) as refused:
        await ann.join_arena("sanibel-hourly-20200101T0000")
    assert refused.value.code == "arena_not_found"
    await ann.close()


async def test_at_its_end_no_heat_starts_running_heats_count_and_places_go_on_profiles(
    server: RaceServer,
) -> None:
    ann, bob = await member(server, "Ann"), await member(server, "Bob")
    arena = await the_arena(ann)
    for client in (ann, bob):
        await client.join_arena(arena)
    heat = (await ann.next_event("paired", timeout=15)).data["race"]["race"]
    await bob.next_event("paired")
    end_ms = (await ann.list_arenas(GAME))[0]["end_ms"]
    after = Now(int(time.monotonic() * 1000), end_ms + 1)
    assert await server.arenas.tick(after) == []  # a heat runs: the arena waits for it
    assert (await server.store.arenas.arena(arena)).status == "running"  # type: ignore[union-attr]
    for client in (ann, bob):
        await client.next_event("started")
        await client.resign(heat)
    for _ in range(100):
        heats = await server.store.arenas.heats(arena)
        record = await server.store.races.load_race(heat)
        if record is not None and record["phase"] == "done":
            break
        await asyncio.sleep(0.05)
    assert await server.arenas.tick(after) == []  # scored, and no new heat after the end
    assert len(heats) == 1
    assert (await server.store.arenas.arena(arena)).status == "ended"  # type: ignore[union-attr]
    final = await bob.next_event("arena_standings", timeout=5, where=lambda data: data["final"])
    assert final.data["version"] == 1 and final.data["players"] == 2
    log = await bob.race_log(heat)  # the arena is over: the heat's log, its deal shown
    assert log["deal"] is not None and check_log(log) == []
    profile = await bob.profile(bob.player)
    assert [(line["arena"], line["players"]) for line in profile["arenas"]] == [(arena, 2)]
    assert profile["best_arena_place"] in (1, 2)
    for client in (ann, bob):
        await client.close()


async def test_a_player_fair_play_flags_is_removed_and_the_standings_told_within_5_s(
    store: Store,
) -> None:
    async with running_server(
        store, arena_every_ms=HOUR_MS, sweep_every_s=0.2, hold_flagged=True
    ) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        arena = await the_arena(ann)
        for client in (ann, bob):
            await client.join_arena(arena)
        heat = (await ann.next_event("paired", timeout=15)).data["race"]["race"]
        await bob.next_event("paired")
        started = (await ann.next_event("started")).data
        move = next(action for action in started["you"]["legal"] if action != "undo")
        for _ in range(12):  # 24 actions at a machine's pace
            await ann.act(heat, move)
            await ann.act(heat, "undo")
        await bob.next_event("started")
        for client in (ann, bob):
            await client.resign(heat)
        over = time.monotonic()
        held = await ann.next_event("held", timeout=10)
        assert held.data["race"] == heat
        told = await bob.next_event(
            "arena_standings", timeout=10, where=lambda data: data["version"] >= 2
        )
        assert time.monotonic() - over < 5
        assert told.data["players"] == 1 and told.data["top"][0]["player"] == bob.player
        review = await server.store.moderation.review(heat)
        assert review is not None and review["held"]
        with pytest.raises(ServerError) as refused:
            await ann.join_arena(arena)
        assert refused.value.code == "removed_from_arena"
        for client in (ann, bob):
            await client.close()


async def test_a_heat_s_spectators_see_no_card_even_after_it_ends(server: RaceServer) -> None:
    ann, bob, dee = (
        await member(server, "Ann"),
        await member(server, "Bob"),
        await player(server, "Dee"),
    )
    arena = await the_arena(ann)
    for client in (ann, bob):
        await client.join_arena(arena)
    heat = (await ann.next_event("paired", timeout=15)).data["race"]["race"]
    await dee.spectate(heat)
    for client in (ann, bob):
        await client.next_event("started")
        await client.resign(heat)
    result = await dee.next_event("result", timeout=10)
    assert "boards" not in result.data and "revealed" not in result.data
    assert result.data["deal"] is None
    snapshot = await dee.snapshot(heat)
    assert all("view" not in standing for standing in snapshot["players"])
    for client in (ann, bob, dee):
        await client.close()


async def test_a_heat_recorded_whose_race_never_opened_counts_as_nobody_finishing_after_a_minute(
    server: RaceServer,
) -> None:
    ann = await member(server, "Ann")
    arena_id = await the_arena(ann)
    await server.store.arenas.create_arena(
        record_of(arena_of(server.arena_desk.calendar, arena_id))
    )
    now_ms = int(time.time() * 1000)
    for racer in ("p1", "p2"):  # joined and paused at once: the server never pairs them
        await server.store.arenas.join(arena_id, racer, now_ms)
        await server.store.arenas.change(arena_id, racer, "pause", now_ms)
    token = await server.store.arenas.take_lease(arena_id, server.arenas.node, LEASE_MS)
    assert token is not None  # the server's own lease (its pairer's, renewed)
    heat = HeatStart("never-opened", 1, 12345, ("p1", "p2"), now_ms)  # its node died here
    await server.store.arenas.start_heat(arena_id, heat, token)
    monotonic_ms = int(time.monotonic() * 1000)
    await server.arenas.tick(Now(monotonic_ms, now_ms + LOST_HEAT_MS - 1000))
    results = [e for e in await server.store.arenas.log(arena_id) if isinstance(e, HeatResult)]
    assert results == []  # its race may still open
    await server.arenas.tick(Now(monotonic_ms, now_ms + LOST_HEAT_MS))
    results = [e for e in await server.store.arenas.log(arena_id) if isinstance(e, HeatResult)]
    assert [r.heat for r in results] == ["never-opened"]
    assert not any(racer.finished for racer in results[0].racers)
    await ann.close()
