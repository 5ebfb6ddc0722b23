"""What a node's feed keeps of an arena (``server/desks/arena_feed.py``, ``Fed``): read
tail by tail, the log's standings are those of the whole log, and each racer's heat shown
is the one they race now (the latest recorded, until its result is in the log), whatever
the order the heats and results are read in; and what it tells the watchers here is one
event, encoded once for them all. Both stores."""

from __future__ import annotations

from arena_store import STARTS_MS, a_heat, a_result, an_arena_with

from protocol.arena import standings
from protocol.player_events import ArenaStandingsChanged
from protocol.race import Now
from server.desks.arena_feed import ArenaFeed, Fed
from server.handover.effects import Push
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


async def test_the_watchers_here_are_told_one_and_the_same_event_so_it_is_encoded_once(
    store: Store,
) -> None:
    token = await an_arena_with(store, "ann", "bob")
    feed = ArenaFeed(store, {}, here=lambda player: player in ("ann", "w1", "w2"))
    for watcher in ("w1", "w2"):
        feed.watch("a1", watcher)
    await store.arenas.start_heat("a1", a_heat("h1", "ann", "bob"), token)
    await store.arenas.append("a1", a_result("h1", "ann", "bob"))
    pushes = [p for p in await feed.tick(Now(0, STARTS_MS + 60_000)) if isinstance(p, Push)]
    told = {push.player: push.event for push in pushes}
    assert sorted(told) == ["ann", "w1", "w2"]  # bob's session is not here
    assert told["w1"] is told["w2"]  # the lines (``with_number`` adds each one's number)
    assert [push.player for push in pushes][-2:] == ["w1", "w2"]  # one after the other
    assert isinstance(told["ann"], ArenaStandingsChanged) and told["ann"].me is not None
