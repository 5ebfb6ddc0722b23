"""What a node's feed keeps of an arena (``server/desks/arena_feed.py``, ``Fed``): read
tail by tail, the log's standings are those of the whole log, and each racer's heat shown
is the one they race now (the latest recorded, until its result is in the log), whatever
the order the heats and results are read in. Both stores."""

from __future__ import annotations

from arena_store import a_heat, a_result, an_arena_with

from protocol.arena import standings
from server.desks.arena_feed import Fed
from server.store import Store


async def test_the_feed_reading_tail_by_tail_knows_the_standings_and_who_races_which_heat(
    store: Store,
) -> None:
    token = await an_arena_with(store, "ann", "bob", "cat", "dan")
    fed = Fed()
    assert not await fed.read(store, "a1")  # nothing logged yet
    for heat in (a_heat("h1", "ann", "bob"), a_heat("h2", "cat", "dan")):
        await store.arenas.start_heat("a1", heat, token)
    await store.arenas.append("a1", a_result("h1", "ann", "bob"))
    assert await fed.read(store, "a1")
    assert fed.racing == {"cat": "h2", "dan": "h2"}  # h1 is over
    await store.arenas.start_heat("a1", a_heat("h3", "ann", "cat", wave=2), token)
    await store.arenas.take_back_heat("a1", "h3", token)  # never read: never shown
    await store.arenas.start_heat("a1", a_heat("h4", "ann", "bob", wave=2), token)
    await store.arenas.append("a1", a_result("h2", "cat", "dan"))
    assert await fed.read(store, "a1")
    assert fed.racing == {"ann": "h4", "bob": "h4"}
    assert not await fed.read(store, "a1")  # nothing new
    await store.arenas.start_heat("a1", a_heat("h5", "cat", "dan", wave=3), token)
    await store.arenas.append("a1", a_result("h5", "dan", "cat"))  # over before it was read
    await store.arenas.append("a1", a_result("h4", "bob", "ann"))
    assert await fed.read(store, "a1")
    assert fed.racing == {}
    log = await store.arenas.log("a1")
    assert fed.scorer.log == log and fed.scorer.table() == standings(log)
