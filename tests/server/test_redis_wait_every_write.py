"""WAIT N (``--redis-wait-replicas``) holds for every write the store acknowledges, not only
the writer's batches: an account made, a password changed, tokens revoked, a race rated, the
day's deal and its ranked attempts, the signing and daily secrets, an arena's entries,
heats, leases, results and places, a moderator's decisions and a racer's fence are answered
only once N replicas have them; fewer within the wait is ``StoreUnavailable`` (the write is
on the primary but not acknowledged; done again, it is acknowledged once a replica has it).
Real redis-servers: a primary and a replica (``--replicaof``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from arena_store import a_heat, a_place, a_result, an_arena, an_arena_with
from redis_sentinels import wait_in_step
from redis_server import RedisServer
from store_contract import DAY, EPOCH_MS, GAME, a_run

from server.handover.jobs import KeepReview
from server.store import SaveIdentity, StoreUnavailable
from server.store.account import Account
from server.store.redis_store import RedisStore

Step = Callable[[RedisStore], Awaitable[object]]
FIRST_TOKEN = 1


async def nothing(store: RedisStore) -> None:
    return None


async def an_account(store: RedisStore) -> None:
    assert await store.accounts.create_account(Account("p-ann", "Ann", "hash-1"))


async def a_token(store: RedisStore) -> None:
    await an_account(store)
    assert await store.write([SaveIdentity("t1", "p-ann", "Ann", keep_s=100, account="Ann")])


async def a_flagged_race(store: RedisStore) -> None:
    review = {"race": "r0", "status": "flagged", "at_ms": 0}
    assert await store.write([KeepReview("r0", review, 60)]) == [None]


async def an_arena_of_two(store: RedisStore) -> None:
    """Arena a1 with ann and bob in it, its lease taken: the first token."""
    assert await an_arena_with(store, "ann", "bob") == FIRST_TOKEN


async def a_heat_started(store: RedisStore) -> None:
    await an_arena_of_two(store)
    assert await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), FIRST_TOKEN)


async def top_fence(store: RedisStore) -> int:
    return await store.races._logs.top_fence(store._keys.log("r1", "ann"))


@dataclass(frozen=True)
class Write:
    before: Step  # done first, with the replica in step
    write: Step  # the write under test
    kept: Callable[[RedisStore], Awaitable[bool]]  # read on the replica: is it there?


WRITES = {
    "an account made": Write(
        nothing,
        lambda s: s.accounts.create_account(Account("p-ann", "Ann", "hash-1")),
        lambda r: _is_not_none(r.accounts.account("Ann")),
    ),
    "a password changed": Write(
        an_account,
        lambda s: s.accounts.set_password_hash("Ann", "hash-2"),
        lambda r: _equals(_hash_of(r, "Ann"), "hash-2"),
    ),
    "tokens revoked": Write(
        a_token,
        lambda s: s.accounts.revoke_tokens("p-ann", None),
        lambda r: _equals(r.accounts.identity("t1"), None),
    ),
    "a race rated": Write(
        nothing,
        lambda s: s.accounts.rate_race(GAME, "r0", [a_run("ann"), a_run("bob")], EPOCH_MS, 60),
        lambda r: r.accounts.was_rated(GAME, "r0"),
    ),
    "the day's deal": Write(
        nothing,
        lambda s: s.days.set_daily_deal(GAME, DAY, 7),
        lambda r: _equals(r.days.daily_deal(GAME, DAY), 7),
    ),
    "a ranked attempt claimed": Write(
        nothing,
        lambda s: s.days.claim_daily(GAME, DAY, "ann", "r9"),
        lambda r: _equals(r.days.ranked_attempt(GAME, DAY, "ann"), "r9"),
    ),
    "the signing key": Write(
        nothing,
        lambda s: s.signing_key("key-1"),
        lambda r: _equals(r._redis.get(r._keys.key("signing-key")), "key-1"),
    ),
    "the daily secret": Write(
        nothing,
        lambda s: s.daily_secret("secret-1"),
        lambda r: _equals(r._redis.get(r._keys.key("daily-secret")), "secret-1"),
    ),
    "a public key published": Write(
        nothing,
        lambda s: s.publish_key("k1", "ab" * 32),
        lambda r: _equals(r._redis.hget(r._keys.key("signing-keys"), "k1"), "ab" * 32),
    ),
    "an arena made": Write(
        nothing,
        lambda s: s.arenas.create_arena(an_arena()),
        lambda r: _is_not_none(r.arenas.arena("a1")),
    ),
    "an arena joined": Write(
        lambda s: s.arenas.create_arena(an_arena()),
        lambda s: s.arenas.join("a1", "ann", 1),
        lambda r: _equals(_players(r), ["ann"]),
    ),
    "an arena's lease taken": Write(
        lambda s: s.arenas.create_arena(an_arena()),
        lambda s: s.arenas.take_lease("a1", "node-a", 10_000),
        lambda r: _equals(r._redis.get(r._keys.arena("a1", "lease-token")), "1"),
    ),
    "a heat started": Write(
        an_arena_of_two,
        lambda s: s.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), FIRST_TOKEN),
        lambda r: _equals(_heats(r), ["h1"]),
    ),
    "a heat's result": Write(
        a_heat_started,
        lambda s: s.arenas.append("a1", a_result("h1", "ann", "bob")),
        lambda r: _equals(_log_length(r), 1),
    ),
    "an arena place kept": Write(
        an_arena_of_two,
        lambda s: s.arenas.record_place("ann", a_place("a1", 1), 60),
        lambda r: _equals(r.arenas.best_place("ann"), 1),
    ),
    "a review settled": Write(
        a_flagged_race,
        lambda s: s.moderation.settle("r0", "flagged", {"race": "r0", "status": "cleared"}, 60),
        lambda r: _equals(r.moderation.waiting(), 0),
    ),
    "an account closed": Write(
        an_account,
        lambda s: s.moderation.close_account("Ann"),
        lambda r: _closed(r, "Ann"),
    ),
    "a racer's fence claimed": Write(
        nothing,
        lambda s: s.races.claim_racer("r1", "ann", 7),
        lambda r: _equals(top_fence(r), 7),
    ),
}


async def _equals(reading: Awaitable[object], expected: object) -> bool:
    return await reading == expected


async def _is_not_none(reading: Awaitable[object]) -> bool:
    return await reading is not None


async def _hash_of(store: RedisStore, username: str) -> str | None:
    account = await store.accounts.account(username)
    return None if account is None else account.password_hash


async def _closed(store: RedisStore, username: str) -> bool:
    account = await store.accounts.account(username)
    return account is not None and account.closed


async def _players(store: RedisStore) -> list[str]:
    return [entry.player for entry in await store.arenas.participants("a1")]


async def _heats(store: RedisStore) -> list[str]:
    return [heat.heat for heat in await store.arenas.heats("a1")]


async def _log_length(store: RedisStore) -> int:
    return len(await store.arenas.log("a1"))


@pytest.mark.parametrize("what", list(WRITES))
async def test_a_write_is_acknowledged_only_once_a_replica_has_it(
    what: str, pair: tuple[RedisServer, RedisServer], stores: Callable[..., RedisStore]
) -> None:
    primary, replica = pair
    case = WRITES[what]
    await case.before(stores(primary.url))
    wait_in_step(replica)
    replica.pause()
    with pytest.raises(StoreUnavailable, match="only 0 of the 1 replicas asked for confirmed"):
        await case.write(stores(primary.url, wait_replicas=1, wait_ms=300))
    replica.resume()
    await case.write(stores(primary.url, wait_replicas=1, wait_ms=5000))  # acknowledged now
    assert await case.kept(stores(replica.url))
