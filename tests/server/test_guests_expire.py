"""What a guest leaves behind: a guest's resume token is kept a day after its last use
while they have never played, ``keep_guests_days`` once they have (a race, a daily attempt,
a pool), and an account's for ``keep_identities_days``; an expired token names nobody.
On a real Redis (the keys' TTLs) and on the in-memory store."""

from __future__ import annotations

import asyncio
import time
import uuid

from harness import member, player, running_server, url

from client.api import Client
from server.handover.jobs import SaveIdentity
from server.state.sessions import token_hash
from server.store import MemoryStore, open_store
from server.store.redis_store import RedisStore

DAY = 86_400
GAME = "mount_sunflower"


async def ttl(store: RedisStore, token: str) -> int:
    seconds: int = await store._redis.ttl(store._keys.key("token", token_hash(token)))
    return seconds


async def settled(store: RedisStore, token: str, above: int, at_most: int) -> int:
    """The token's TTL once the write behind the last answer is in (within 5 s)."""
    deadline = time.monotonic() + 5
    while not above < (seconds := await ttl(store, token)) <= at_most:
        assert time.monotonic() < deadline, f"TTL {seconds} not in ({above}, {at_most}]"
        await asyncio.sleep(0.02)
    return seconds


async def test_a_guest_is_kept_a_day_until_they_play_then_weeks_and_an_account_a_year(
    redis_url: str,
) -> None:
    store = open_store(redis_url, prefix=f"guests-{uuid.uuid4().hex}:")
    assert isinstance(store, RedisStore)
    try:
        async with running_server(store, keep_guests_days=30) as server:
            idle, racer = await player(server, "Idle"), await player(server, "Racer")
            await settled(store, idle.token, 0, DAY)
            await racer.create_race(GAME)  # starts to play: kept for weeks
            await settled(store, racer.token, DAY, 30 * DAY)
            ann = await member(server, "Ann")
            await settled(store, ann.token, 30 * DAY, 365 * DAY)
            tokens = {c.name: c.token for c in (idle, racer)}
            players = {c.name: c.player for c in (idle, racer)}
            for client in (idle, racer, ann):
                await client.close()
        async with running_server(store, keep_guests_days=30) as server:  # they come back
            for name, token in tokens.items():
                again = Client(url(server), name)
                await again._open(token)
                assert again.player == players[name]  # the token still names them
                await again.close()
            await settled(store, tokens["Idle"], 0, DAY)  # never played: still a day
            await settled(store, tokens["Racer"], DAY, 30 * DAY)  # played: weeks again
    finally:
        await store.purge()  # type: ignore[attr-defined]
        await store.close()


async def test_the_memory_store_forgets_a_token_when_its_time_is_up() -> None:
    store = MemoryStore()
    await store.write([SaveIdentity("short", "p1", "Ann", keep_s=1)])
    await store.write([SaveIdentity("long", "p2", "Bob", keep_s=DAY)])
    assert (await store.accounts.identity("short")) is not None
    await asyncio.sleep(1.1)
    assert (
        await store.accounts.identity("short") is None
        and await store.accounts.identity("long") is not None
    )
    await store.write([SaveIdentity("later", "p3", "Cy", keep_s=DAY)])  # prunes the old one
    assert "short" not in store.accounts.identities and "short" not in store.accounts.identity_until
