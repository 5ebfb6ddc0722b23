"""The store contract, players, nodes, leases, accounts, histories and pools: the
in-memory store and the Redis store (on a real server) must keep the same promises."""

from __future__ import annotations

import asyncio

from store_contract import GAME

from server.jobs import RecordHistory, SaveIdentity
from server.store import Account, History, Identity, Store


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
    assert await store.identity("phone") == Identity("ann", "Ann", "Ann")
    await store.revoke_tokens("ann", ["guest"])
    assert await store.identity("guest") is None
    await store.revoke_tokens("ann", ["bobs"])  # not Ann's: kept
    assert await store.identity("bobs") is not None
    await store.revoke_tokens("ann", None)
    assert await store.identity("phone") is None and await store.identity("laptop") is None
    assert await store.identity("bobs") == Identity("bob", "Bob", "Bob")


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
