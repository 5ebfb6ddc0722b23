"""One contract for every store: the in-memory store and the Redis store (on a real server)
must keep the same promises."""

from __future__ import annotations

import asyncio
import random
import socket
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from redis_server import RedisServer, free_port

from protocol.race import LogEntry
from protocol.ranking import Run, ranked
from server.jobs import AppendActions, EndRace, RecordDaily, RecordHistory, SaveIdentity
from server.store import (
    Account,
    Entry,
    Fenced,
    History,
    Listed,
    MemoryStore,
    Store,
    StoreUnavailable,
    open_store,
    race_channel,
)
from server.store.base import CARRIED_MAX
from server.store.redis_store import RedisStore

GAME = "sanibel"
DAY = "2024-05-01"
NEXT_DAY = "2024-05-02"
EPOCH_MS = 1_714_521_600_000


def fresh_prefix() -> str:
    return f"test:{uuid.uuid4().hex}:"


def a_run(
    player: str,
    *,
    finished: bool = True,
    time_ms: int = 60_000,
    actions: int = 100,
    progress: int = 40,
    at_ms: int = EPOCH_MS,
    race: str | None = None,
    name: str | None = None,
) -> Run:
    return Run(
        player=player,
        name=name or player.title(),
        race=race or f"attempt-{player}",
        game=GAME,
        deal=99_999_999_999_999_999_999,
        finished=finished,
        time_ms=time_ms,
        actions=actions,
        progress=104 if finished else progress,
        at_ms=at_ms,
    )


async def record(store: Store, run: Run, day: str = DAY) -> bool:
    """Claim the run's attempt as the player's ranked one, then record the run."""
    assert await store.claim_daily(GAME, day, run.player, run.race)
    return await store.record_daily(GAME, day, run)


def players(entries: list[Entry]) -> list[str]:
    return [entry.run.player for entry in entries]


# daily deal


async def test_daily_deal_is_absent_until_one_is_set(store: Store) -> None:
    assert await store.daily_deal(GAME, DAY) is None


async def test_the_first_daily_deal_written_wins(store: Store) -> None:
    assert await store.set_daily_deal(GAME, DAY, 123_456) == 123_456
    assert await store.set_daily_deal(GAME, DAY, 777) == 123_456
    assert await store.daily_deal(GAME, DAY) == 123_456


async def test_concurrent_daily_deal_writers_all_get_the_one_stored(store: Store) -> None:
    numbers = list(range(40_000, 40_020))
    answers = await asyncio.gather(*(store.set_daily_deal(GAME, DAY, n) for n in numbers))
    stored = await store.daily_deal(GAME, DAY)
    assert stored in numbers
    assert answers == [stored] * len(numbers)


async def test_daily_deals_are_kept_per_game_and_day(store: Store) -> None:
    await store.set_daily_deal(GAME, DAY, 1)
    await store.set_daily_deal("shady_lanes", DAY, 2)
    await store.set_daily_deal(GAME, NEXT_DAY, 10**20 - 1)
    assert await store.daily_deal(GAME, DAY) == 1
    assert await store.daily_deal("shady_lanes", DAY) == 2
    assert await store.daily_deal(GAME, NEXT_DAY) == 10**20 - 1


# claims


async def test_the_first_daily_secret_proposed_is_kept_and_later_ones_get_it(
    store: Store,
) -> None:
    assert await store.daily_secret("first") == "first"
    assert await store.daily_secret("second") == "first"


async def test_the_first_claim_is_ranked_and_later_attempts_are_practice(store: Store) -> None:
    assert await store.claim_daily(GAME, DAY, "ann", "a1") is True
    assert await store.claim_daily(GAME, DAY, "ann", "a2") is False
    assert await store.claim_daily(GAME, DAY, "ann", "a3") is False
    assert await store.ranked_attempt(GAME, DAY, "ann") == "a1"


async def test_claiming_the_ranked_attempt_again_still_says_it_is_ranked(store: Store) -> None:
    assert await store.claim_daily(GAME, DAY, "ann", "a1") is True
    assert await store.claim_daily(GAME, DAY, "ann", "a2") is False
    assert await store.claim_daily(GAME, DAY, "ann", "a1") is True


async def test_twenty_concurrent_claims_give_exactly_one_ranked_attempt(store: Store) -> None:
    attempts = [f"attempt-{i}" for i in range(20)]
    answers = await asyncio.gather(*(store.claim_daily(GAME, DAY, "ann", a) for a in attempts))
    assert answers.count(True) == 1
    assert await store.ranked_attempt(GAME, DAY, "ann") == attempts[answers.index(True)]


async def test_claims_are_kept_per_player_game_and_day(store: Store) -> None:
    assert await store.claim_daily(GAME, DAY, "ann", "a1")
    assert await store.claim_daily(GAME, DAY, "bob", "b1")
    assert await store.claim_daily("shady_lanes", DAY, "ann", "a2")
    assert await store.claim_daily(GAME, NEXT_DAY, "ann", "a3")
    assert await store.ranked_attempt(GAME, DAY, "ann") == "a1"
    assert await store.ranked_attempt(GAME, DAY, "carl") is None


# recording daily runs


async def test_a_run_is_recorded_only_for_the_claimed_attempt(store: Store) -> None:
    await store.claim_daily(GAME, DAY, "ann", "a1")
    assert await store.record_daily(GAME, DAY, a_run("ann", race="a2")) is False
    assert await store.record_daily(GAME, DAY, a_run("bob", race="b1")) is False
    assert (await store.daily_board(GAME, DAY, top=10)).total == 0
    assert await store.record_daily(GAME, DAY, a_run("ann", race="a1")) is True
    assert players((await store.daily_board(GAME, DAY, top=10)).top) == ["ann"]


async def test_a_run_is_recorded_only_once_per_player_and_day(store: Store) -> None:
    first = a_run("ann", race="a1", time_ms=90_000)
    assert await record(store, first)
    faster = a_run("ann", race="a1", time_ms=10_000, at_ms=EPOCH_MS + 5)
    assert await store.record_daily(GAME, DAY, faster) is False
    board = await store.daily_board(GAME, DAY, top=10, player="ann")
    assert board.total == 1
    assert board.me is not None and board.me.run == first


async def test_recording_the_same_run_again_changes_nothing(store: Store) -> None:
    run = a_run("ann")
    assert await record(store, run)
    assert await store.record_daily(GAME, DAY, run) is True
    board = await store.daily_board(GAME, DAY, top=10)
    assert [entry.run for entry in board.top] == [run]


async def test_past_days_stay_on_their_own_boards(store: Store) -> None:
    await record(store, a_run("ann"), DAY)
    await record(store, a_run("bob"), NEXT_DAY)
    assert players((await store.daily_board(GAME, DAY, top=5)).top) == ["ann"]
    assert players((await store.daily_board(GAME, NEXT_DAY, top=5)).top) == ["bob"]


async def test_a_day_nobody_played_has_an_empty_board(store: Store) -> None:
    board = await store.daily_board(GAME, DAY, top=10, player="ann", around=3)
    assert board.total == 0
    assert (board.top, board.around, board.me) == ([], [], None)


# the order of a board


async def test_ties_in_time_fall_to_actions_then_to_who_finished_first(store: Store) -> None:
    runs = [
        a_run("ann", time_ms=60_000, actions=100, at_ms=EPOCH_MS + 1000),
        a_run("bob", time_ms=60_000, actions=90, at_ms=EPOCH_MS + 2000),
        a_run("cat", time_ms=60_000, actions=90, at_ms=EPOCH_MS + 1500),
        a_run("dan", time_ms=59_000, actions=500, at_ms=EPOCH_MS + 3000),
    ]
    for run in runs:
        await record(store, run)
    assert players((await store.daily_board(GAME, DAY, top=10)).top) == ["dan", "cat", "bob", "ann"]


async def test_runs_that_did_not_finish_follow_by_progress_then_time(store: Store) -> None:
    runs = [
        a_run("ann", finished=False, progress=50, time_ms=10),
        a_run("bob", finished=False, progress=100, time_ms=20),
        a_run("cat", time_ms=3_600_000),
        a_run("dan", finished=False, progress=100, time_ms=10),
    ]
    for run in runs:
        await record(store, run)
    assert players((await store.daily_board(GAME, DAY, top=10)).top) == ["cat", "dan", "bob", "ann"]


async def test_the_board_order_is_the_total_order_of_runs(store: Store) -> None:
    rng = random.Random(20240501)
    names = [f"p{i:02d}" for i in range(50)] + ["zoë", "émile", "Zed", "ann-1", "ann"]
    runs = [
        a_run(
            name,
            finished=rng.random() < 0.6,
            time_ms=rng.choice([50_000, 50_000, 61_000, 75_500]),
            actions=rng.choice([90, 90, 120]),
            progress=rng.choice([10, 40, 40, 77]),
            at_ms=EPOCH_MS + rng.choice([0, 5, 5, 900]),
        )
        for name in names
    ]
    for run in runs:
        await record(store, run)
    board = await store.daily_board(GAME, DAY, top=len(runs))
    assert board.total == len(runs)
    assert [entry.run for entry in board.top] == ranked(runs)
    assert [entry.rank for entry in board.top] == list(range(1, len(runs) + 1))


async def test_actions_beyond_the_encoded_range_tie_and_fall_to_who_finished_first(
    store: Store,
) -> None:
    # protocol/ranking.py: up to 16,383 actions keep their order; more tie.
    await record(store, a_run("ann", actions=20_000, at_ms=EPOCH_MS + 1))
    await record(store, a_run("bob", actions=17_000, at_ms=EPOCH_MS + 2))
    assert players((await store.daily_board(GAME, DAY, top=10)).top) == ["ann", "bob"]


# board windows


async def ten_ranked_runs(store: Store) -> list[Run]:
    """p01 .. p10, ranked in that order, recorded in a scrambled order."""
    runs = [a_run(f"p{rank:02d}", time_ms=1000 * rank) for rank in range(1, 11)]
    for run in random.Random(7).sample(runs, len(runs)):
        await record(store, run)
    return runs


async def test_the_board_gives_top_the_window_around_me_me_and_the_total(store: Store) -> None:
    runs = await ten_ranked_runs(store)
    board = await store.daily_board(GAME, DAY, top=3, player="p05", around=2)
    assert board.total == 10
    assert [(e.rank, e.run) for e in board.top] == [(1, runs[0]), (2, runs[1]), (3, runs[2])]
    assert [(e.rank, e.run.player) for e in board.around] == [
        (3, "p03"),
        (4, "p04"),
        (5, "p05"),
        (6, "p06"),
        (7, "p07"),
    ]
    assert board.me is not None
    assert (board.me.rank, board.me.run) == (5, runs[4])


async def test_the_window_around_me_stops_at_the_edges_of_the_board(store: Store) -> None:
    await ten_ranked_runs(store)
    first = await store.daily_board(GAME, DAY, top=0, player="p01", around=2)
    last = await store.daily_board(GAME, DAY, top=0, player="p10", around=2)
    assert [e.rank for e in first.around] == [1, 2, 3]
    assert [e.rank for e in last.around] == [8, 9, 10]
    assert first.top == last.top == []


async def test_with_no_window_around_me_is_just_me(store: Store) -> None:
    await ten_ranked_runs(store)
    board = await store.daily_board(GAME, DAY, top=1, player="p07")
    assert board.me is not None and board.me.rank == 7
    assert board.around == [board.me]


async def test_a_player_without_an_entry_has_no_me_and_nothing_around(store: Store) -> None:
    await ten_ranked_runs(store)
    board = await store.daily_board(GAME, DAY, top=20, player="nobody", around=3)
    assert (board.total, len(board.top), board.around, board.me) == (10, 10, [], None)


async def test_a_negative_window_is_refused(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.daily_board(GAME, DAY, top=-1)
    with pytest.raises(ValueError):
        await store.best_board(GAME, top=3, player="ann", around=-2)


# the all-time board


async def test_a_finished_daily_run_is_offered_to_the_all_time_board(store: Store) -> None:
    finished = a_run("ann", time_ms=70_000)
    await record(store, finished)
    await record(store, a_run("bob", finished=False, progress=90))
    board = await store.best_board(GAME, top=10)
    assert [entry.run for entry in board.top] == [finished]


async def test_a_better_run_replaces_the_players_stored_run(store: Store) -> None:
    assert await store.offer_best(GAME, a_run("ann", time_ms=80_000, at_ms=EPOCH_MS))
    better = a_run("ann", time_ms=80_000, actions=99, at_ms=EPOCH_MS + 9, race="r2", name="A")
    assert await store.offer_best(GAME, better) is True
    board = await store.best_board(GAME, top=10, player="ann")
    assert board.total == 1
    assert board.me == board.top[0]
    assert board.me is not None and board.me.run == better


async def test_an_equal_later_run_does_not_displace_the_earlier_one(store: Store) -> None:
    earlier = a_run("ann", time_ms=80_000, at_ms=EPOCH_MS)
    await store.offer_best(GAME, earlier)
    equal = a_run("ann", time_ms=80_000, at_ms=EPOCH_MS + 1, race="r2", name="Other name")
    assert await store.offer_best(GAME, equal) is False
    assert [e.run for e in (await store.best_board(GAME, top=10)).top] == [earlier]


async def test_a_worse_run_does_not_displace_the_stored_one(store: Store) -> None:
    stored = a_run("ann", time_ms=80_000)
    await store.offer_best(GAME, stored)
    assert await store.offer_best(GAME, a_run("ann", time_ms=80_001, actions=1)) is False
    assert [e.run for e in (await store.best_board(GAME, top=10)).top] == [stored]


async def test_a_run_that_did_not_finish_never_enters_the_all_time_board(store: Store) -> None:
    assert await store.offer_best(GAME, a_run("ann", finished=False, progress=103)) is False
    assert (await store.best_board(GAME, top=10, player="ann")).total == 0


async def test_replacing_a_run_moves_the_player_on_the_all_time_board(store: Store) -> None:
    await store.offer_best(GAME, a_run("ann", time_ms=50_000))
    await store.offer_best(GAME, a_run("bob", time_ms=60_000))
    await store.offer_best(GAME, a_run("bob", time_ms=40_000, race="r2"))
    board = await store.best_board(GAME, top=10, player="ann", around=1)
    assert players(board.top) == ["bob", "ann"]
    assert board.me is not None and board.me.rank == 2
    assert players(board.around) == ["bob", "ann"]


async def test_fifty_concurrent_offers_leave_the_best_whole_run(store: Store) -> None:
    rng = random.Random(50)
    times = rng.sample(range(30_000, 90_000, 7), 50)
    runs = [
        a_run(
            "ann",
            time_ms=t,
            actions=rng.randint(80, 300),
            at_ms=EPOCH_MS + i,
            race=f"race-{i}",
            name=f"Ann the {i}th",
        )
        for i, t in enumerate(times)
    ]
    await asyncio.gather(*(store.offer_best(GAME, run) for run in runs))
    board = await store.best_board(GAME, top=10)
    assert board.total == 1
    assert board.top[0].run == min(runs, key=Run.sort_key)


# races


async def test_race_records_and_results_round_trip(store: Store) -> None:
    race = {
        "game": GAME,
        "options": {"down": 3, "up": 7, "undo": True},
        "deal": 10**20 - 1,
        "kind": "race",
        "players": ["ann", "bob"],
        "note": "ünïcode",
    }
    result = {"winner": "ann", "runs": [{"player": "ann", "time_ms": 61_234, "finished": True}]}
    await store.save_race("r1", race)
    await store.save_result("r1", result)
    assert await store.load_race("r1") == race
    assert await store.load_result("r1") == result
    assert await store.load_race("r2") is None
    assert await store.load_result("r2") is None


async def test_a_saved_result_replaces_the_one_before(store: Store) -> None:
    await store.save_result("r1", {"winner": "ann"})
    await store.save_result("r1", {"winner": "bob"})
    assert await store.load_result("r1") == {"winner": "bob"}


async def test_the_action_log_keeps_order_and_types_of_many_entries(store: Store) -> None:
    entries = [LogEntry(f"p{i % 3}", i // 3 + 1, f"t{i % 10} 1 f", 37 * i) for i in range(1_200)]
    for entry in entries:
        await store.append_action("r1", entry)
    logged = await store.actions("r1")
    assert logged == entries
    assert all(type(e.seq) is int and type(e.t_ms) is int for e in logged)
    assert await store.actions("r2") == []


async def test_a_resent_action_entry_is_not_logged_twice(store: Store) -> None:
    first = LogEntry("ann", 1, "deal", 100)
    second = LogEntry("bob", 1, "t0 1 t1", 120)
    await store.append_action("r1", first)
    await store.append_action("r1", second)
    await store.append_action("r1", first)
    assert await store.actions("r1") == [first, second]


async def test_a_batch_of_actions_keeps_each_races_order(store: Store) -> None:
    a1, a2, a3 = (LogEntry("ann", i, "deal", i) for i in range(1, 4))
    b1, b2 = (LogEntry("bob", i, "auto", i) for i in range(1, 3))
    await store.append_actions([("ra", a1), ("rb", b1), ("ra", a2), ("rb", b2), ("ra", a3)])
    assert await store.actions("ra") == [a1, a2, a3]
    assert await store.actions("rb") == [b1, b2]


async def test_a_batch_sent_again_after_a_failure_is_not_logged_twice(store: Store) -> None:
    batch = [("r1", LogEntry("ann", i, "deal", i)) for i in range(1, 501)]
    later = [("r1", LogEntry("ann", 501, "auto", 501))]
    await store.append_actions(batch)
    await store.append_actions(batch)
    await store.append_actions(later)
    assert await store.actions("r1") == [entry for _, entry in batch + later]


async def test_an_action_written_again_at_another_time_is_not_logged_twice(
    store: Store,
) -> None:
    first = LogEntry("ann", 1, "deal", 100)
    await store.append_action("r1", first)
    await store.append_action("r1", first._replace(t_ms=180))  # a lost answer, sent again
    await store.append_action("r1", LogEntry("ann", 2, "auto", 200))
    assert await store.actions("r1") == [first, LogEntry("ann", 2, "auto", 200)]


def a_record(race: str, *players: str) -> dict[str, Any]:
    return {"race": race, "racers": [{"player": p, "name": p.title()} for p in players]}


def listed(*players: str, joinable: bool = False, watchable: bool = False) -> Listed:
    return Listed(True, joinable, watchable, players)


async def save(store: Store, race: str, *players: str, version: int = 0) -> bool:
    return await store.save_race_if(race, a_record(race, *players), version, listed(*players))


async def test_saved_races_are_live_and_found_by_their_racers_until_they_end(
    store: Store,
) -> None:
    assert await save(store, "r1", "ann")
    assert await save(store, "r1", "ann", "bob", version=1)
    assert await save(store, "r2", "bob")
    assert sorted(await store.live_races()) == ["r1", "r2"]
    assert await store.player_races("bob") == ["r1", "r2"]
    result = {"race": "r1", "ranking": []}
    await store.write([EndRace("r1", a_record("r1", "ann", "bob"), result, 3600, version=2)])
    assert await store.live_races() == ["r2"]
    assert await store.player_races("ann") == []
    assert await store.player_races("bob") == ["r2"]
    assert await store.load_result("r1") == result
    assert await store.load_race("r1") == {**a_record("r1", "ann", "bob"), "version": 3}


async def test_a_race_record_changes_only_from_the_version_it_was_read_at(store: Store) -> None:
    assert await save(store, "r1", "ann")
    assert not await save(store, "r1", "ann", "bob")  # someone else wrote version 1 first
    assert not await save(store, "r1", "ann", "bob", version=2)
    assert (await store.load_race("r1") or {})["racers"] == a_record("r1", "ann")["racers"]
    assert await save(store, "r1", "ann", "bob", version=1)
    assert (await store.load_race("r1") or {})["version"] == 2


async def test_races_are_listed_as_they_say_and_read_together(store: Store) -> None:
    await store.save_race_if("r1", a_record("r1", "ann"), 0, listed("ann", joinable=True))
    await store.save_race_if("r2", a_record("r2", "bob"), 0, listed("bob", watchable=True))
    assert await store.listed_races("open") == ["r1"]
    assert await store.listed_races("watchable") == ["r2"]
    records = await store.load_races(["r2", "r9", "r1"])
    assert [r and r["race"] for r in records] == ["r2", None, "r1"]
    await store.save_race_if("r1", a_record("r1", "ann"), 1, listed("ann"))
    assert await store.listed_races("open") == []


async def test_a_batch_of_jobs_is_done_in_order_with_each_job_answered(store: Store) -> None:
    entries = tuple(LogEntry("ann", i, "deal", i) for i in range(1, 4))
    jobs = [
        AppendActions("r1", entries[:2]),
        SaveIdentity("hash", "ann", "Ann", keep_s=3600),
        AppendActions("r1", entries[2:]),
    ]
    assert await store.write(jobs) == [None, None, None]
    assert await store.actions("r1") == list(entries)
    assert await store.identity("hash") == ("ann", "Ann", None)
    assert await store.identity("other") is None


async def test_a_racer_s_log_is_read_after_a_seq(store: Store) -> None:
    entries = tuple(LogEntry("ann", i, "deal", 10 * i) for i in range(1, 6))
    await store.write([AppendActions("r1", entries)])
    assert await store.racer_log("r1", "ann", 3) == list(entries[3:])
    assert await store.racer_log("r1", "ann") == list(entries)
    assert await store.racer_log("r1", "bob") == []
    assert await store.racers_logged("r1") == ["ann"]


async def test_a_claimed_log_refuses_the_writes_of_an_older_session(store: Store) -> None:
    first, second = LogEntry("ann", 1, "deal", 5), LogEntry("ann", 2, "auto", 9)
    assert await store.write([AppendActions("r1", (first,), fence=3)]) == [None]
    assert await store.claim_racer("r1", "ann", 4)  # a new session took ann over
    assert not await store.claim_racer("r1", "ann", 3)  # an older one cannot take her back
    late = await store.write([AppendActions("r1", (second,), fence=3)])
    assert isinstance(late[0], Fenced)
    assert await store.write([AppendActions("r1", (second,), fence=4)]) == [None]
    assert await store.write([AppendActions("r1", (second,), fence=4)]) == [None]  # resent
    assert await store.racer_log("r1", "ann") == [first, second]


async def test_subscribers_hear_messages_and_race_changes(store: Store) -> None:
    heard: list[tuple[str, dict[str, Any]]] = []
    store.listener = lambda channel, message: heard.append((channel, message))
    store.node = "node-a"
    await store.subscribe([race_channel("r1")])
    await store.publish(race_channel("r1"), {"k": "hello"})
    await store.publish(race_channel("r2"), {"k": "not followed"})
    await save(store, "r1", "ann")
    await store.write([AppendActions("r1", (LogEntry("ann", 1, "deal", 5),))])
    for _ in range(100):
        if len(heard) >= 3:
            break
        await asyncio.sleep(0.01)
    assert heard == [
        ("race:r1", {"k": "hello"}),
        ("race:r1", {"k": "record", "v": 1, "n": "node-a"}),
        ("race:r1", {"k": "log", "p": "ann", "n": "node-a", "e": [[1, 5, "deal"]]}),
    ]
    await store.unsubscribe([race_channel("r1")])


async def test_a_node_that_does_not_hear_its_own_log_messages_hears_everything_else(
    store: Store,
) -> None:
    heard: list[dict[str, Any]] = []
    store.listener = lambda channel, message: heard.append(message)
    store.node = "node-a"
    store.hear_own_logs = False
    await store.subscribe([race_channel("r1")])
    await save(store, "r1", "ann")
    await store.write([AppendActions("r1", (LogEntry("ann", 1, "deal", 5),))])
    theirs = {"k": "log", "p": "bob", "n": "node-b", "e": [[1, 7, "b1"]]}
    await store.publish(race_channel("r1"), theirs)
    for _ in range(100):
        if len(heard) >= 2:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert heard == [{"k": "record", "v": 1, "n": "node-a"}, theirs]
    await store.unsubscribe([race_channel("r1")])


async def test_a_log_message_carries_a_batch_s_entries_once_they_are_stored(store: Store) -> None:
    heard: list[dict[str, Any]] = []
    store.listener = lambda channel, message: heard.append(message)
    store.node = "node-a"
    await store.subscribe([race_channel("r1")])
    ann = [LogEntry("ann", seq, f"a{seq}", 10 * seq) for seq in (1, 2)]
    bob = [LogEntry("bob", seq, f"b{seq}", 7 * seq) for seq in range(1, CARRIED_MAX + 3)]
    jobs = [AppendActions("r1", (ann[0], bob[0], ann[1]), fence=3), AppendActions("r1", ())]
    assert await store.write(jobs) == [None, None]
    assert await store.write([AppendActions("r1", tuple(bob[1:]), fence=3)]) == [None]
    assert await store.claim_racer("r1", "ann", 4)  # a new session took ann over
    late = LogEntry("ann", 3, "late", 40)
    assert isinstance((await store.write([AppendActions("r1", (late,), fence=3)]))[0], Fenced)
    for _ in range(100):
        if len(heard) >= 3:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert heard[:3] == [
        {"k": "log", "p": "ann", "n": "node-a", "e": [[1, 10, "a1"], [2, 20, "a2"]]},
        {"k": "log", "p": "bob", "n": "node-a", "e": [[1, 7, "b1"]]},
        {"k": "log", "p": "bob", "n": "node-a"},  # more than CARRIED_MAX: read the log
    ]
    assert all("e" not in message for message in heard[3:])  # refused: never carried
    await store.unsubscribe([race_channel("r1")])


async def test_a_lost_subscription_is_made_again_and_the_listener_told_to_resync(
    redis_url: str,
) -> None:
    """Redis drops the subscriber's connection: the store subscribes again by itself, says
    ``resync`` (messages may have been missed), and hears the channels it followed."""
    import redis as sync_redis

    store = RedisStore(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    heard: list[tuple[str, dict[str, Any]]] = []
    store.listener = lambda channel, message: heard.append((channel, message))
    try:
        await store.subscribe([race_channel("r1"), race_channel("r2")])
        await store.unsubscribe([race_channel("r2")])
        await store.publish(race_channel("r1"), {"k": "before"})
        for _ in range(200):
            if heard:
                break
            await asyncio.sleep(0.01)
        assert heard == [("race:r1", {"k": "before"})]
        killer = sync_redis.Redis.from_url(redis_url)
        assert killer.client_kill_filter(_type="pubsub") >= 1
        for _ in range(300):
            if ("", {"k": "resync"}) in heard:
                break
            await asyncio.sleep(0.01)
        assert heard[1:] == [("", {"k": "resync"})]
        await store.publish(race_channel("r2"), {"k": "not followed"})
        await store.publish(race_channel("r1"), {"k": "after"})
        for _ in range(200):
            if len(heard) >= 3:
                break
            await asyncio.sleep(0.01)
        assert heard[2:] == [("race:r1", {"k": "after"})]
    finally:
        await store.purge()
        await store.close()


async def test_nodes_say_they_are_alive_and_who_their_players_are(store: Store) -> None:
    await store.node_alive("node-a", 10_000)
    await store.node_alive("node-b", 100)
    assert await store.take_player("ann", "node-b") is None
    assert await store.take_player("bob", "node-b") is None
    assert await store.take_player("bob", "node-a") == "node-b"  # bob moved
    await asyncio.sleep(0.2)
    assert await store.nodes() == {"node-a": True, "node-b": False}
    assert await store.node_players("node-b") == ["ann"]
    assert await store.player_node("bob") == "node-a"
    await store.forget_node("node-b")
    assert await store.nodes() == {"node-a": True}


async def test_event_generations_only_grow(store: Store) -> None:
    first = await store.next_event_generation("ann")
    assert await store.next_event_generation("ann") > first


async def test_a_lease_is_held_by_one_holder_until_it_lapses(store: Store) -> None:
    assert await store.claim_lease("timers", "node-a", 200)
    assert not await store.claim_lease("timers", "node-b", 200)
    assert await store.claim_lease("timers", "node-a", 200)  # renewed
    await asyncio.sleep(0.3)
    assert await store.claim_lease("timers", "node-b", 200)
    await store.release_lease("timers", "node-a")  # not the holder: nothing happens
    assert not await store.claim_lease("timers", "node-a", 200)
    await store.release_lease("timers", "node-b")
    assert await store.claim_lease("timers", "node-a", 200)


async def test_a_working_store_answers_ping(store: Store) -> None:
    assert await store.ping() is True


# choosing and losing the backend


async def test_open_store_picks_memory_without_a_url_and_redis_with_one() -> None:
    assert isinstance(open_store(None), MemoryStore)
    assert isinstance(open_store(""), MemoryStore)
    redis_store = open_store("redis://127.0.0.1:1/0")
    assert isinstance(redis_store, RedisStore)
    await redis_store.close()


async def test_an_unreachable_redis_raises_store_unavailable_without_the_password() -> None:
    url = f"redis://user:s3cret@127.0.0.1:{free_port()}/0"
    redis_store = RedisStore(url, prefix=fresh_prefix())
    with pytest.raises(StoreUnavailable, match="cannot be reached") as raised:
        await redis_store.load_race("r1")
    assert "s3cret" not in str(raised.value)
    assert await redis_store.ping() is False
    await redis_store.close()


async def test_a_redis_that_never_answers_raises_store_unavailable_by_the_deadline() -> None:
    with socket.socket() as silent:  # accepts connections (the backlog does), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        redis_store = RedisStore(url, prefix=fresh_prefix(), deadline=0.5)
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="cannot be reached"):
            await redis_store.load_result("r1")
        assert time.monotonic() - started < 1.5
        await redis_store.close()


async def test_a_batch_to_a_redis_that_never_answers_is_refused_by_the_deadline() -> None:
    """The writer's batch (its own connection, no redis-py timeout): every job gets
    StoreUnavailable within about the deadline, and the next batch too."""
    with socket.socket() as silent:  # accepts connections (the backlog does), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        redis_store = RedisStore(url, prefix=fresh_prefix(), deadline=0.5)
        job = AppendActions("r1", (LogEntry("ann", 1, "deal", 5),))
        for _ in range(2):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable, match="cannot be reached"):
                await redis_store.write([job, job])
            assert 0.4 < time.monotonic() - started < 1.5
        await redis_store.close()


async def test_the_redis_store_fails_fast_while_redis_is_down_and_recovers_after(
    redis_server_factory: Callable[[], RedisServer],
) -> None:
    server = redis_server_factory()
    redis_store = RedisStore(server.url, prefix=fresh_prefix())
    assert await redis_store.claim_daily(GAME, DAY, "ann", "a1")
    server.kill()

    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match=f"127.0.0.1:{server.port}"):
        await redis_store.claim_daily(GAME, DAY, "bob", "b1")
    assert time.monotonic() - started < 5

    server.start()  # the same port; its data is gone (no persistence) and so are its scripts
    assert await redis_store.ping() is True
    assert await redis_store.claim_daily(GAME, DAY, "bob", "b1") is True
    assert await record(redis_store, a_run("cat"))
    assert players((await redis_store.daily_board(GAME, DAY, top=5)).top) == ["cat"]
    await redis_store.close()


async def test_recording_a_daily_run_on_redis_is_one_atomic_script_call(redis_url: str) -> None:
    store = RedisStore(redis_url, prefix=fresh_prefix())
    run = a_run("ann")
    await store.claim_daily(GAME, DAY, "ann", run.race)
    calls = await script_calls(store)
    assert await store.record_daily(GAME, DAY, run)
    assert await script_calls(store) == calls + 1  # the day's board and the all-time one
    assert players((await store.best_board(GAME, 10)).top) == ["ann"]
    await store.purge()
    await store.close()


async def script_calls(store: RedisStore) -> int:
    stats = await store._redis.info("commandstats")
    return sum(stats.get(f"cmdstat_{name}", {}).get("calls", 0) for name in ("evalsha", "eval"))


async def test_an_ended_race_is_kept_for_its_time_then_dropped(store: Store) -> None:
    record, result = a_record("r1", "ann"), {"race": "r1"}
    await save(store, "r1", "ann")
    await store.write([AppendActions("r1", (LogEntry("ann", 1, "deal", 5),))])
    await store.write([EndRace("r1", record, result, keep_s=1, version=1)])
    assert await store.load_result("r1") == result
    await asyncio.sleep(1.1)
    await store.write([EndRace("r2", a_record("r2", "bob"), {"race": "r2"}, keep_s=60)])
    assert await store.load_result("r1") is None
    assert await store.load_race("r1") is None
    assert await store.actions("r1") == []
    assert await store.load_result("r2") == {"race": "r2"}


async def test_the_memory_store_keeps_at_most_its_number_of_ended_races() -> None:
    store = MemoryStore(max_ended=3)
    for i in range(5):
        await store.write([EndRace(f"r{i}", a_record(f"r{i}", "ann"), {"race": f"r{i}"}, 3600)])
    kept = [race for race in (f"r{i}" for i in range(5)) if await store.load_result(race)]
    assert kept == ["r2", "r3", "r4"]


async def test_every_redis_key_expires_or_has_an_owner_that_removes_it(redis_url: str) -> None:
    store = RedisStore(redis_url, prefix=fresh_prefix())
    run = a_run("ann")
    await store.set_daily_deal(GAME, DAY, 7)
    await store.claim_daily(GAME, DAY, "ann", run.race)
    await store.record_daily(GAME, DAY, run)
    await store.daily_secret("s")
    record = a_record("r1", "ann")
    entries = (LogEntry("ann", 1, "deal", 5),)
    await store.write([SaveIdentity("h", "ann", "Ann", keep_s=100)])
    await store.create_account(Account("ann", "Ann", "$argon2id$..."))
    await store.write([SaveIdentity("h2", "ann", "Ann", keep_s=100, account="Ann")])
    await store.count_attempt("sign_in:127.0.0.1", 600)
    await store.note_failure("user:ann", 900)
    await store.rate_race(GAME, "r0", [a_run("ann"), a_run("bob")], EPOCH_MS, 60)
    entry = {"player": "ann", "name": "Ann", "rating": 1500.0, "joined_ms": 0, "account": True}
    await store.join_pool(GAME, entry)
    await save(store, "r1", "ann")
    await store.write([AppendActions("r1", entries)])
    await store.next_event_generation("ann")
    await store.claim_lease("timers", "node", 10_000)
    await store.node_alive("node", 10_000)
    await store.take_player("ann", "node")
    live = {  # owned: removed when the race ends (EndRace), or kept on purpose, bounded
        "races:live",
        "nodes",
        "node:node:players",
        "player:{ann}:races",
        "race:{r1}:race",
        "race:{r1}:racers",
        "race:{r1}:log:ann",
        "best:{sanibel}:board",
        "best:{sanibel}:members",
        "best:{sanibel}:runs",
        "daily-secret",
        "account:ann",  # the accounts: kept for good, as accounts are
        "player:{ann}:account",
        "rating:{sanibel}:ann",  # ratings: kept for good, as accounts are
        "rating:{sanibel}:bob",
        "pool:{quick}:sanibel",  # owned: entries leave when paired, cancelled or gone
    }
    async for key in store._redis.scan_iter(match=store.prefix + "*"):
        name = key.removeprefix(store.prefix)
        ttl = await store._redis.ttl(key)
        assert ttl > 0 or name in live, f"{name} neither expires nor has an owner"
    await store.write([EndRace("r1", record, {"race": "r1"}, keep_s=60)])
    for part in ("race", "racers", "log:ann", "result"):
        assert await store._redis.ttl(f"{store.prefix}race:{{r1}}:{part}") > 0
    assert not await store._redis.exists(f"{store.prefix}player:{{ann}}:races")
    await store.purge()
    await store.close()


async def test_a_redis_that_forgot_the_scripts_still_takes_a_batch(redis_url: str) -> None:
    store = RedisStore(redis_url, prefix=fresh_prefix())
    run = a_run("ann")
    await store.claim_daily(GAME, DAY, "ann", run.race)
    await store._redis.script_flush()  # as after a restart of Redis
    assert await store.write([RecordDaily(GAME, DAY, run)]) == [None]
    assert players((await store.daily_board(GAME, DAY, 10)).top) == ["ann"]
    await store.purge()
    await store.close()


async def test_an_account_is_created_once_per_username_in_any_case(store: Store) -> None:
    assert await store.create_account(Account("ann", "Ann", "hash-1"))
    assert not await store.create_account(Account("bob", "ANN", "hash-2"))
    found = await store.account("aNN")
    assert found == Account("ann", "Ann", "hash-1")
    assert await store.account_of("ann") == "Ann"
    assert await store.account_of("bob") is None and await store.account("bob") is None


async def test_an_account_s_tokens_are_revoked_one_by_one_or_all_at_once(store: Store) -> None:
    await store.write(
        [
            SaveIdentity("guest", "ann", "Annie", keep_s=100),
            SaveIdentity("phone", "ann", "Ann", keep_s=100, account="Ann"),
            SaveIdentity("laptop", "ann", "Ann", keep_s=100, account="Ann"),
            SaveIdentity("bobs", "bob", "Bob", keep_s=100, account="Bob"),
        ]
    )
    assert await store.identity("phone") == ("ann", "Ann", "Ann")
    await store.revoke_tokens("ann", ["guest"])
    assert await store.identity("guest") is None
    await store.revoke_tokens("ann", ["bobs"])  # not Ann's: kept
    assert await store.identity("bobs") is not None
    await store.revoke_tokens("ann", None)
    assert await store.identity("phone") is None and await store.identity("laptop") is None
    assert await store.identity("bobs") == ("bob", "Bob", "Bob")


async def test_attempts_are_counted_per_window_and_failures_until_cleared(store: Store) -> None:
    counts = [await store.count_attempt("sign_in:1.2.3.4", 600) for _ in range(3)]
    assert counts == [1, 2, 3] and await store.count_attempt("sign_in:5.6.7.8", 600) == 1
    assert await store.failures("user:ann") == 0
    assert [await store.note_failure("user:ann", 900) for _ in range(2)] == [1, 2]
    assert await store.failures("user:ann") == 2
    await store.clear_failures("user:ann")
    assert await store.failures("user:ann") == 0


async def test_a_player_waits_in_one_pool_until_paired_or_gone(store: Store) -> None:
    def entry(player: str) -> dict[str, object]:
        return {
            "player": player,
            "name": player,
            "rating": 1500.0,
            "joined_ms": 1,
            "account": False,
        }

    assert await store.join_pool(GAME, entry("ann")) is None
    assert await store.join_pool(GAME, entry("ann")) == GAME  # in it already
    assert await store.join_pool("shady_lanes", entry("ann")) == GAME
    assert await store.join_pool(GAME, entry("bob")) is None
    assert sorted(e["player"] for e in await store.pool(GAME)) == ["ann", "bob"]
    assert not await store.take_pair(GAME, "ann", "cy")  # cy is not waiting: nothing taken
    assert await store.take_pair(GAME, "ann", "bob")
    assert not await store.take_pair(GAME, "ann", "bob")  # paired once
    assert await store.pool(GAME) == []
    assert await store.join_pool("shady_lanes", entry("ann")) is None  # free again
    assert await store.leave_pool("ann") == "shady_lanes"
    assert await store.leave_pool("ann") is None


async def test_a_player_s_history_keeps_each_race_once_and_the_latest_fifty(store: Store) -> None:
    def line(n: int) -> RecordHistory:
        entry = {"race": f"r{n}", "at_ms": 1000 + n, "name": "Ann"}
        day = f"2026-11-{n:02d}" if n <= 30 else None
        return RecordHistory("ann", f"r{n}", GAME, entry, counted=True, won=n % 2 == 0, day=day)

    await store.write([line(n) for n in range(1, 61)])
    await store.write([line(60), line(59)])  # another node ending the same races: ignored
    past = await store.history("ann")
    assert [e["race"] for e in past.recent] == [f"r{n}" for n in range(60, 10, -1)]
    assert past.played == {GAME: 60} and past.won == {GAME: 30}
    assert past.days == [f"2026-11-{n:02d}" for n in range(1, 31)]
    assert await store.history("nobody") == History([], {}, {}, [])


async def test_a_burst_of_more_calls_than_the_store_has_connections_is_served_whole(
    store: Store,
) -> None:
    await store.set_daily_deal(GAME, DAY, 7)
    deals = await asyncio.gather(*(store.daily_deal(GAME, DAY) for _ in range(500)))
    assert deals == [7] * 500  # none refused: a call waits for a free connection
