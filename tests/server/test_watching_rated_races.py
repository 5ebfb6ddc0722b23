"""Spectators of a race that may count (``ranked``: a race the server paired, a ranked
daily attempt) see progress only while it runs: all its racers share one deal, so a card
one racer turns up may lie face down in another's position (a guest tab on the racer's
own address would show it to them). At its end the feed's ``result`` brings every board."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from harness import RATED, member, member_at, running_server, two_servers, url
from hidden_cards import cards_in, hidden
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from client.api import Client, ServerError
from protocol.games import rules_for
from protocol.notation import parse_action
from protocol.race import view_json
from protocol.replay import replay
from protocol.wire import decode_from_server
from server.app import RaceServer

GAME = "mount_sunflower"  # one deck: every card is unique, so a leak is exact


async def paired(first: Client, second: Client) -> str:
    """``first`` and ``second`` wait for a quick race and are paired: its id, once both
    have the start."""
    await first.quick_race(GAME)
    await second.quick_race(GAME)
    race: str = (await first.next_event("paired")).data["race"]["race"]
    for client in (first, second):
        await client.next_event("started")
    return race


async def play_first_legal(client: Client, race: str, count: int, last: bool = False) -> list[str]:
    """Up to ``count`` actions of ``client``'s, each the first legal one but ``undo`` (the
    last one with ``last``), while there is one."""
    legal = (await client.snapshot(race))["you"]["legal"]
    played: list[str] = []
    for _ in range(count):
        action = next((a for a in (legal[::-1] if last else legal) if a != "undo"), None)
        if action is None:
            break
        legal = (await client.act(race, action, legal=True))["legal"]
        played.append(action)
    return played


def frames(client: Client) -> list[dict[str, Any]]:
    return [decode_from_server(frame, client.encoding) for frame in client.received]


async def test_a_spectator_of_a_rated_race_sees_no_card_face_down_in_a_racer_s_position() -> None:
    rules = rules_for(GAME)
    async with running_server(**RATED) as server:
        ann, bob = (
            await member_at(server, "Ann", "10.0.0.1"),
            await member_at(server, "Bob", "10.0.0.2"),
        )
        bobs_tab = {"X-Forwarded-For": "10.0.0.2"}  # a guest tab on Bob's own address
        sam = await Client.connect(url(server), "Sam", record=True, headers=bobs_tab)
        race = await paired(ann, bob)
        watched = await sam.spectate(race)
        assert watched["ranked"]
        bob_played = await play_first_legal(bob, race, 3)
        played = await play_first_legal(ann, race, 12, last=True)  # other moves than Bob's
        result = (await sam.next_event("result")).data  # the race's time limit ends it
        assert set((await ann.next_event("rated")).data["ratings"]) == {ann.player, bob.player}
        deal = int(result["deal"])  # shown at the race's end
        bobs_moves = 0  # Bob's position at each frame: after his moves the feed showed so far
        for frame in frames(sam):
            if frame.get("kind") == "result":
                break
            if frame.get("kind") in ("act", "progress") and frame["player"] == bob.player:
                bobs_moves += 1
            bob_hides = hidden(replay(rules, deal, bob_played[:bobs_moves]))
            leaked = cards_in(frame) & bob_hides
            assert not leaked, f"{sorted(leaked)} face down in Bob's position: {frame}"
        assert watched["boards_live"] is False
        ends = {
            ann.player: replay(rules, deal, played),
            bob.player: replay(rules, deal, bob_played),
        }
        for racer, state in ends.items():
            assert result["boards"][racer] == view_json(rules.view(state))
        progress = [f["player"] for f in frames(sam) if f.get("kind") == "progress"]
        assert progress == [bob.player] * len(bob_played) + [ann.player] * len(played)
        for client in (ann, bob, sam):
            await client.close()


async def test_a_ranked_daily_attempt_is_watched_by_its_progress_and_a_practice_one_live() -> None:
    async with running_server(countdown_ms=0) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        await bob.resign((await bob.daily_start(GAME))["race"]["race"])  # Bob may watch
        ranked = (await ann.daily_start(GAME))["race"]["race"]
        watched = await bob.spectate(ranked)
        assert watched["ranked"] and watched["boards_live"] is False
        assert all("view" not in standing for standing in watched["players"])
        assert len(await play_first_legal(ann, ranked, 3)) == 3
        mine = await ann.snapshot(ranked)
        actions = mine["players"][0]["actions"]
        progress = await bob.next_event("progress", where=lambda d: d["actions"] == actions)
        assert set(progress.data) == {"player", "progress", "actions", "outcome", "time_ms"}
        await ann.resign(ranked)
        result = (await bob.next_event("result")).data
        assert result["deal"] is None and "revealed" not in result  # its day still runs
        assert result["boards"] == {ann.player: mine["you"]["view"]}
        practice = (await ann.daily_start(GAME))["race"]["race"]  # Ann's second: unranked
        watched = await bob.spectate(practice)
        assert watched["boards_live"] and watched["players"][0]["view"]["tableau"]
        await ann.resign(practice)
        for client in (ann, bob):
            await client.close()


@pytest.fixture
async def two_nodes(redis_url: str) -> AsyncIterator[tuple[RaceServer, RaceServer]]:
    """Two servers in the test's event loop on one real Redis: one service of two nodes."""
    async with two_servers(redis_url, countdown_ms=0) as nodes:
        yield nodes


STEPS = 24
SPECTATOR = st.fixed_dictionaries(
    {
        "node": st.integers(0, 1),
        "joins": st.integers(0, STEPS),  # before this step (STEPS: after the last move)
        "asks": st.integers(0, STEPS),  # a snapshot, before this step (once it watches)
    }
)
PLAN = st.fixed_dictionaries(
    {
        "nodes": st.tuples(st.integers(0, 1), st.integers(0, 1)),  # each racer's node
        "moves": st.lists(st.tuples(st.integers(0, 1), st.integers(0, 99)), max_size=STEPS),
        "spectators": st.lists(SPECTATOR, min_size=1, max_size=3),
    }
)


def hidden_ever(deal: int, log: dict[str, Any]) -> set[str]:
    """Every card face down, or in the stock, in any racer's position at any moment of
    the race (a check stricter than "at the frame's moment", and free of clocks)."""
    rules = rules_for(GAME)
    cards: set[str] = set()
    for racer in log["racers"]:
        state = rules.start(deal)
        cards |= hidden(state)
        for _, action, _ in racer["actions"]:
            state = rules.apply(state, parse_action(action)).state
            cards |= hidden(state)
    return cards


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=PLAN)
async def test_no_spectator_frame_of_a_rated_race_on_either_node_carries_a_hidden_card(
    two_nodes: tuple[RaceServer, RaceServer], plan: dict[str, Any]
) -> None:
    """Random races the server paired, random legal moves (undo too) by each racer, and
    spectators joining at random moments on either node, asking for snapshots: no frame a
    spectator gets before the ``result`` carries a card that any racer had face down, or
    in their stock, while the race ran; the ``result`` brings every racer's last board,
    and the progress they saw ends where each racer ended."""
    urls = [url(node) for node in two_nodes]
    tag = uuid.uuid4().hex[:6]  # each example's own accounts (one store for them all)
    racers = [await member(urls[n], f"Racer{i}{tag}") for i, n in enumerate(plan["nodes"])]
    race = await paired(*racers)
    legal = [(await r.snapshot(race))["you"]["legal"] for r in racers]
    spectators: list[Client | None] = [None] * len(plan["spectators"])
    for step in range(STEPS + 1):
        for i, wish in enumerate(plan["spectators"]):
            if wish["joins"] == step:
                watcher = await Client.connect(urls[wish["node"]], f"Sam{i}", record=True)
                await watcher.spectate(race)
                spectators[i] = watcher
            watcher = spectators[i]
            if wish["asks"] == step and watcher is not None:
                await watcher.snapshot(race)
        if step < len(plan["moves"]):
            who, pick = plan["moves"][step]
            if legal[who]:
                action = legal[who][pick % len(legal[who])]
                legal[who] = (await racers[who].act(race, action, legal=True))["legal"]
    for racer in racers:
        try:
            await racer.resign(race)
        except ServerError as error:  # finished or stuck already
            assert error.code == "already_finished"
    for racer in racers:
        await racer.next_event("result")
    log = await racers[0].race_log(race)
    deal = int(log["deal"])
    secret = hidden_ever(deal, log)
    rules = rules_for(GAME)
    ends = {
        r["player"]: replay(rules, deal, [a for _, a, _ in r["actions"]]) for r in log["racers"]
    }
    actions = {entry["player"]: entry["actions"] for entry in log["result"]["ranking"]}
    for watcher in spectators:
        assert watcher is not None
        result = (await watcher.next_event("result")).data
        seen: dict[str, int] = {}
        for frame in frames(watcher):
            if frame.get("kind") == "result":
                break
            leaked = cards_in(frame) & secret
            assert not leaked, f"{sorted(leaked)} hidden from a racer: {frame}"
            picture = frame.get("race")
            for standing in picture["players"] if isinstance(picture, dict) else []:
                seen[standing["player"]] = standing["actions"]
            if frame.get("kind") == "progress":
                seen[frame["player"]] = frame["actions"]
        assert seen == actions
        assert result["boards"] == {p: view_json(rules.view(s)) for p, s in ends.items()}
        await watcher.close()
    for racer in racers:
        await racer.close()
