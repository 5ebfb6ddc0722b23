"""A replica kept in step with its stored logs, pure: another node's logged actions are
applied at their own times (from a "log" message's entries only when they continue the
replica's log), a countdown still running here begins first, a finish tells the standings
to the racers here; after a failed write, what was not stored is taken back, and the
race is then taken as the store has it or written again."""

from __future__ import annotations

import pytest
from harness import winning_actions

from protocol.games import rules_for
from protocol.player_events import Snapshot
from protocol.race import LogEntry, Now, Phase, Race, RaceSettings
from protocol.race_record import record_of, restore
from protocol.race_views import racer_view
from server.config import Settings
from server.handover.effects import Post, PostAct, Push, Write
from server.handover.jobs import AppendActions
from server.races.log_sync import (
    apply_logged,
    carried_entries,
    let_go,
    reconciled,
    rewrite,
    undo_unstored,
)
from server.state.rooms import Feeding, Room

GAME, DEAL = "sanibel", 1
START = Now(1_000, 50_000)
SETTINGS = Settings()


def race_of(countdown_ms: int = 0) -> Race:
    """A race of ann and bob on DEAL, its start signal set at START."""
    rules = rules_for(GAME)
    settings = RaceSettings(
        game=GAME, options=rules.options, deal=DEAL, max_players=2, countdown_ms=countdown_ms
    )
    race = Race("r1", settings, rules, "ann")
    race.join("ann", "Ann")
    race.join("bob", "Bob")
    race.schedule_start(None, START)
    return race


def started() -> Race:
    race = race_of()
    race.begin()
    return race


def played(race: Race, player: str, count: int) -> list[LogEntry]:
    """``player`` plays the first ``count`` actions of a win on ``race``, 100 ms apart."""
    assert race.start_mono is not None and race.start_wall is not None
    for seq, action in enumerate(winning_actions(GAME, DEAL)[:count], start=1):
        t_ms = 100 * seq
        at = Now(race.start_mono + t_ms, race.start_wall + t_ms)
        assert race.act(player, seq, action, at).ok
    return list(race.racers[player].log)


def wire(entries: list[LogEntry]) -> tuple[tuple[int, int, str], ...]:
    """The entries as a ``Logged`` news carries them (malformed ones never get this far:
    tests/server/test_node_news.py)."""
    return tuple((entry.seq, entry.t_ms, entry.action) for entry in entries)


def test_carried_entries_are_taken_only_when_they_continue_the_replica_s_log() -> None:
    logged = played(started(), "ann", 3)  # on another node
    replica = started()
    assert carried_entries(replica, "ann", wire(logged[:2])) == logged[:2]
    played(replica, "ann", 1)
    assert carried_entries(replica, "ann", wire(logged)) == logged[1:]  # seen ones skipped
    assert carried_entries(replica, "ann", wire(logged[2:])) is None  # a gap: read the log
    assert carried_entries(replica, "ann", ()) == []


def test_no_carried_entries_are_taken_for_a_stranger_or_before_the_start_signal() -> None:
    logged = wire(played(started(), "ann", 1))
    assert carried_entries(started(), "cy", logged) is None
    unscheduled = Race("r1", race_of().settings, rules_for(GAME), "ann")
    unscheduled.join("ann", "Ann")
    assert carried_entries(unscheduled, "ann", logged) is None


def test_logged_actions_are_applied_at_their_own_times_and_counted_as_stored() -> None:
    logged = played(started(), "ann", 3)
    room = Room(started(), START.mono_ms, Feeding())
    effects = apply_logged(room, "ann", logged, START, SETTINGS, lambda player: True)
    assert [type(effect) for effect in effects] == [PostAct, PostAct, PostAct]
    assert list(room.race.racers["ann"].log) == logged  # the same times as logged
    assert room.durable == {"ann": 3}
    assert room.standings_version == 3
    assert apply_logged(room, "ann", logged, START, SETTINGS, lambda player: True) == []


def test_a_countdown_still_running_here_begins_before_the_first_logged_action() -> None:
    source = race_of(countdown_ms=3_000)
    source.begin()
    logged = played(source, "ann", 1)
    room = Room(race_of(countdown_ms=3_000), START.mono_ms, Feeding())
    effects = apply_logged(room, "ann", logged, START, SETTINGS, lambda player: True)
    assert [type(effect) for effect in effects] == [Push, Push, Post, PostAct]
    assert [(e.player, e.event.kind) for e in effects if isinstance(e, Push)] == [
        ("ann", "started"),
        ("bob", "started"),
    ]
    assert room.race.phase is Phase.RUNNING


@pytest.mark.parametrize(("bob_here", "told"), [(True, ["bob"]), (False, [])])
def test_a_logged_finish_tells_the_standings_to_the_racers_here_only(
    bob_here: bool, told: list[str]
) -> None:
    logged = played(started(), "ann", len(winning_actions(GAME, DEAL)))
    room = Room(started(), START.mono_ms, Feeding())
    here = {"ann": True, "bob": bob_here}.__getitem__
    effects = apply_logged(room, "ann", logged, START, SETTINGS, here)
    assert room.race.racers["ann"].outcome is not None
    pushed = [(e.player, e.event.kind) for e in effects if isinstance(e, Push)]
    assert pushed == [(player, "standings") for player in told]


def test_a_failed_write_takes_back_every_action_not_known_stored() -> None:
    room = Room(started(), START.mono_ms, Feeding())
    ann, bob = played(room.race, "ann", 3), played(room.race, "bob", 2)
    room.durable = {"ann": 1, "bob": 2}
    undo_unstored(room, START)
    assert list(room.race.racers["ann"].log) == ann[:1]
    assert list(room.race.racers["bob"].log) == bob
    assert room.suspect  # read back from the store before it takes another action


def test_a_racer_another_node_holds_now_loses_only_their_unstored_actions() -> None:
    room = Room(started(), START.mono_ms, Feeding())
    ann, bob = played(room.race, "ann", 3), played(room.race, "bob", 2)
    room.durable = {"ann": 2}
    let_go(room, "ann")
    assert list(room.race.racers["ann"].log) == ann[:2]
    assert list(room.race.racers["bob"].log) == bob


def test_the_race_read_back_replaces_the_replica_and_every_racer_gets_a_snapshot() -> None:
    room = Room(started(), START.mono_ms, Feeding())
    played(room.race, "ann", 3)
    room.suspect = True
    stored = played(started(), "ann", 2)
    rebuilt = Room(restore(record_of(room.race), rules_for(GAME), stored, START), 0, Feeding())
    rebuilt.durable, rebuilt.version = {"ann": 2}, 5
    effects = reconciled(room, rebuilt)
    assert room.race is rebuilt.race and room.durable == {"ann": 2} and room.version == 5
    assert not room.suspect
    assert effects == [
        Push(player, Snapshot([racer_view(rebuilt.race, player)])) for player in ("ann", "bob")
    ]


def test_a_race_the_store_lost_has_the_stored_part_of_each_log_written_again() -> None:
    room = Room(started(), START.mono_ms, Feeding())
    ann = played(room.race, "ann", 3)
    bob = played(room.race, "bob", 1)
    room.durable, room.suspect = {"ann": 2, "bob": 1}, True
    fences = {"ann": 3}  # Ann's session here has fence 3; Bob is held elsewhere
    assert (
        rewrite(room, lambda player: fences.get(player, 1))
        == [
            Write(AppendActions("r1", tuple(ann[:2]), 3)),  # with her session's fence, not 1
            Write(AppendActions("r1", tuple(bob[:1]), 1)),
        ]
    )
    assert not room.suspect


def test_a_read_back_older_than_the_feed_never_feeds_an_action_twice() -> None:
    """After a failed write the race is read back from the store; Bob's third action
    (another node's, stored) came and was fed while the logs were being read, so the race
    read back lacks it. Applied again by the next pull, it was fed again: an ``act`` whose
    ``actions`` repeated the last one."""
    room = Room(started(), START.mono_ms, Feeding())
    bob = played(started(), "bob", 3)  # stored by the node Bob plays on

    def carry_out(effects: list[object]) -> None:  # as the executor posts them
        for effect in effects:
            if isinstance(effect, PostAct):
                room.post_act(effect.racer, effect.reply, START.mono_ms)

    here = lambda player: True  # noqa: E731
    read_back = restore(record_of(room.race), rules_for(GAME), bob[:2], START)
    carry_out(apply_logged(room, "bob", bob, START, SETTINGS, here))
    stale = Room(read_back, 0, Feeding())
    stale.durable = {"bob": 2}
    reconciled(room, stale)
    carry_out(apply_logged(room, "bob", bob, START, SETTINGS, here))  # the next pull
    assert room.feed_seq == 3
    assert room.released_entries == {"ann": 0, "bob": 3}
    assert room.spectator_snapshot()["players"][1]["actions"] == 3
