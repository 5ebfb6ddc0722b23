"""The store contract, races, their logs and fencing: the in-memory store and the Redis
store (on a real server) must keep the same promises."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from store_contract import GAME, a_record, append, listed, save

from protocol.race import LogEntry
from server.handover.jobs import AppendActions, EndRace, KeepReview, SaveIdentity
from server.handover.node_news import CARRIED_MAX
from server.store import Fenced, Identity, MemoryStore, Store, race_channel
from server.store.redis_store import RedisStore

# races


async def test_race_records_and_results_round_trip(store: Store) -> None:
    race = {
        "game": GAME,
        "options": {"down": 3, "up": 7, "undo": True},
        "deal": 10**20 - 1,
        "kind": "race",
        "racers": [{"player": "ann"}, {"player": "bob"}],
        "note": "ünïcode",
    }
    result = {"winner": "ann", "runs": [{"player": "ann", "time_ms": 61_234, "finished": True}]}
    assert await store.races.save_race_if("r1", race, 0, listed("ann", "bob"))
    assert await store.races.load_race("r1") == {**race, "version": 1}
    await store.write([EndRace("r1", race, result, 3600, version=1)])
    assert await store.races.load_result("r1") == result
    assert await store.races.load_race("r2") is None
    assert await store.races.load_result("r2") is None


async def test_the_action_log_keeps_order_and_types_of_many_entries(store: Store) -> None:
    entries = [LogEntry(f"p{i % 3}", i // 3 + 1, f"t{i % 10} 1 f", 37 * i) for i in range(1_200)]
    for entry in entries:
        await append(store, ("r1", entry))
    logged = await store.races.actions("r1")
    assert logged == entries
    assert all(type(e.seq) is int and type(e.t_ms) is int for e in logged)
    assert await store.races.actions("r2") == []


async def test_a_resent_action_entry_is_not_logged_twice(store: Store) -> None:
    first = LogEntry("ann", 1, "deal", 100)
    second = LogEntry("bob", 1, "t0 1 t1", 120)
    await append(store, ("r1", first))
    await append(store, ("r1", second))
    await append(store, ("r1", first))
    assert await store.races.actions("r1") == [first, second]


async def test_a_batch_of_actions_keeps_each_races_order(store: Store) -> None:
    a1, a2, a3 = (LogEntry("ann", i, "deal", i) for i in range(1, 4))
    b1, b2 = (LogEntry("bob", i, "auto", i) for i in range(1, 3))
    await append(store, ("ra", a1), ("rb", b1), ("ra", a2), ("rb", b2), ("ra", a3))
    assert await store.races.actions("ra") == [a1, a2, a3]
    assert await store.races.actions("rb") == [b1, b2]


async def test_a_batch_sent_again_after_a_failure_is_not_logged_twice(store: Store) -> None:
    batch = [("r1", LogEntry("ann", i, "deal", i)) for i in range(1, 501)]
    later = [("r1", LogEntry("ann", 501, "auto", 501))]
    await append(store, *batch)
    await append(store, *batch)
    await append(store, *later)
    assert await store.races.actions("r1") == [entry for _, entry in batch + later]


async def test_an_action_written_again_at_another_time_is_not_logged_twice(
    store: Store,
) -> None:
    first = LogEntry("ann", 1, "deal", 100)
    await append(store, ("r1", first))
    await append(store, ("r1", first._replace(t_ms=180)))  # a lost answer, sent again
    await append(store, ("r1", LogEntry("ann", 2, "auto", 200)))
    assert await store.races.actions("r1") == [first, LogEntry("ann", 2, "auto", 200)]


async def test_saved_races_are_live_and_found_by_their_racers_until_they_end(
    store: Store,
) -> None:
    assert await save(store, "r1", "ann")
    assert await save(store, "r1", "ann", "bob", version=1)
    assert await save(store, "r2", "bob")
    assert sorted(await store.races.listed_races("live")) == ["r1", "r2"]
    assert await store.races.player_races("bob") == ["r1", "r2"]
    result = {"race": "r1", "ranking": []}
    await store.write([EndRace("r1", a_record("r1", "ann", "bob"), result, 3600, version=2)])
    assert await store.races.listed_races("live") == ["r2"]
    assert await store.races.player_races("ann") == []
    assert await store.races.player_races("bob") == ["r2"]
    assert await store.races.load_result("r1") == result
    assert await store.races.load_race("r1") == {**a_record("r1", "ann", "bob"), "version": 3}


async def test_a_race_record_changes_only_from_the_version_it_was_read_at(store: Store) -> None:
    assert await save(store, "r1", "ann")
    assert not await save(store, "r1", "ann", "bob")  # someone else wrote version 1 first
    assert not await save(store, "r1", "ann", "bob", version=2)
    assert (await store.races.load_race("r1") or {})["racers"] == a_record("r1", "ann")["racers"]
    assert await save(store, "r1", "ann", "bob", version=1)
    assert (await store.races.load_race("r1") or {})["version"] == 2


async def test_races_are_listed_as_they_say_and_read_together(store: Store) -> None:
    await store.races.save_race_if("r1", a_record("r1", "ann"), 0, listed("ann", joinable=True))
    await store.races.save_race_if("r2", a_record("r2", "bob"), 0, listed("bob", watchable=True))
    assert await store.races.listed_races("open") == ["r1"]
    assert await store.races.listed_races("watchable") == ["r2"]
    records = await store.races.load_races(["r2", "r9", "r1"])
    assert [r and r["race"] for r in records] == ["r2", None, "r1"]
    await store.races.save_race_if("r1", a_record("r1", "ann"), 1, listed("ann"))
    assert await store.races.listed_races("open") == []


async def test_a_batch_of_jobs_is_done_in_order_with_each_job_answered(store: Store) -> None:
    entries = tuple(LogEntry("ann", i, "deal", i) for i in range(1, 4))
    jobs = [
        AppendActions("r1", entries[:2]),
        SaveIdentity("hash", "ann", "Ann", keep_s=3600),
        AppendActions("r1", entries[2:]),
    ]
    assert await store.write(jobs) == [None, None, None]
    assert await store.races.actions("r1") == list(entries)
    assert await store.accounts.identity("hash") == Identity("ann", "Ann", None)
    assert await store.accounts.identity("other") is None


async def test_a_racer_s_log_is_read_after_a_seq(store: Store) -> None:
    entries = tuple(LogEntry("ann", i, "deal", 10 * i) for i in range(1, 6))
    await store.write([AppendActions("r1", entries)])
    assert await store.races.racer_log("r1", "ann", 3) == list(entries[3:])
    assert await store.races.racer_log("r1", "ann") == list(entries)
    assert await store.races.racer_log("r1", "bob") == []
    assert await store.races.racers_logged("r1") == ["ann"]


async def test_a_claimed_log_refuses_the_writes_of_an_older_session(store: Store) -> None:
    first, second = LogEntry("ann", 1, "deal", 5), LogEntry("ann", 2, "auto", 9)
    assert await store.write([AppendActions("r1", (first,), fence=3)]) == [None]
    assert await store.races.claim_racer("r1", "ann", 4)  # a new session took ann over
    assert not await store.races.claim_racer("r1", "ann", 3)  # an older one cannot take her back
    late = await store.write([AppendActions("r1", (second,), fence=3)])
    assert isinstance(late[0], Fenced)
    assert await store.write([AppendActions("r1", (second,), fence=4)]) == [None]
    assert await store.write([AppendActions("r1", (second,), fence=4)]) == [None]  # resent
    assert await store.races.racer_log("r1", "ann") == [first, second]


def unstamped(message: dict[str, Any]) -> dict[str, Any]:
    """A message heard without its sending time, which the record and log messages the
    store sends for node-a carry (``node_news.stamped``: the wall clock, a moment ago)."""
    if message.get("k") in ("record", "log") and message.get("n") == "node-a":
        assert abs(message.pop("t") - time.time() * 1000) < 10_000
    return message


async def test_subscribers_hear_messages_and_race_changes(store: Store) -> None:
    heard: list[tuple[str, dict[str, Any]]] = []
    store.listener = lambda channel, message: heard.append((channel, unstamped(message)))
    store.node = "node-a"
    await store.bus.subscribe([race_channel("r1")])
    await store.bus.publish(race_channel("r1"), {"k": "hello"})
    await store.bus.publish(race_channel("r2"), {"k": "not followed"})
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
    await store.bus.unsubscribe([race_channel("r1")])


async def test_a_node_that_does_not_hear_its_own_log_messages_hears_everything_else(
    store: Store,
) -> None:
    heard: list[dict[str, Any]] = []
    store.listener = lambda channel, message: heard.append(unstamped(message))
    store.node = "node-a"
    store.hear_own_logs = False
    await store.bus.subscribe([race_channel("r1")])
    await save(store, "r1", "ann")
    await store.write([AppendActions("r1", (LogEntry("ann", 1, "deal", 5),))])
    theirs = {"k": "log", "p": "bob", "n": "node-b", "e": [[1, 7, "b1"]]}
    await store.bus.publish(race_channel("r1"), theirs)
    for _ in range(100):
        if len(heard) >= 2:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert heard == [{"k": "record", "v": 1, "n": "node-a"}, theirs]
    await store.bus.unsubscribe([race_channel("r1")])


async def test_a_log_message_carries_a_batch_s_entries_once_they_are_stored(store: Store) -> None:
    heard: list[dict[str, Any]] = []
    store.listener = lambda channel, message: heard.append(unstamped(message))
    store.node = "node-a"
    await store.bus.subscribe([race_channel("r1")])
    ann = [LogEntry("ann", seq, f"a{seq}", 10 * seq) for seq in (1, 2)]
    bob = [LogEntry("bob", seq, f"b{seq}", 7 * seq) for seq in range(1, CARRIED_MAX + 3)]
    jobs = [AppendActions("r1", (ann[0], bob[0], ann[1]), fence=3), AppendActions("r1", ())]
    assert await store.write(jobs) == [None, None]
    assert await store.write([AppendActions("r1", tuple(bob[1:]), fence=3)]) == [None]
    assert await store.races.claim_racer("r1", "ann", 4)  # a new session took ann over
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
    await store.bus.unsubscribe([race_channel("r1")])


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
        await store.bus.subscribe([race_channel("r1"), race_channel("r2")])
        await store.bus.unsubscribe([race_channel("r2")])
        await store.bus.publish(race_channel("r1"), {"k": "before"})
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
        await store.bus.publish(race_channel("r2"), {"k": "not followed"})
        await store.bus.publish(race_channel("r1"), {"k": "after"})
        for _ in range(200):
            if len(heard) >= 3:
                break
            await asyncio.sleep(0.01)
        assert heard[2:] == [("race:r1", {"k": "after"})]
    finally:
        await store.purge()
        await store.close()


async def test_an_ended_race_is_kept_for_its_time_then_dropped(store: Store) -> None:
    record, result = a_record("r1", "ann"), {"race": "r1"}
    await save(store, "r1", "ann")
    await store.write([AppendActions("r1", (LogEntry("ann", 1, "deal", 5),))])
    await store.write([EndRace("r1", record, result, keep_s=1, version=1)])
    assert await store.races.load_result("r1") == result
    await asyncio.sleep(1.1)
    await store.write([EndRace("r2", a_record("r2", "bob"), {"race": "r2"}, keep_s=60)])
    assert await store.races.load_result("r1") is None
    assert await store.races.load_race("r1") is None
    assert await store.races.actions("r1") == []
    assert await store.races.load_result("r2") == {"race": "r2"}


async def test_the_memory_store_keeps_at_most_its_number_of_ended_races() -> None:
    store = MemoryStore(max_ended=3)
    for i in range(5):
        await store.write([EndRace(f"r{i}", a_record(f"r{i}", "ann"), {"race": f"r{i}"}, 3600)])
    kept = [race for race in (f"r{i}" for i in range(5)) if await store.races.load_result(race)]
    assert kept == ["r2", "r3", "r4"]


async def test_the_memory_store_forgets_a_review_with_its_race_unless_it_is_flagged() -> None:
    store = MemoryStore(max_ended=2)
    for i, status in enumerate(("flagged", "clear", "clear", "clear")):
        review = {"race": f"r{i}", "status": status, "at_ms": i}
        await store.write([EndRace(f"r{i}", a_record(f"r{i}", "ann"), {"race": f"r{i}"}, 3600)])
        await store.write([KeepReview(f"r{i}", review, 3600)])
    kept = [race for race in ("r0", "r1", "r2", "r3") if await store.moderation.review(race)]
    assert kept == ["r0", "r2", "r3"]  # r1 went with its race; r0 waits for a moderator


async def test_the_reviews_waiting_for_a_moderator_are_counted_until_settled(store: Store) -> None:
    assert await store.moderation.waiting() == 0
    for i, status in enumerate(("flagged", "clear", "flagged")):
        await store.write(
            [KeepReview(f"r{i}", {"race": f"r{i}", "status": status, "at_ms": i}, 60)]
        )
    assert await store.moderation.waiting() == 2  # the two flagged, not the clear one
    cleared = {"race": "r0", "status": "cleared", "at_ms": 0}
    assert await store.moderation.settle("r0", "flagged", cleared, 60)
    assert await store.moderation.waiting() == 1


async def test_a_settling_refused_leaves_the_list_and_one_that_flags_joins_it(store: Store) -> None:
    for i, status in enumerate(("flagged", "clear")):
        await store.write(
            [KeepReview(f"r{i}", {"race": f"r{i}", "status": status, "at_ms": i}, 60)]
        )
    judged = {"race": "r0", "status": "flagged", "at_ms": 0, "judged": True}
    assert not await store.moderation.settle("r0", "clear", judged, 0)  # it is not clear
    assert await store.moderation.waiting() == 1  # still waiting for a moderator
    flagged = {"race": "r1", "status": "flagged", "at_ms": 1}
    assert await store.moderation.settle("r1", "clear", flagged, 0)  # judged late: flagged
    assert [review["race"] for review in await store.moderation.flagged(10)] == ["r0", "r1"]
