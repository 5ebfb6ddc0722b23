"""A racer's action log (protocol/actionlog.py) reads back exactly the entries appended to
it, as a list of them would; a race's log holds what ``act`` accepted, and replaying it
gives the racer's state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.actionlog import ActionLog
from protocol.games import rules_for
from protocol.notation import UNDO
from protocol.race import LogEntry, Now, Race, RaceSettings
from protocol.race_views import state_after

numbers = st.one_of(st.integers(0, 10**6), st.integers(-(2**70), 2**70))
entries = st.lists(
    st.builds(LogEntry, st.just("ann"), numbers, st.sampled_from(["deal", "t0 1 f"]), numbers),
    max_size=40,
)


@settings(max_examples=80, deadline=None)
@given(entries, st.integers(-45, 45), st.integers(-45, 45), st.sampled_from([None, 1, 2, -1, -3]))
def test_a_log_reads_back_its_entries_as_a_list_would(
    appended: list[LogEntry], start: int, stop: int, step: int | None
) -> None:
    log = ActionLog(LogEntry)
    for entry in appended:
        log.append(entry)
    assert len(log) == len(appended)
    assert list(log) == appended and log == appended
    assert log[start:stop:step] == appended[start:stop:step]
    assert log.actions() == [entry.action for entry in appended]
    for index in (start, stop):
        if -len(appended) <= index < len(appended):
            assert log[index] == appended[index]
        else:
            with pytest.raises(IndexError):
                log[index]


def test_a_log_is_one_players() -> None:
    log = ActionLog(LogEntry)
    log.append(LogEntry("ann", 1, "deal", 10))
    with pytest.raises(ValueError):
        log.append(LogEntry("bob", 1, "deal", 10))
    assert list(log) == [LogEntry("ann", 1, "deal", 10)]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5000), st.lists(st.integers(0, 1 << 16), min_size=20, max_size=80))
def test_the_race_log_holds_what_act_accepted_and_replays_to_the_racers_state(
    deal: int, picks: list[int]
) -> None:
    rules = rules_for("mount_sunflower")
    race = Race("r1", RaceSettings("mount_sunflower", rules.options, deal), rules, host="ann")
    race.join("ann", "Ann")
    race.schedule_start(None, Now(0, 0))
    race.begin()
    racer, accepted = race.racers["ann"], []
    states = [racer.state]  # the racer's state after each number of accepted actions
    for seq, pick in enumerate(picks, 1):
        assert racer.state is not None
        if racer.outcome is not None:
            break
        legal = [str(a) for a in rules.legal_actions(racer.state)] + ["t9 1 t0", str(UNDO)]
        result = race.act("ann", seq, legal[pick % len(legal)], Now(3000 + 7 * seq, 0))
        if result.ok:
            accepted.append(result.entry)
            states.append(racer.state)
    assert list(racer.log) == accepted and len(racer.log) == len(accepted)
    for count, state in enumerate(states):
        assert state_after(race, "ann", count) == state
