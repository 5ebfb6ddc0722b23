"""The store contract, players, nodes, leases, accounts, histories and pools: the
in-memory store and the Redis store (on a real server) must keep the same promises."""

from __future__ import annotations

import asyncio

from store_contract import GAME

from server.handover.jobs import RecordHistory, SaveIdentity
from server.store import Account, History, Identity, Store


async def test_nodes_say_they_are_alive_and_who_their_players_are(store: Store) -> None:
    await store.bus.node_alive("node-a", 10_000)
    await store.bus.node_alive("node-b", 100)
    assert await store.bus.take_player("ann", "node-b") is None
    assert await store.bus.take_player("bob", "node-b") is None
    assert await store.bus.take_player("bob", "node-a") == "node-b"  # bob moved
    await asyncio.sleep(0.2)
    assert await store.bus.nodes() == {"node-a": True, "node-b": False}
    assert await store.bus.node_players("node-b") == ["ann"]
    assert await store.bus.player_node("bob") == "node-a"
    await store.bus.forget_node("node-b")
    assert await store.bus.nodes() == {"node-a": True}


async def test_event_generations_only_grow(store: Store) -> None:
    first = await store.bus.next_event_generation("ann")
    assert await store.bus.next_event_generation("ann") > first


async def test_a_lease_is_held_by_one_holder_until_it_lapses(store: Store) -> None:
    assert await store.bus.claim_lease("timers", "node-a", 200)
    assert not await store.bus.claim_lease("timers", "node-b", 200)
    assert await store.bus.claim_lease("timers", "node-a", 200)  # renewed
    await asyncio.sleep(0.3)
    assert await store.bus.claim_lease("timers", "node-b", 200)
    await store.bus.release_lease("timers", "node-a")  # not the holder: nothing happens
    assert not await store.bus.claim_lease("timers", "node-a", 200)
    await store.bus.release_lease("timers", "node-b")
    assert await store.bus.claim_lease("timers", "node-a", 200)


async def test_an_account_is_created_once_per_username_in_any_case(store: Store) -> None:
    assert await store.accounts.create_account(Account("ann", "Ann", "hash-1"))
    assert not await store.accounts.create_account(Account("bob", "ANN", "hash-2"))
    found = await store.accounts.account("aNN")
    assert found == Account("ann", "Ann", "hash-1")
    assert await store.accounts.account_of("ann") == "Ann"
    assert (
        await store.accounts.account_of("bob") is None
        and await store.accounts.account("bob") is None
    )


async def test_an_account_s_tokens_are_revoked_one_by_one_or_all_at_once(store: Store) -> None:
    await store.write(
        [
            SaveIdentity("guest", "ann", "Annie", keep_s=100),
            SaveIdentity("phone", "ann", "Ann", keep_s=100, account="Ann"),
            SaveIdentity("laptop", "ann", "Ann", keep_s=100, account="Ann"),
            SaveIdentity("bobs", "bob", "Bob", keep_s=100, account="Bob"),
        ]
    )
    assert await store.accounts.identity("phone") == Identity("ann", "Ann", "Ann")
    await store.accounts.revoke_tokens("ann", ["guest"])
    assert await store.accounts.identity("guest") is None
    await store.accounts.revoke_tokens("ann", ["bobs"])  # not Ann's: kept
    assert await store.accounts.identity("bobs") is not None
    await store.accounts.revoke_tokens("ann", None)
    assert (
        await store.accounts.identity("phone") is None
        and await store.accounts.identity("laptop") is None
    )
    assert await store.accounts.identity("bobs") == Identity("bob", "Bob", "Bob")


async def test_attempts_are_counted_per_window_and_failures_until_cleared(store: Store) -> None:
    counts = [await store.limits.count_attempt("sign_in:1.2.3.4", 600) for _ in range(3)]
    assert counts == [1, 2, 3] and await store.limits.count_attempt("sign_in:5.6.7.8", 600) == 1
    assert await store.limits.failures("user:ann") == 0
    assert [await store.limits.note_failure("user:ann", 900) for _ in range(2)] == [1, 2]
    assert await store.limits.failures("user:ann") == 2
    await store.limits.clear_failures("user:ann")
    assert await store.limits.failures("user:ann") == 0


async def test_a_player_waits_in_one_pool_until_paired_or_gone(store: Store) -> None:
    def entry(player: str) -> dict[str, object]:
        return {
            "player": player,
            "name": player,
            "rating": 1500.0,
            "joined_ms": 1,
            "account": False,
        }

    assert await store.pairing.join_pool(GAME, entry("ann")) is None
    assert await store.pairing.join_pool(GAME, entry("ann")) == GAME  # in it already
    assert await store.pairing.join_pool("shady_lanes", entry("ann")) == GAME
    assert await store.pairing.join_pool(GAME, entry("bob")) is None
    assert sorted(e["player"] for e in await store.pairing.pool(GAME)) == ["ann", "bob"]
    assert not await store.pairing.take_pair(GAME, "ann", "cy")  # cy is not waiting: nothing taken
    assert await store.pairing.take_pair(GAME, "ann", "bob")
    assert not await store.pairing.take_pair(GAME, "ann", "bob")  # paired once
    assert await store.pairing.pool(GAME) == []
    assert await store.pairing.join_pool("shady_lanes", entry("ann")) is None  # free again
    assert await store.pairing.leave_pool("ann") == "shady_lanes"
    assert await store.pairing.leave_pool("ann") is None


async def test_a_player_s_history_keeps_each_race_once_and_the_latest_fifty(store: Store) -> None:
    def line(n: int) -> RecordHistory:
        entry = {"race": f"r{n}", "at_ms": 1000 + n, "name": "Ann"}
        day = f"2026-11-{n:02d}" if n <= 30 else None
        return RecordHistory("ann", f"r{n}", GAME, entry, counted=True, won=n % 2 == 0, day=day)

    await store.write([line(n) for n in range(1, 61)])
    await store.write([line(60), line(59)])  # another node ending the same races: ignored
    past = await store.accounts.history("ann")
    assert [e["race"] for e in past.recent] == [f"r{n}" for n in range(60, 10, -1)]
    assert past.played == {GAME: 60} and past.won == {GAME: 30}
    assert past.days == [f"2026-11-{n:02d}" for n in range(1, 31)]
    assert await store.accounts.history("nobody") == History([], {}, {}, [])


async def test_a_player_s_history_counts_finished_runs_and_their_times(store: Store) -> None:
    def run(n: int, game: str, outcome: str, time_ms: int | None) -> RecordHistory:
        entry = {"race": f"r{n}", "at_ms": n, "outcome": outcome, "time_ms": time_ms}
        return RecordHistory("ann", f"r{n}", game, entry, counted=False, won=False)

    await store.write(
        [
            run(1, GAME, "finished", 60_000),
            run(2, GAME, "resigned", None),
            run(3, GAME, "finished", 90_001),
        ]
    )
    await store.write(
        [run(3, GAME, "finished", 90_001), run(4, "sanibel", "stuck", None)]
    )  # again: once
    past = await store.accounts.history("ann")
    assert past.finished == {GAME: 2} and past.time_ms == {GAME: 150_001}
