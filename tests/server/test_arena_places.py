"""An ended arena's places on profiles (docs/arenas.md, "Playing an arena" 8): a
moderator's clearing of a held heat after the arena's end rewrites its players' lines and
their best place, as the standings recomputed from the log give them. A real server on
both stores."""

from __future__ import annotations

from arena_store import a_heat, a_result, an_arena_with
from harness import player, running_server

from server.desks.arena_places import record_final_places
from server.handover.jobs import KeepReview
from server.store import Store

TOKEN = "moderators-token-of-the-arena-places-tests"


async def an_ended_arena_with_a_held_heat(store: Store) -> None:
    """Arena a1 over: its one heat h1, Bob first and Ann second, held by fair play (it
    scored nothing), the places on profiles, the heat's review waiting for a moderator."""
    token = await an_arena_with(store, "ann", "bob")
    await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    await store.arenas.append("a1", a_result("h1", "bob", "ann", held=True))
    for status in ("running", "ended"):
        assert await store.arenas.set_status("a1", status)
    record = await store.arenas.arena("a1")
    assert record is not None
    await record_final_places(store.arenas, record)
    review = {
        "race": "h1",
        "status": "flagged",
        "held": True,
        "arena": "a1",
        "kind": "arena",
        "game": record.game,
        "day": None,
        "at_ms": 0,
    }
    assert await store.write([KeepReview("h1", review, 3600)]) == [None]


async def test_a_clearing_after_an_arena_s_end_rewrites_its_players_lines_and_best_places(
    store: Store,
) -> None:
    async with running_server(store, admin_token=TOKEN) as server:
        await an_ended_arena_with_a_held_heat(store)
        assert [line.points for line in await store.arenas.places("bob")] == [0]
        assert await store.arenas.best_place("bob") == 2  # 0 points each: by id, Ann first
        mo = await player(server, "Mo")
        await mo.request("admin", token=TOKEN, command="clear", race="h1", reason="a person")
        bob, ann = await store.arenas.places("bob"), await store.arenas.places("ann")
        assert [(line.place, line.points) for line in bob] == [(1, 2)]
        assert [(line.place, line.points) for line in ann] == [(2, 1)]
        assert await store.arenas.best_place("bob") == 1
        assert await store.arenas.best_place("ann") == 2
        await mo.close()
