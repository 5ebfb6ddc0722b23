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
from typing import Any

import pytest
from harness import member, player, running_server, two_servers, url, winning_actions

from client.api import Client, ServerError
from protocol.arena import Cleared, HeatResult
from protocol.player_events import Paired
from protocol.race import Now
from protocol.signing import signature_problem
from protocol.verify import check_log
from protocol.verify_arena import check_arena
from server.app import RaceServer
from server.desks.arena_desk import arena_of, record_of
from server.desks.arena_known import SCORED_AT_END_MS
from server.desks.arena_pairer import LEASE_MS
from server.desks.arena_scoring import LOST_HEAT_MS
from server.handover.effects import PushAnywhere
from server.store import Store
from server.store.arena_records import HeatStart

HOUR_MS = 3_600_000
GAME = "sanibel"
DEAL = 1  # a deal of GAME with a win kept as test data
TOKEN = "moderators-token-of-the-arena-tests"


@pytest.fixture
async def server(store: Store) -> AsyncIterator[RaceServer]:
    async with running_server(store, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as running:
        yield running


@pytest.fixture
async def server_repeating_soon(store: Store) -> AsyncIterator[RaceServer]:
    """As ``server``, but two last opponents may meet again after 5 s idle, not 20 s
    (``--arena-repeat-after-ms``): a test of two entrants waits for it."""
    async with running_server(
        store, arena_every_ms=HOUR_MS, sweep_every_s=0.2, arena_repeat_after_ms=5_000
    ) as running:
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
    mine = (await ann.arena_standings(arena))["me"]
    assert mine["heat"] == again["race"]  # the heat Ann races now, to watch
    for client in players:
        await client.close()


async def test_players_who_just_entered_are_paired_in_the_next_wave_without_a_breather(
    server: RaceServer,
) -> None:
    """The server's own waves stopped, Ann and Bob enter; the next wave, run a moment
    later, pairs them (a breather is only for a player back from a heat)."""
    ann, bob = await member(server, "Ann"), await member(server, "Bob")
    arena = await the_arena(ann)
    tick = server.arenas.tick

    async def pairs_no_more(moment: Now) -> list[Any]:
        return []

    server.arenas.tick = pairs_no_more  # type: ignore[method-assign]
    await asyncio.sleep(1.5)  # a wave under way when it was replaced is over
    for client in (ann, bob):
        await client.join_arena(arena)
    server.executor.run(await tick(Now(int(time.monotonic() * 1000), int(time.time() * 1000))))
    heats = [(await c.next_event("paired", timeout=2)).data["race"]["race"] for c in (ann, bob)]
    assert heats[0] == heats[1]
    for client in (ann, bob):
        await client.close()


async def test_a_guest_is_refused_entry_with_the_standing_s_code(server: RaceServer) -> None:
    guest = await player(server, "Gus")
    arena = await the_arena(guest)
    with pytest.raises(ServerError) as refused:
        await guest.join_arena(arena)
    assert refused.value.code == "guest"
    await guest.close()


async def test_the_standings_of_an_arena_nobody_entered_yet_are_empty_and_may_be_watched(
    server: RaceServer,
) -> None:
    gus = await player(server, "Gus")  # a guest: watching takes no account
    arena = await the_arena(gus)
    page = await gus.arena_standings(arena)
    assert (page["version"], page["players"], page["top"], page["me"]) == (0, 0, [], None)
    assert page["status"] == "running"
    assert (await gus.watch_arena(arena))["watching"] is True
    await gus.close()


async def test_an_arena_the_calendar_does_not_hold_is_not_found(server: RaceServer) -> None:
    ann = await member(server, "Ann")
    with pytest.raises(ServerError) as refused:
        await ann.join_arena("sanibel-hourly-20200101T0000")
    assert refused.value.code == "arena_not_found"
    await ann.close()


async def test_at_its_end_no_heat_starts_running_heats_count_and_places_go_on_profiles(
    server: RaceServer,
) -> None:
    ann, bob, arena, heat = await two_paired(server)
    end_ms = (await ann.list_arenas(GAME))[0]["end_ms"]
    after = Now(int(time.monotonic() * 1000), end_ms + 1)
    with pytest.raises(ServerError) as refused:
        await ann.arena_result(arena)
    assert refused.value.code == "arena_not_over"
    assert await server.arenas.tick(after) == []  # a heat runs: the arena waits for it
    assert (await server.store.arenas.arena(arena)).status == "running"  # type: ignore[union-attr]
    for client in (ann, bob):
        await client.next_event("started")
        await client.resign(heat)
    for _ in range(100):  # the heat is scored as its race ends
        heats = await server.store.arenas.heats(arena)
        if [e for e in await server.store.arenas.log(arena) if isinstance(e, HeatResult)]:
            break
        await asyncio.sleep(0.05)
    assert await server.arenas.tick(after) == []  # no new heat after the end: it ends
    assert len(heats) == 1
    assert (await server.store.arenas.arena(arena)).status == "ended"  # type: ignore[union-attr]
    final = await bob.next_event("arena_standings", timeout=5, where=lambda data: data["final"])
    assert final.data["version"] == 1 and final.data["players"] == 2
    log = await bob.race_log(heat)  # the arena is over: the heat's log, its deal shown
    assert log["deal"] is not None and check_log(log) == []
    result = await bob.arena_result(arena)  # signed, and it checks with the heat's log
    assert bob.welcome is not None and bob.welcome.signing_key is not None
    key = bob.welcome.signing_key
    assert signature_problem(result, {key["key"]: key["public_key"]}) is None
    assert [line["player"] for line in result["standings"]] == sorted([ann.player, bob.player])
    assert check_arena(result, {heat: log}) == []
    profile = await bob.profile(bob.player)
    assert [(line["arena"], line["players"]) for line in profile["arenas"]] == [(arena, 2)]
    assert profile["best_arena_place"] in (1, 2)
    for client in (ann, bob):
        await client.close()


async def two_paired(server: RaceServer) -> tuple[Client, Client, str, str]:
    """Ann and Bob enter the running arena and are paired: they, the arena and the heat."""
    ann, bob = await member(server, "Ann"), await member(server, "Bob")
    arena = await the_arena(ann)
    for client in (ann, bob):
        await client.join_arena(arena)
    heat = (await ann.next_event("paired", timeout=15)).data["race"]["race"]
    await bob.next_event("paired")
    return ann, bob, arena, heat


async def a_held_heat(server: RaceServer) -> tuple[Client, Client, str, str]:
    """Ann and Bob are paired; Ann plays at a machine's pace (24 actions, move and undo),
    both resign: fair play holds the heat. Ann, Bob, the arena and the heat."""
    ann, bob, arena, heat = await two_paired(server)
    started = (await ann.next_event("started")).data
    move = next(action for action in started["you"]["legal"] if action != "undo")
    for _ in range(12):  # 24 actions at a machine's pace
        await ann.act(heat, move)
        await ann.act(heat, "undo")
    await bob.next_event("started")
    for client in (ann, bob):
        await client.resign(heat)
    return ann, bob, arena, heat


async def test_a_player_fair_play_flags_is_removed_and_the_standings_told_within_5_s(
    store: Store,
) -> None:
    async with running_server(
        store, arena_every_ms=HOUR_MS, sweep_every_s=0.2, hold_flagged=True
    ) as server:
        ann, bob, arena, heat = await a_held_heat(server)
        over = time.monotonic()
        held = await ann.next_event("held", timeout=10)
        assert held.data["race"] == heat
        told = await bob.next_event(
            "arena_standings", timeout=10, where=lambda data: data["version"] >= 2
        )
        assert time.monotonic() - over < 5
        assert told.data["players"] == 1 and told.data["top"][0]["player"] == bob.player
        assert told.data["top"][0]["heats"] == 0  # held: no heat counted
        review = await server.store.moderation.review(heat)
        assert review is not None and review["held"] and review["arena"] == arena
        with pytest.raises(ServerError) as refused:
            await ann.join_arena(arena)
        assert refused.value.code == "removed_from_arena"
        for client in (ann, bob):
            await client.close()


async def test_a_moderator_s_clearing_of_a_held_heat_counts_it_and_the_removed_stay_removed(
    store: Store,
) -> None:
    async with running_server(
        store, arena_every_ms=HOUR_MS, sweep_every_s=0.2, hold_flagged=True, admin_token=TOKEN
    ) as server:
        ann, bob, arena, heat = await a_held_heat(server)
        await bob.next_event("arena_standings", timeout=10, where=lambda d: d["version"] >= 2)
        cleared = await bob.request(
            "admin", token=TOKEN, command="clear", race=heat, reason="a person after all"
        )
        assert cleared["review"]["status"] == "cleared"
        assert (await server.store.arenas.log(arena))[-1] == Cleared(heat)
        told = await bob.next_event(
            "arena_standings", timeout=10, where=lambda data: data["version"] >= 3
        )
        assert told.data["players"] == 1 and told.data["top"][0]["heats"] == 1  # it counts
        with pytest.raises(ServerError) as refused:  # decided: it is cleared once
            await bob.request("admin", token=TOKEN, command="clear", race=heat, reason="again")
        assert refused.value.code == "not_flagged"
        assert len(await server.store.arenas.log(arena)) == 3
        rated = await server.store.accounts.ratings(GAME, [ann.player, bob.player])
        assert all(rating.games == 0 for rating in rated.values())  # a heat rates nobody
        with pytest.raises(ServerError) as still:
            await ann.join_arena(arena)
        assert still.value.code == "removed_from_arena"
        for client in (ann, bob):
            await client.close()


async def test_a_moderator_s_voiding_of_a_held_heat_never_counts_it(store: Store) -> None:
    async with running_server(
        store, arena_every_ms=HOUR_MS, sweep_every_s=0.2, hold_flagged=True, admin_token=TOKEN
    ) as server:
        ann, bob, arena, heat = await a_held_heat(server)
        await bob.next_event("arena_standings", timeout=10, where=lambda d: d["version"] >= 2)
        await bob.request("admin", token=TOKEN, command="void", race=heat, reason="a machine")
        log = await server.store.arenas.log(arena)
        assert len(log) == 2 and Cleared(heat) not in log
        page = await bob.arena_standings(arena)
        assert page["me"]["heats"] == 0
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


async def test_an_entrant_who_comes_back_on_another_node_is_told_there(redis_url: str) -> None:
    async with two_servers(redis_url, arena_every_ms=HOUR_MS, sweep_every_s=0.2) as (a, b):
        ann, bob = await member(a, "Ann"), await member(a, "Bob")
        arena = await the_arena(ann)
        for client in (ann, bob):
            await client.join_arena(arena)
        ann.url = url(b)  # Ann's session goes on on node B
        await ann.resume()
        heat = (await ann.next_event("paired", timeout=15)).data["race"]["race"]
        for client in (ann, bob):
            await client.next_event("started", timeout=10)
            await client.resign(heat)
        told = await ann.next_event(
            "arena_standings", timeout=10, where=lambda data: data["version"] >= 1
        )
        assert told.data["me"]["player"] == ann.player
        for client in (ann, bob):
            await client.close()


async def test_an_operator_s_arena_is_listed_joined_and_run_as_the_calendar_s(
    store: Store,
) -> None:
    async with running_server(store, admin_token=TOKEN) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        start_ms = (int(time.time() * 1000) // 60_000 + 2) * 60_000
        made = {"game": GAME, "key": "friday", "title": "Friday", "start_ms": start_ms}
        asked = {"token": TOKEN, "command": "arena_create", "minutes": 10, "heat_size": 2}
        arena = (await ann.request("admin", **asked, **made))["arena"]
        again = await ann.request("admin", **asked, **made)  # a retry: the same arena
        assert again["arena"] == arena and arena["scheduled"] is False
        with pytest.raises(ServerError) as taken:
            await ann.request("admin", **asked, **{**made, "title": "Saturday"})
        assert taken.value.code == "arena_taken"
        listed = [a for a in await bob.list_arenas(GAME) if a["id"] == arena["id"]]
        assert [(a["title"], a["status"]) for a in listed] == [("Friday", "scheduled")]
        for client in (ann, bob):
            assert (await client.join_arena(arena["id"]))["status"] == "scheduled"
        assert (await bob.arena_standings(arena["id"]))["players"] == 0
        effects = await server.arenas.tick(Now(int(time.monotonic() * 1000), start_ms + 1))
        record = await server.store.arenas.arena(arena["id"])
        assert record is not None and record.status == "running" and record.made_by == "operator"
        (heat,) = await server.store.arenas.heats(arena["id"])
        assert sorted(heat.racers) == sorted([ann.player, bob.player])
        told = {
            e.player: e.event.race
            for e in effects
            if isinstance(e, PushAnywhere) and isinstance(e.event, Paired)
        }
        assert set(told) == {ann.player, bob.player}
        assert {race["arena"] for race in told.values()} == {arena["id"]}
        for client in (ann, bob):
            await client.close()


async def test_a_risk_racer_s_undo_is_refused_in_a_heat_and_a_risk_win_pays_two_more(
    server_repeating_soon: RaceServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = server_repeating_soon
    monkeypatch.setattr("server.desks.arena_pairer.wave_deal", lambda *_: DEAL)  # a known win
    ann, bob = await member(server, "Ann"), await member(server, "Bob")
    arena = await the_arena(ann)
    await ann.join_arena(arena, risk=True)
    await bob.join_arena(arena)
    heat = (await ann.next_event("paired", timeout=15)).data["race"]
    assert heat["risk"] == [ann.player]
    race = heat["race"]
    await ann.next_event("started")
    wins = winning_actions(GAME, DEAL)
    await ann.act(race, wins[0])
    with pytest.raises(ServerError) as refused:
        await ann.act(race, "undo")
    assert refused.value.code == "undo_disabled"
    for action in wins[1:]:
        await ann.act(race, action)
    await bob.next_event("started")
    await bob.resign(race)
    told = await ann.next_event("arena_standings", timeout=15, where=lambda d: d["version"] >= 1)
    assert told.data["me"]["wins"] == 1 and told.data["me"]["risk_wins"] == 1
    assert told.data["me"]["points"] == 2 + 2  # the win in a heat of 2, and risk's 2
    assert (await ann.change_arena(arena, "risk_off"))["changed"] is True
    again = (await ann.next_event("paired", timeout=15)).data["race"]  # alone: after 5 s
    assert again["risk"] == []  # off from the next heat on
    for client in (ann, bob):
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
    seen_over = now_ms + LOST_HEAT_MS - SCORED_AT_END_MS - 1000  # the pairer knows it over
    await server.arenas.tick(Now(monotonic_ms, seen_over))
    await server.arenas.tick(Now(monotonic_ms, now_ms + LOST_HEAT_MS - 1000))
    results = [e for e in await server.store.arenas.log(arena_id) if isinstance(e, HeatResult)]
    assert results == []  # its race may still open
    await server.arenas.tick(Now(monotonic_ms, now_ms + LOST_HEAT_MS))
    results = [e for e in await server.store.arenas.log(arena_id) if isinstance(e, HeatResult)]
    assert [r.heat for r in results] == ["never-opened"]
    assert not any(racer.finished for racer in results[0].racers)
    await ann.close()
