"""Head-to-head races over real sockets: same deal at the same moment, server-measured
times, resends answered once, opponents' progress without their cards, a total ranking,
resume mid-race, rematch."""

from __future__ import annotations

import asyncio
import time

import pytest
from harness import player, running_server, winning_actions

from client.api import ServerError
from protocol.games import rules_for
from protocol.notation import parse_action
from protocol.replay import replay
from protocol.wire import decode_from_server

GAME, DEAL = "mount_sunflower", 18


def counted_actions(actions: list[str]) -> int:
    """Actions as the ranking counts them: one each, an ``auto`` one per card it moves."""
    rules = rules_for(GAME)
    state, total = rules.start(DEAL), 0
    for action in actions:
        outcome = rules.apply(state, parse_action(action))
        state, total = outcome.state, total + outcome.counted
    return total


def test_the_winning_action_list_really_wins() -> None:
    rules = rules_for(GAME)
    assert rules.is_won(replay(rules, DEAL, winning_actions(GAME, DEAL)).position)


async def test_two_players_race_one_deal_to_the_end_and_are_ranked_with_a_resume_midway() -> None:
    wins = winning_actions(GAME, DEAL)
    async with running_server(countdown_ms=200) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        countdowns = [await c.next_event("countdown") for c in (ann, bob)]
        assert countdowns[0].data["start_at_ms"] == countdowns[1].data["start_at_ms"]
        started = [await c.next_event("started") for c in (ann, bob)]
        assert started[0].data["you"]["view"] == started[1].data["you"]["view"]
        assert started[0].data["start_at_ms"] == countdowns[0].data["start_at_ms"]

        for action in wins[:40]:  # Bob plays the first part, then his network drops
            await bob.act(race, action)
        await bob.drop()
        for action in wins[:-1]:
            reply = await ann.act(race, action)
        assert reply["outcome"] is None
        first = await ann.act(race, wins[-1])
        assert first["outcome"] == "finished" and first["time_ms"] > 0
        again = await ann.act(race, wins[-1], seq=len(wins))  # a resend: answered, not replayed
        assert again == first

        await bob.resume()
        missed = await bob.next_event(
            "standings", where=lambda d: any(p["outcome"] for p in d["players"])
        )
        ann_seen = next(p for p in missed.data["players"] if p["player"] == ann.player)
        assert (ann_seen["outcome"], ann_seen["progress"]) == ("finished", 52)
        assert "view" not in ann_seen
        for action in wins[40:]:
            reply = await bob.act(race, action)
        assert reply["outcome"] == "finished"

        results = [await c.next_event("result") for c in (ann, bob)]
        assert results[0].data == results[1].data
        ranking = results[0].data["ranking"]
        assert [r["player"] for r in ranking] == [ann.player, bob.player]
        assert [r["rank"] for r in ranking] == [1, 2]
        assert ranking[0]["time_ms"] == first["time_ms"] < ranking[1]["time_ms"]
        assert ranking[0]["actions"] == ranking[1]["actions"] == counted_actions(wins)
        assert results[0].data["deal"] == str(DEAL)
        log = await server.store.races.actions(race)
        assert len(log) == 2 * len(wins)
        for client in (ann, bob):
            await client.close()


async def test_opponents_see_progress_but_never_each_others_cards() -> None:
    wins = winning_actions(GAME, DEAL)
    # Ann hears of Bob on her next act's result, never from the idle racers' push
    quiet = {"standings_every_ms": 0, "standings_interval_ms": 600_000}
    async with running_server(countdown_ms=50, **quiet) as server:
        ann, bob = await player(server, "Ann", record=True), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        for action in wins[:30]:
            await bob.act(race, action)
        reply = await ann.act(race, wins[0])
        bob_standing = next(p for p in reply["standings"] if p["player"] == bob.player)
        standing_keys = {"player", "name", "bot", "account", "rating", "provisional", "progress"}
        standing_keys |= {"actions", "outcome", "time_ms"}
        assert bob_standing["actions"] == counted_actions(wins[:30])
        assert set(bob_standing) == standing_keys
        for frame in ann.received:
            message = decode_from_server(frame, ann.encoding)
            assert message["type"] != "watch"
            if message["type"] == "result" and message["of"] == "act":
                assert message["action"] == wins[0]  # only Ann's own action's events
            for standing in message.get("standings", []) + message.get("players", []):
                assert set(standing) <= standing_keys  # no views, no cards
            if message.get("kind") in ("joined", "countdown", "standings"):
                assert "view" not in str(message)
        for client in (ann, bob):
            await client.close()


async def test_did_not_finish_racers_rank_after_finishers_by_progress() -> None:
    wins = winning_actions(GAME, DEAL)
    async with running_server(countdown_ms=50) as server:
        ann, bob, cy = [await player(server, n) for n in ("Ann", "Bob", "Cy")]
        race = (await ann.create_race(GAME, deal=DEAL, max_players=3))["race"]
        await bob.join_race(race)
        await cy.join_race(race)
        await cy.next_event("started")
        progress = {}
        for action in wins[:100]:
            progress["cy"] = (await cy.act(race, action))["progress"]
        for action in wins[:60]:
            progress["bob"] = (await bob.act(race, action))["progress"]
        assert progress["cy"] > progress["bob"]
        await cy.resign(race)
        await bob.resign(race)
        for action in wins:
            await ann.act(race, action)
        result = await ann.next_event("result")
        order = [(r["name"], r["outcome"]) for r in result.data["ranking"]]
        assert order == [("Ann", "finished"), ("Cy", "resigned"), ("Bob", "resigned")]
        for client in (ann, bob, cy):
            await client.close()


async def test_only_the_host_starts_a_race_and_a_race_for_one_starts_by_itself() -> None:
    async with running_server(countdown_ms=50) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = await ann.create_race("sanibel", max_players=3)
        assert race["deal"] is None  # a random deal's number stays secret
        await bob.join_race(race["race"])
        with pytest.raises(ServerError) as refused:
            await bob.start_race(race["race"])
        assert refused.value.code == "not_host"
        await ann.start_race(race["race"])
        started = await bob.next_event("started")
        assert started.data["deal"] is None and started.data["phase"] == "running"
        solo = await ann.create_race("shady_lanes", max_players=1)
        solo_started = await ann.next_event("started", where=lambda d: d["race"] == solo["race"])
        assert solo_started.data["you"]["view"]["stock"] == 95
        for client in (ann, bob):
            await client.close()


async def test_a_rematch_deals_a_new_deal_and_gathers_the_same_racers() -> None:
    async with running_server(countdown_ms=50) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race("sanibel", deal=5))["race"]
        await bob.join_race(race)
        await bob.next_event("started")
        await ann.resign(race)
        await bob.resign(race)
        await ann.next_event("result")
        with pytest.raises(ServerError) as refused:
            await ann.rematch("0" * 16)
        assert refused.value.code == "race_not_found"
        offer = await ann.rematch(race)
        invitation = await bob.next_event("rematch")
        assert invitation.data["rematch"] == offer["race"] and offer["race"] != race
        joined = await bob.rematch(race)
        assert joined["race"] == offer["race"]
        started = await ann.next_event("started")
        assert started.data["deal"] is None and started.data["deal_chosen"] is False
        for client in (ann, bob):
            await client.close()


async def test_open_public_races_are_listed_and_private_ones_are_not() -> None:
    async with running_server() as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        public = (await ann.create_race("sanibel"))["race"]
        await ann.create_race("sanibel", public=False)
        assert [r["race"] for r in await bob.list_races()] == [public]
        for client in (ann, bob):
            await client.close()


async def test_a_player_who_leaves_before_the_start_is_gone_from_the_race() -> None:
    async with running_server() as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race("sanibel", max_players=3))["race"]
        await bob.join_race(race)
        await bob.leave_race(race)
        left = await ann.next_event("left")
        assert [p["name"] for p in left.data["race"]["players"]] == ["Ann"]
        await ann.leave_race(race)
        assert race not in server.race_desk.rooms
        for client in (ann, bob):
            await client.close()


async def test_undo_off_makes_undo_an_error_and_a_stuck_player_did_not_finish() -> None:
    async with running_server(countdown_ms=0) as server, await player(server, "Ann") as ann:
        race = await ann.create_race(GAME, deal=DEAL, max_players=1, options={"undo": False})
        race_id = race["race"]
        await ann.next_event("started")
        await ann.act(race_id, "t0 1 t1")
        with pytest.raises(ServerError) as refused:
            await ann.act(race_id, "undo")
        assert refused.value.code == "undo_disabled"


async def test_a_finished_race_can_be_replayed_from_its_stored_log() -> None:
    wins = winning_actions(GAME, DEAL)
    async with running_server(countdown_ms=0) as server, await player(server, "Ann") as ann:
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        for action in wins:
            await ann.act(race, action)
        await ann.next_event("result")
        await asyncio.sleep(0.05)
        record = await server.store.races.load_race(race)
        log = await server.store.races.actions(race)
        assert record is not None
        settings = record["settings"]
        rules = rules_for(settings["game"], settings["options"])
        final = replay(rules, int(settings["deal"]), [entry.action for entry in log])
        assert rules.is_won(final.position)
        stored = await server.store.races.load_result(race)
        assert stored is not None and stored["ranking"][0]["actions"] == counted_actions(wins)


async def test_my_races_lists_the_races_i_am_in_until_they_are_over() -> None:
    async with running_server() as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        assert await ann.my_races() == []
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        other = (await bob.create_race(GAME))["race"]
        mine = await ann.my_races()
        assert [info["race"] for info in mine] == [race]
        assert mine[0]["you"] == {"seq": 0}
        await bob.join_race(race)
        await ann.next_event("started")
        assert {info["race"] for info in await bob.my_races()} == {race, other}
        await ann.resign(race)
        await bob.resign(race)
        assert await ann.my_races() == []
        assert [info["race"] for info in await bob.my_races()] == [other]


async def test_the_rematch_of_a_race_for_one_starts_by_itself() -> None:
    async with running_server() as server:
        ann = await player(server, "Ann")
        race = (await ann.create_race(GAME, max_players=1))["race"]
        await ann.next_event("started")
        await ann.resign(race)
        await ann.next_event("result")
        rematch = (await ann.rematch(race))["race"]
        started = await ann.next_event("started")
        assert started.data["race"] == rematch


async def test_an_open_race_whose_host_is_gone_passes_to_another_racer() -> None:
    async with running_server(grace_ms=200) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, max_players=3))["race"]
        await bob.join_race(race)
        await ann.drop()  # and never comes back
        left = await bob.next_event("left")
        assert left.data["race"]["host"] == bob.player
        assert [p["player"] for p in left.data["race"]["players"]] == [bob.player]
        assert [r["race"] for r in await bob.list_races()] == [race]


async def test_an_open_race_everyone_left_is_closed_and_its_spectators_are_told() -> None:
    async with running_server() as server:
        ann, cy = await player(server, "Ann"), await player(server, "Cy")
        race = (await ann.create_race(GAME))["race"]
        await cy.spectate(race)
        await ann.leave_race(race)
        ended = await cy.next_event("watch_ended")
        assert ended.data == {"race": race, "reason": "closed"}
        assert await cy.list_races() == []
        with pytest.raises(ServerError) as gone:
            await cy.snapshot(race)
        assert gone.value.code == "race_not_found"


async def test_a_run_that_did_not_finish_is_timed_to_its_last_progress_and_join_again_is_info() -> (
    None
):
    wins = winning_actions(GAME, DEAL)
    async with running_server(countdown_ms=50) as server:
        ann, bob, cy = [await player(server, n) for n in ("Ann", "Bob", "Cy")]
        race = (await ann.create_race(GAME, deal=DEAL, max_players=3))["race"]
        await bob.join_race(race)
        again = await bob.join_race(race)  # already in: changes nothing, answers the info
        assert again["race"] == race and len(again["players"]) == 2
        await cy.join_race(race)
        started = (await cy.next_event("started")).data
        for action in wins[:30]:
            await ann.act(race, action)
        ann_last_ms = int(time.time() * 1000)
        await asyncio.sleep(0.2)  # Ann stops making progress; her run's time stops there
        await bob.resign(race)
        await asyncio.sleep(0.2)
        await cy.resign(race)
        await asyncio.sleep(0.2)
        await ann.resign(race)  # 0.6 s after her last progress
        ranking = {r["name"]: r for r in (await ann.next_event("result")).data["ranking"]}
        start = started["start_at_ms"]
        assert 0 < ranking["Ann"]["time_ms"] < ann_last_ms - start + 1
        assert ranking["Ann"]["at_ms"] == start + ranking["Ann"]["time_ms"]
        for name in ("Bob", "Cy"):  # no progress: time 0 and the start signal, however apart
            assert (ranking[name]["time_ms"], ranking[name]["at_ms"]) == (0, start)
        for client in (ann, bob, cy):
            await client.close()


async def test_a_server_on_the_memory_store_is_handed_none_of_its_own_race_messages() -> None:
    """One process is the only node on its memory store: following its races' channels
    would hand it back every message it sends, to be dropped (the cost of each action)."""
    async with running_server(countdown_ms=0) as server:
        heard: list[dict[str, object]] = []
        hear = server.store.listener
        assert hear is not None

        def counted(channel: str, message: dict[str, object]) -> None:
            heard.append(message)
            hear(channel, message)

        server.store.listener = counted
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        for action in winning_actions(GAME, DEAL)[:10]:
            await ann.act(race, action)
        assert (await bob.act(race, "deal"))["seq"] == 1
        await asyncio.sleep(0.05)  # a message told is handed over after the turn
        assert heard == []
