"""A race's stored form, pure: a race rebuilt from its record and action log is the same
race (fuzzed: it shows everyone the same), and a replica absorbs another node's record and
says what changed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from races import WIN, make_race, started

from protocol.race import Ending, Now, Phase, Race, view_json
from protocol.race_record import (
    Countdown,
    Done,
    Joined,
    Retired,
    Unretired,
    absorb,
    record_of,
    restore,
)
from protocol.race_views import race_result, racer_view, spectator_view

# ---------------------------------------------------------------------- rebuilt by replay


def rebuilt(race: Race, now: Now) -> Race:
    """``race`` rebuilt from what storage keeps: its record and its action log."""
    log = sorted(
        (entry for racer in race.racers.values() for entry in racer.log), key=lambda e: e.t_ms
    )
    return restore(record_of(race), race.rules, log, now)


def test_a_race_rebuilt_from_its_record_and_log_is_the_same_race() -> None:
    wins = [line for line in WIN.read_text().split("\n") if line and not line.startswith("#")]
    race = make_race(max_players=3, countdown_ms=0)
    race.join("bob", "Bob")
    race.join("cy", "Cy")
    started(race, at=10_000)
    for i, action in enumerate(wins[:30]):
        race.act("bob", i + 1, action, Now(10_050 + i, 50_050 + i))
    race.retire("cy", Ending.RESIGNED, Now(10_500, 50_500))
    for i, action in enumerate(wins):
        race.act("ann", i + 1, action, Now(11_000 + 7 * i, 51_000 + 7 * i))
    copy = rebuilt(race, Now(20_000, 60_000))
    assert copy.standings() == race.standings()
    assert racer_view(copy, "bob") == racer_view(race, "bob")
    assert (copy.phase, copy.host, copy.start_wall) == (race.phase, race.host, race.start_wall)
    race.retire("bob", Ending.DROPPED, Now(12_000, 52_000))
    copy = rebuilt(race, Now(20_000, 60_000))
    assert copy.phase is Phase.DONE and race_result(copy) == race_result(race)


def test_a_race_counting_down_is_rebuilt_counting_down_to_the_same_start() -> None:
    race = make_race(max_players=2, countdown_ms=3000)
    race.join("bob", "Bob")
    race.schedule_start(None, Now(1_000, 100_000))
    copy = rebuilt(race, Now(555_000, 101_000))  # another process: another monotonic clock
    assert (copy.phase, copy.start_wall, copy.start_mono) == (Phase.COUNTDOWN, 103_000, 557_000)
    copy.begin()
    rules = race.rules
    assert racer_view(copy, "ann")["you"]["view"] == view_json(rules.view(rules.start(18)))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_any_race_rebuilt_by_replay_shows_everyone_the_same(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(["sanibel", "shady_lanes", "mount_sunflower"]))
    race = make_race(game, deal=data.draw(st.integers(1, 10**6)), max_players=2, countdown_ms=0)
    race.join("bob", "Bob")
    started(race, at=0)
    seqs = {"ann": 0, "bob": 0}
    for step in range(data.draw(st.integers(0, 60))):
        player = data.draw(st.sampled_from(["ann", "bob"]))
        state = race.racers[player].state
        if race.racers[player].outcome is not None or state is None:
            continue
        legal = [str(a) for a in race.rules.legal_actions(state)] + ["undo", "t0 1 t1"]
        seqs[player] += 1
        race.act(player, seqs[player], data.draw(st.sampled_from(legal)), Now(step, step))
    copy = rebuilt(race, Now(10_000, 10_000))
    for player in ("ann", "bob"):
        view, original = racer_view(copy, player), racer_view(race, player)
        # a refused action is not logged: the rebuilt race remembers the last accepted one
        log = race.racers[player].log
        assert view["you"].pop("seq") == (log[-1].seq if log else 0)
        original["you"].pop("seq")
        assert view == original
    assert spectator_view(copy) == spectator_view(race)


# ---------------------------------------------------------------------- absorbing a record


def test_a_race_absorbs_what_another_node_stored_and_says_what_changed() -> None:
    here = make_race(max_players=3, countdown_ms=1000)
    there = restore(record_of(here), here.rules, [], Now(0, 0))
    there.join("bob", "Bob")
    there.schedule_start(None, Now(0, 50_000))
    changes = absorb(here, record_of(there), Now(7_000, 50_000))
    assert changes == [Joined("bob"), Countdown()]
    assert (here.phase, here.start_wall, here.start_mono) == (Phase.COUNTDOWN, 51_000, 8_000)
    assert list(here.racers) == ["ann", "bob"]


def test_a_change_that_was_not_stored_is_taken_back_by_absorbing_the_record_before() -> None:
    race = started(make_race(max_players=2, countdown_ms=0))
    before = record_of(race)
    race.retire("ann", Ending.RESIGNED, Now(2000, 2000))
    assert race.phase is Phase.DONE
    assert absorb(race, before, Now(2001, 2001)) == [Unretired("ann")]
    assert race.phase is Phase.RUNNING and race.racers["ann"].outcome is None


def test_absorbing_the_last_retirement_ends_the_race() -> None:
    here = started(make_race(max_players=2, countdown_ms=0))
    there = restore(record_of(here), here.rules, [], Now(5000, 5000))
    there.retire("ann", Ending.DROPPED, Now(5000, 5000))
    assert absorb(here, record_of(there), Now(5000, 5000)) == [Retired("ann"), Done()]
    assert here.phase is Phase.DONE and here.racers["ann"].outcome is Ending.DROPPED


# ---------------------------------------------------------------------- a lost history


def test_a_racer_s_lost_actions_are_kept_by_the_record_and_every_node_that_absorbs_it() -> None:
    wins = [line for line in WIN.read_text().split("\n") if line and not line.startswith("#")]
    race = started(make_race(max_players=2, countdown_ms=0))
    for seq, action in enumerate(wins[:3], 1):
        race.act("ann", seq, action, Now(2_000 + seq, 2_000 + seq))
    elsewhere = rebuilt(race, Now(3_000, 3_000))
    race.racers["ann"].lost_to = 7  # actions 4..7 were acknowledged, then lost
    assert race.history_lost and not elsewhere.history_lost
    assert rebuilt(race, Now(3_000, 3_000)).racers["ann"].lost_to == 7
    absorb(elsewhere, record_of(race), Now(3_000, 3_000))
    assert elsewhere.racers["ann"].lost_to == 7 and elsewhere.history_lost
    assert race_result(elsewhere)["history_lost"] is True
