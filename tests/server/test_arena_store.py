"""Where arenas are kept (docs/arenas.md): the store's arenas role keeps the same promises in
memory and in Redis (on a real server): an arena created once, its participants, the heats
its pairer started under the pairing lease, its log appended once per entry, and the
players' arena lines for their profiles. What survives a crash, every key's lifetime and
the properties over any writes are in test_arena_store_holds_up.py."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from arena_store import (
    LEASE_MS,
    LENGTH_MS,
    STARTS_MS,
    a_heat,
    a_place,
    a_result,
    an_arena,
    an_arena_with,
    lower,
)

from protocol.arena import Cleared, Entry, Removed, Withdrawn, standings
from server.store import Store
from server.store.arena_records import (
    ArenaFull,
    ArenaNotFound,
    BadArena,
    BadArenaEntry,
    NotInArena,
    Participant,
    StaleLease,
)
from server.store.arenas import PLACES_KEPT

# the record


async def test_an_arena_is_created_once_and_the_same_creation_again_is_accepted(
    store: Store,
) -> None:
    assert await store.arenas.create_arena(an_arena())
    assert await store.arenas.create_arena(an_arena())  # a retry: the same arena
    assert await store.arenas.arena("a1") == an_arena()
    assert await store.arenas.arena("a2") is None


async def test_another_arena_under_a_taken_id_is_refused_and_the_first_kept(store: Store) -> None:
    assert await store.arenas.create_arena(an_arena())
    assert not await store.arenas.create_arena(an_arena(length_ms=60 * 60_000))
    assert not await store.arenas.create_arena(an_arena(made_by="oper"))
    assert await store.arenas.arena("a1") == an_arena()


async def test_an_operator_s_arena_is_listed_until_its_end_and_the_calendar_s_never(
    store: Store,
) -> None:
    made = an_arena("op1", made_by="moderator", title="Friday night")
    later = an_arena("op2", made_by="moderator", starts_at_ms=STARTS_MS + LENGTH_MS)
    for record in (later, an_arena("a1"), made, made):  # a retry lists it once
        assert await store.arenas.create_arena(record)
    assert await store.arenas.made_arenas(STARTS_MS) == [made, later]
    assert await store.arenas.made_arenas(made.ends_at_ms) == [later]  # op1 is over then
    assert await store.arenas.arena("op1") == made  # its title kept with it
    assert await store.arenas.arena("a1") == an_arena("a1")  # the calendar's has none


@pytest.mark.parametrize(
    "changes",
    [
        {"title": "x" * 61},
        {"title": "a\ttab"},
        {"arena": "x" * 65},
        {"arena": "a{1}"},
        {"game": "chess"},
        {"heat_size": 5},
        {"heat_size": 1},
        {"length_ms": 59_999},
        {"starts_at_ms": -1},
        {"conditions": {"note": "x" * 1100}},
        {"conditions": {"bad": float("nan")}},
        {"made_by": ""},
    ],
)
def test_an_arena_out_of_its_ranges_is_refused_with_a_sentence(changes: dict[str, object]) -> None:
    with pytest.raises(BadArena) as refused:
        an_arena(**changes)  # type: ignore[arg-type]
    assert refused.value.code == "bad_arena" and refused.value.message


async def test_an_arena_s_status_only_moves_on(store: Store) -> None:
    await store.arenas.create_arena(an_arena())
    assert not await store.arenas.set_status("a1", "ended")  # not before it ran
    assert await store.arenas.set_status("a1", "running")
    assert await store.arenas.set_status("a1", "running")  # again: it is running
    assert await store.arenas.set_status("a1", "ended")
    assert not await store.arenas.set_status("a1", "running")
    record = await store.arenas.arena("a1")
    assert record is not None and record.status == "ended"
    assert await store.arenas.create_arena(an_arena())  # the same arena, its status aside
    with pytest.raises(BadArena):
        await store.arenas.set_status("a1", "paused")


# participants


async def test_joining_twice_makes_one_participant(store: Store) -> None:
    await store.arenas.create_arena(an_arena())
    assert await store.arenas.join("a1", "ann", STARTS_MS + 5)
    assert not await store.arenas.join("a1", "ann", STARTS_MS + 9)
    assert await store.arenas.participants("a1") == [Participant("ann", STARTS_MS + 5)]


async def test_joining_an_arena_never_created_is_refused(store: Store) -> None:
    with pytest.raises(ArenaNotFound) as refused:
        await store.arenas.join("nowhere", "ann", STARTS_MS)
    assert refused.value.code == "arena_not_found"


async def test_every_call_about_an_arena_never_created_is_refused(store: Store) -> None:
    arenas = store.arenas
    calls = [
        arenas.set_status("nowhere", "running"),
        arenas.change("nowhere", "ann", "pause", 1),
        arenas.participants("nowhere"),
        arenas.take_lease("nowhere", "node-a", 1000),
        arenas.renew_lease("nowhere", "node-a", 1, 1000),
        arenas.release_lease("nowhere", "node-a", 1),
        arenas.start_heat("nowhere", a_heat("h1", "ann", "bob"), 1),
        arenas.heats("nowhere"),
        arenas.heats_from("nowhere", 0),
        arenas.append("nowhere", Removed("ann")),
        arenas.log("nowhere"),
    ]
    for call in calls:
        with pytest.raises(ArenaNotFound):
            await call
    assert await arenas.arena("nowhere") is None


async def test_a_participant_s_risk_mode_is_kept_and_each_change_of_it_done_once(
    store: Store,
) -> None:
    await store.arenas.create_arena(an_arena())
    assert await store.arenas.join("a1", "ann", 1, risk=True)
    assert await store.arenas.join("a1", "bob", 1)
    assert not await store.arenas.join("a1", "bob", 2, risk=True)  # joined: nothing changes
    assert [(p.player, p.risk) for p in await store.arenas.participants("a1")] == [
        ("ann", True),
        ("bob", False),
    ]
    assert await store.arenas.change("a1", "ann", "risk_off", 3)
    assert not await store.arenas.change("a1", "ann", "risk_off", 4)  # off already
    assert await store.arenas.change("a1", "bob", "risk_on", 5)
    assert await store.arenas.change("a1", "bob", "pause", 6)
    assert await store.arenas.change("a1", "bob", "risk_off", 7)  # paused: still chosen
    ann, bob = await store.arenas.participants("a1")
    assert (ann.risk, ann.status, bob.risk, bob.status) == (False, "active", False, "paused")
    assert await store.arenas.log("a1") == [Withdrawn("bob")]  # only the pause ends a streak
    await store.arenas.change("a1", "bob", "withdraw", 8)
    with pytest.raises(NotInArena):
        await store.arenas.change("a1", "bob", "risk_on", 9)


async def test_a_pause_resume_and_withdrawal_keep_their_times_and_each_is_done_once(
    store: Store,
) -> None:
    await store.arenas.create_arena(an_arena())
    await store.arenas.join("a1", "ann", 1)
    assert await store.arenas.change("a1", "ann", "pause", 2)
    assert not await store.arenas.change("a1", "ann", "pause", 3)  # paused already
    assert await store.arenas.change("a1", "ann", "resume", 4)
    assert not await store.arenas.change("a1", "ann", "resume", 5)
    assert await store.arenas.change("a1", "ann", "withdraw", 6)
    assert not await store.arenas.change("a1", "ann", "withdraw", 7)
    (ann,) = await store.arenas.participants("a1")
    assert ann == Participant("ann", 1, "withdrawn", paused_ms=2, resumed_ms=4, withdrawn_ms=6)
    # the pause and the withdrawal each ended her streak, once
    assert await store.arenas.log("a1") == [Withdrawn("ann"), Withdrawn("ann")]


async def test_a_player_who_withdrew_or_never_joined_cannot_pause_or_resume(store: Store) -> None:
    await store.arenas.create_arena(an_arena())
    await store.arenas.join("a1", "ann", 1)
    await store.arenas.change("a1", "ann", "withdraw", 2)
    for player, change in (("ann", "pause"), ("ann", "resume"), ("bob", "pause")):
        with pytest.raises(NotInArena):
            await store.arenas.change("a1", player, change, 3)
    with pytest.raises(BadArena):
        await store.arenas.change("a1", "ann", "rest", 3)
    assert await store.arenas.log("a1") == [Withdrawn("ann")]


async def test_an_arena_takes_no_participant_past_its_limit(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    lower(monkeypatch, "MAX_PARTICIPANTS", 3)
    await store.arenas.create_arena(an_arena())
    for player in ("ann", "bob", "cat"):
        assert await store.arenas.join("a1", player, 1)
    with pytest.raises(ArenaFull) as refused:
        await store.arenas.join("a1", "dan", 1)
    assert refused.value.code == "arena_full"
    assert not await store.arenas.join("a1", "ann", 2)  # joined already: not refused
    assert [p.player for p in await store.arenas.participants("a1")] == ["ann", "bob", "cat"]


async def test_a_full_log_refuses_a_result_and_a_pause_and_changes_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    lower(monkeypatch, "MAX_ENTRIES", 1)
    token = await an_arena_with(store, "ann", "bob")
    for heat in ("h1", "h2"):
        await store.arenas.start_heat("a1", a_heat(heat, "ann", "bob"), token)
    assert await store.arenas.append("a1", a_result("h1", "ann", "bob"))
    with pytest.raises(ArenaFull):
        await store.arenas.append("a1", a_result("h2", "ann", "bob"))
    with pytest.raises(ArenaFull):
        await store.arenas.change("a1", "ann", "pause", 5)
    assert await store.arenas.log("a1") == [a_result("h1", "ann", "bob")]
    assert [p.status for p in await store.arenas.participants("a1")] == ["active", "active"]
    assert await store.arenas.change("a1", "ann", "resume", 6) is False  # she was never paused


async def test_an_arena_starts_no_heat_past_its_limit(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    lower(monkeypatch, "MAX_HEATS", 1)
    token = await an_arena_with(store, "ann", "bob")
    assert await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    with pytest.raises(ArenaFull):
        await store.arenas.start_heat("a1", a_heat("h2", "ann", "bob"), token)
    assert await store.arenas.heats("a1") == [a_heat("h1", "ann", "bob")]


# heats and the log


async def test_a_heat_result_appended_twice_counts_once(store: Store) -> None:
    token = await an_arena_with(store, "ann", "bob")
    await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    assert await store.arenas.append("a1", a_result("h1", "ann", "bob"))
    once = standings(await store.arenas.log("a1"))
    assert not await store.arenas.append("a1", a_result("h1", "ann", "bob"))  # a retry
    assert not await store.arenas.append("a1", a_result("h1", "bob", "ann"))  # a second node
    assert await store.arenas.log("a1") == [a_result("h1", "ann", "bob")]
    assert standings(await store.arenas.log("a1")) == once
    assert [(line.player, line.points) for line in once] == [("ann", 2), ("bob", 1)]


async def test_the_log_keeps_its_entries_in_the_order_they_were_appended(store: Store) -> None:
    token = await an_arena_with(store, "ann", "bob", "cat")
    for heat, racers in (("h1", ("ann", "bob")), ("h2", ("cat", "ann")), ("h3", ("bob", "cat"))):
        await store.arenas.start_heat("a1", a_heat(heat, *racers), token)
    entries: list[Entry] = [
        a_result("h2", "cat", "ann", held=True),
        a_result("h1", "ann", "bob"),
        Cleared("h2"),
        a_result("h3", "bob", "cat"),
        Removed("cat"),
    ]
    await store.arenas.change("a1", "bob", "pause", 5)
    for entry in entries:
        assert await store.arenas.append("a1", entry)
    assert await store.arenas.log("a1") == [Withdrawn("bob"), *entries]
    assert await store.arenas.log("a1", 4) == entries[3:]


async def test_a_result_of_a_heat_not_started_with_its_racers_is_refused(store: Store) -> None:
    token = await an_arena_with(store, "ann", "bob", "cat")
    await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    for entry in (a_result("h9", "ann", "bob"), a_result("h1", "ann", "cat"), Withdrawn("ann")):
        with pytest.raises(BadArenaEntry) as refused:
            await store.arenas.append("a1", entry)
        assert refused.value.code == "bad_arena_entry"
    with pytest.raises(NotInArena):
        await store.arenas.append("a1", Removed("dan"))
    assert await store.arenas.log("a1") == []


async def test_an_entry_naming_an_id_out_of_its_range_is_refused(store: Store) -> None:
    await an_arena_with(store, "ann", "bob")
    for entry in (Removed("x" * 65), Cleared(""), a_result("h{1}", "ann", "bob")):
        with pytest.raises(BadArena):
            await store.arenas.append("a1", entry)
    assert await store.arenas.log("a1") == []


async def test_only_a_held_heat_is_cleared_and_only_once(store: Store) -> None:
    token = await an_arena_with(store, "ann", "bob")
    await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    with pytest.raises(BadArenaEntry):
        await store.arenas.append("a1", Cleared("h1"))  # no result yet
    await store.arenas.append("a1", a_result("h1", "ann", "bob", held=True))
    assert await store.arenas.append("a1", Cleared("h1"))
    assert not await store.arenas.append("a1", Cleared("h1"))
    assert [line.points for line in standings(await store.arenas.log("a1"))] == [2, 1]


async def test_a_heat_is_started_once_and_another_under_its_id_is_refused(store: Store) -> None:
    token = await an_arena_with(store, "ann", "bob", "cat")
    assert await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    assert await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)  # a retry
    assert not await store.arenas.start_heat("a1", a_heat("h1", "ann", "cat"), token)
    with pytest.raises(NotInArena):
        await store.arenas.start_heat("a1", a_heat("h2", "ann", "dan"), token)
    assert await store.arenas.heats("a1") == [a_heat("h1", "ann", "bob")]


async def test_a_heat_that_could_not_open_is_taken_back_under_the_lease_unless_it_counted(
    store: Store,
) -> None:
    token = await an_arena_with(store, "ann", "bob", "cat", "dan")
    assert await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    assert await store.arenas.start_heat("a1", a_heat("h2", "cat", "dan"), token)
    assert await store.arenas.take_back_heat("a1", "h1", token)
    assert not await store.arenas.take_back_heat("a1", "h1", token)  # a retry: gone already
    assert await store.arenas.append("a1", a_result("h2", "cat", "dan"))
    assert not await store.arenas.take_back_heat("a1", "h2", token)  # it counted: it stays
    assert await store.arenas.heats("a1") == [a_heat("h2", "cat", "dan")]
    assert await store.arenas.start_heat("a1", a_heat("h3", "ann", "bob"), token)
    await store.arenas.release_lease("a1", "node-a", token)
    assert await store.arenas.take_lease("a1", "node-b", LEASE_MS)  # a newer token
    with pytest.raises(StaleLease):  # the old holder takes nothing back
        await store.arenas.take_back_heat("a1", "h3", token)
    assert [heat.heat for heat in await store.arenas.heats("a1")] == ["h2", "h3"]


async def test_the_heats_are_read_from_an_index_in_the_order_recorded_one_taken_back_as_none(
    store: Store,
) -> None:
    token = await an_arena_with(store, "ann", "bob", "cat", "dan")
    assert await store.arenas.heats_from("a1", 0) == []
    h1, h2, h3 = a_heat("h1", "ann", "bob"), a_heat("h2", "cat", "dan"), a_heat("h0", "ann", "bob")
    for heat in (h1, h2, h1):  # the same heat again is recorded once
        assert await store.arenas.start_heat("a1", heat, token)
    assert await store.arenas.heats_from("a1", 0) == [h1, h2]
    assert await store.arenas.take_back_heat("a1", "h1", token)
    assert await store.arenas.start_heat("a1", h3, token)  # in the order recorded, not by id
    assert await store.arenas.heats_from("a1", 0) == [None, h2, h3]  # h1 taken back
    assert await store.arenas.heats_from("a1", 2) == [h3]  # only what is new
    assert await store.arenas.heats_from("a1", 3) == []
    with pytest.raises(BadArena):
        await store.arenas.heats_from("a1", -1)


# the pairing lease


async def test_one_node_pairs_at_a_time_and_another_takes_over_once_the_lease_lapses(
    store: Store,
) -> None:
    await store.arenas.create_arena(an_arena())
    await store.arenas.join("a1", "ann", 1)
    await store.arenas.join("a1", "bob", 1)
    first = await store.arenas.take_lease("a1", "node-a", LEASE_MS)
    assert first is not None
    assert await store.arenas.take_lease("a1", "node-b", LEASE_MS) is None
    assert await store.arenas.take_lease("a1", "node-a", LEASE_MS) == first  # its own, renewed
    await asyncio.sleep(LEASE_MS / 1000 + 0.2)  # node-a stops (a long pause): its lease lapses
    second = await store.arenas.take_lease("a1", "node-b", 10_000)
    assert second is not None and second > first
    assert await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), second)
    # node-a comes back and pairs as if it still held the lease: refused
    with pytest.raises(StaleLease) as refused:
        await store.arenas.start_heat("a1", a_heat("h2", "bob", "ann"), first)
    assert refused.value.code == "stale_lease"
    assert not await store.arenas.renew_lease("a1", "node-a", first, LEASE_MS)
    assert await store.arenas.heats("a1") == [a_heat("h1", "ann", "bob")]


async def test_only_the_holder_with_its_token_renews_or_releases_the_lease(store: Store) -> None:
    await store.arenas.create_arena(an_arena())
    token = await store.arenas.take_lease("a1", "node-a", 10_000)
    assert token is not None
    assert await store.arenas.renew_lease("a1", "node-a", token, 10_000)
    assert not await store.arenas.renew_lease("a1", "node-b", token, 10_000)
    assert not await store.arenas.renew_lease("a1", "node-a", token + 1, 10_000)
    await store.arenas.release_lease("a1", "node-b", token)  # not the holder: nothing
    assert await store.arenas.take_lease("a1", "node-b", 10_000) is None
    await store.arenas.release_lease("a1", "node-a", token)
    taken = await store.arenas.take_lease("a1", "node-b", 10_000)
    assert taken is not None and taken > token
    with pytest.raises(BadArena):
        await store.arenas.take_lease("a1", "node-b", 0)


# profiles


async def test_a_player_s_arena_lines_are_kept_once_each_newest_first_with_the_best_place(
    store: Store,
) -> None:
    assert await store.arenas.best_place("ann") is None
    assert await store.arenas.record_place("ann", a_place("a1", 3, STARTS_MS), 3600)
    assert await store.arenas.record_place("ann", a_place("a2", 7, STARTS_MS + 1), 3600)
    assert not await store.arenas.record_place("ann", a_place("a1", 3, STARTS_MS), 3600)  # again
    assert await store.arenas.places("ann") == [a_place("a2", 7, STARTS_MS + 1), a_place("a1", 3)]
    assert await store.arenas.best_place("ann") == 3


async def test_an_arena_s_line_recomputed_replaces_the_one_kept_and_the_best_place_follows(
    store: Store,
) -> None:
    """A moderator's clearing after an arena's end recomputes its final places: the new
    line replaces the one kept, and the best place is the best of the lines as they are
    now, worse too if that line was the best."""
    await store.arenas.record_place("ann", a_place("a1", 1), 3600)
    await store.arenas.record_place("ann", a_place("a2", 4, STARTS_MS + 1), 3600)
    assert await store.arenas.record_place("ann", a_place("a1", 2), 3600)
    assert await store.arenas.places("ann") == [a_place("a2", 4, STARTS_MS + 1), a_place("a1", 2)]
    assert await store.arenas.best_place("ann") == 2
    assert await store.arenas.record_place("ann", a_place("a1", 5), 3600)
    assert await store.arenas.best_place("ann") == 4


async def test_a_profile_keeps_the_latest_arena_lines_and_the_best_place_of_all(
    store: Store,
) -> None:
    await store.arenas.record_place("ann", a_place("first", 1, STARTS_MS - 1), 3600)
    for number in range(PLACES_KEPT):
        await store.arenas.record_place("ann", a_place(f"a{number}", 9, STARTS_MS + number), 3600)
    kept = await store.arenas.places("ann")
    assert len(kept) == PLACES_KEPT and "first" not in {line.arena for line in kept}
    assert await store.arenas.best_place("ann") == 1


def test_every_test_the_docs_name_for_a_sentence_is_here() -> None:
    """docs/arenas.md, "Where arenas are kept", names a test (or its start, "...") for
    each sentence: each names one of the arenas store's tests (here and in
    test_arena_store_holds_up.py), and each test is named."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "arenas.md").read_text()
    section = text.split("## Where arenas are kept", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`(test_\w+)(\.\.\.)?`", section)
    here = Path(__file__).resolve().parent
    modules = [here / "test_arena_store.py", here / "test_arena_store_holds_up.py"]
    tests = [
        name
        for path in modules
        for name in re.findall(r"^(?:async )?def (test_\w+)", path.read_text(), re.M)
    ]
    assert named
    for name, cut in named:
        assert [t for t in tests if t == name or (cut and t.startswith(name))], name
    for test in tests:
        mentioned = any(test == name or (cut and test.startswith(name)) for name, cut in named)
        assert mentioned or test == "test_every_test_the_docs_name_for_a_sentence_is_here", test
