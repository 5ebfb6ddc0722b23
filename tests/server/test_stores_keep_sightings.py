"""The store contract, sightings: accounts seen on one address, one device or one session
(a token lineage) within the window asked about are related; both stores keep the same
promises."""

from __future__ import annotations

from server.store import Relation, Store

DAY = 86_400_000
WEEK = 7 * DAY
NOW = 1_800_000_000_000


async def test_accounts_seen_on_one_address_are_related(store: Store) -> None:
    await store.accounts.note_sighting("pann", "address", "203.0.113.5", NOW - 5, WEEK)
    await store.accounts.note_sighting("pbob", "address", "203.0.113.5", NOW, WEEK)
    assert await store.accounts.related("pann", NOW - WEEK) == [Relation("pbob", "address", NOW)]
    assert await store.accounts.related("pbob", NOW - WEEK) == [
        Relation("pann", "address", NOW - 5)
    ]


async def test_accounts_seen_on_one_device_are_related_whatever_their_addresses(
    store: Store,
) -> None:
    await store.accounts.note_sighting("pann", "address", "203.0.113.5", NOW, WEEK)
    await store.accounts.note_sighting("pann", "device", "d" * 16, NOW, WEEK)
    await store.accounts.note_sighting("pbob", "address", "198.51.100.7", NOW, WEEK)
    await store.accounts.note_sighting("pbob", "device", "d" * 16, NOW + 1, WEEK)
    assert await store.accounts.related("pann", NOW - WEEK) == [Relation("pbob", "device", NOW + 1)]


async def test_accounts_seen_on_one_session_are_related_whatever_their_addresses(
    store: Store,
) -> None:
    await store.accounts.note_sighting("pann", "address", "203.0.113.5", NOW, WEEK)
    await store.accounts.note_sighting("pann", "session", "f" * 64, NOW - 9, WEEK)
    await store.accounts.note_sighting("pbob", "address", "198.51.100.7", NOW, WEEK)
    await store.accounts.note_sighting("pbob", "session", "f" * 64, NOW, WEEK)
    assert await store.accounts.related("pbob", NOW - WEEK) == [
        Relation("pann", "session", NOW - 9)
    ]


async def test_accounts_seen_on_sessions_of_their_own_are_not_related(store: Store) -> None:
    await store.accounts.note_sighting("pann", "session", "a" * 64, NOW, WEEK)
    await store.accounts.note_sighting("pbob", "session", "b" * 64, NOW, WEEK)
    assert await store.accounts.related("pann", NOW - WEEK) == []


async def test_accounts_seen_on_other_addresses_and_devices_are_not_related(
    store: Store,
) -> None:
    await store.accounts.note_sighting("pann", "address", "203.0.113.5", NOW, WEEK)
    await store.accounts.note_sighting("pann", "device", "a" * 16, NOW, WEEK)
    await store.accounts.note_sighting("pbob", "address", "198.51.100.7", NOW, WEEK)
    await store.accounts.note_sighting("pbob", "device", "b" * 16, NOW, WEEK)
    assert await store.accounts.related("pann", NOW - WEEK) == []
    assert await store.accounts.related("nobody", NOW - WEEK) == []


async def test_a_sighting_older_than_the_window_relates_nobody(store: Store) -> None:
    await store.accounts.note_sighting("pann", "address", "203.0.113.5", NOW - 8 * DAY, WEEK)
    await store.accounts.note_sighting("pbob", "address", "203.0.113.5", NOW, WEEK)
    assert await store.accounts.related("pbob", NOW - WEEK) == []
    assert await store.accounts.related("pann", NOW - WEEK) == []  # ann's own is too old


async def test_the_last_sighting_of_a_related_account_is_the_one_told(store: Store) -> None:
    for at_ms in (NOW - 2 * DAY, NOW - DAY, NOW):
        await store.accounts.note_sighting("pbob", "device", "d" * 16, at_ms, WEEK)
    await store.accounts.note_sighting("pann", "device", "d" * 16, NOW, WEEK)
    assert await store.accounts.related("pann", NOW - WEEK) == [Relation("pbob", "device", NOW)]
