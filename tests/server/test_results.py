"""What a race's end leaves, pure: the effects of a finished race in the order the executor
needs them (the result written before anyone is told), each racer's history line, which
races are rated, a closed race, and the news of new ratings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness import winning_actions

from protocol.fairplay import FIELD_RUNS
from protocol.games import rules_for
from protocol.player_events import RaceResult
from protocol.race import Badge, Ending, Now, Phase, Race, RaceSettings
from protocol.race_record import record_of
from protocol.race_views import (
    final_boards,
    race_result,
    race_runs,
    racer_view,
    revealed_views,
)
from protocol.ratings import DEFAULT, Rating
from server.config import Settings
from server.handover.effects import Forget, Post, Push, PushAnywhere, Rate, Write
from server.handover.inputs import EndWritten
from server.handover.jobs import EndRace, KeepReview, RecordDaily, RecordHistory
from server.races.results import closed, finished, histories, rated_runs, ratings_told
from server.state.rooms import Feeding, Room

GAME = "sanibel"
START = Now(1_000, 50_000)
END = Now(9_000, 58_000)
SETTINGS = Settings(keep_race_logs_days=2, keep_identities_days=3)


def race_of(*badges: Badge | None, **changes: Any) -> Race:
    """A race of GAME between ann, bob, ... (one per badge; None: a guest), not started."""
    rules = rules_for(GAME, changes.pop("options", None))
    changes.setdefault("max_players", len(badges))
    settings = RaceSettings(game=GAME, options=rules.options, deal=7, countdown_ms=0, **changes)
    players = ["ann", "bob", "cy"][: len(badges)]
    race = Race("r1", settings, rules, players[0])
    for player, badge in zip(players, badges, strict=True):
        race.join(player, player.title(), badge)
    return race


def ended(race: Race) -> Room:
    """``race`` started, then: the last racer plays one move, and everyone resigns (so
    the first ranks first: as far, with fewer actions)."""
    race.schedule_start(None, START)
    race.begin()
    last = list(race.racers)[-1]
    legal = racer_view(race, last)["you"]["legal"]
    assert race.act(last, 1, legal[0], Now(START.mono_ms + 500, START.wall_ms + 500)).ok
    for player in race.racers:
        race.retire(player, Ending.RESIGNED, Now(START.mono_ms + 900, START.wall_ms + 900))
    assert race.phase is Phase.DONE
    room = Room(race, START.mono_ms, Feeding())
    room.version = 4
    return room


def played_to_the_clock(race: Race) -> Room:
    """``race`` started; each racer plays three legal actions (the second one a fourth),
    then its time limit ends it: a real race (protocol/rated.py)."""
    race.schedule_start(None, START)
    race.begin()
    for count, player in enumerate(race.racers, start=3):
        for seq in range(1, count + 1):
            legal = racer_view(race, player)["you"]["legal"]
            at = Now(START.mono_ms + seq * 100, START.wall_ms + seq * 100)
            assert race.act(player, seq, legal[0], at).ok
    race.time_out(Now(START.mono_ms + 9000, START.wall_ms + 9000))
    assert race.phase is Phase.DONE
    room = Room(race, START.mono_ms, Feeding())
    room.version = 4
    return room


def test_a_finished_race_is_written_first_then_told_then_rated_and_kept_in_histories() -> None:
    room = played_to_the_clock(race_of(Badge(1500, True), Badge(1600, False)))
    effects = finished(room, END, SETTINGS)
    result = race_result(room.race)
    assert [type(effect) for effect in effects] == [Write, Push, Push, Post, Rate, Write, Write]
    written = effects[0]
    assert isinstance(written, Write)
    assert written.job == EndRace("r1", record_of(room.race), result, 2 * 86_400, 4)
    assert not room.stored
    assert written.then == EndWritten(room)  # handed back once written: it may be let go
    told = [(e.player, e.event) for e in effects if isinstance(e, Push)]
    assert told == [("ann", RaceResult(result)), ("bob", RaceResult(result))]
    # spectators of this race that may count saw progress only: now every racer's last
    # cards (boards), and every card, face-down ones too (revealed): the deal is shown now
    boards, revealed = final_boards(room.race), revealed_views(room.race)
    assert effects[3] == Post(room, "result", {**result, "boards": boards, "revealed": revealed})
    assert effects[4] == Rate(room)
    kept = [effect.job for effect in effects[5:] if isinstance(effect, Write)]
    assert kept == histories(room.race, result, END, 3 * 86_400)
    assert room.done_mono == END.mono_ms
    assert finished(room, END, SETTINGS) == []  # the end is decided once


def test_finishing_cancels_a_start_signal_still_armed() -> None:
    class Handle:
        cancelled = False

        def cancel(self) -> None:
            self.cancelled = True

    room = ended(race_of(None))
    handle = Handle()
    room.start_handle = handle  # type: ignore[assignment]
    finished(room, END, SETTINGS)
    assert handle.cancelled


def test_a_ranked_daily_run_is_recorded_for_its_day_and_counts_no_race() -> None:
    room = ended(race_of(None, mode="daily", day="2024-05-01", max_players=1))
    effects = finished(room, END, SETTINGS)
    assert [type(effect) for effect in effects] == [Write, Push, Post, Write, Write, Write]
    review, daily, history = (effect.job for effect in effects[3:] if isinstance(effect, Write))
    assert isinstance(review, KeepReview) and review.review["status"] == "clear"
    assert daily == RecordDaily(GAME, "2024-05-01", race_runs(room.race)[0])
    assert isinstance(history, RecordHistory)
    assert (history.day, history.counted, history.won) == ("2024-05-01", False, False)


def test_an_unranked_daily_attempt_records_no_run_and_no_streak_day() -> None:
    room = ended(race_of(None, mode="daily", day="2024-05-01", ranked=False, max_players=1))
    jobs = [effect.job for effect in finished(room, END, SETTINGS) if isinstance(effect, Write)]
    assert not any(isinstance(job, RecordDaily) for job in jobs)
    history = jobs[-1]
    assert isinstance(history, RecordHistory) and history.day is None


def test_each_racer_s_history_line_is_their_place_outcome_and_figures() -> None:
    race = ended(race_of(Badge(1500, True), None, None, max_players=3)).race
    result = race_result(race)
    jobs = histories(race, result, END, 77)
    assert [job.player for job in jobs] == ["ann", "bob", "cy"]  # the ranking's order
    # everyone resigned: the first is placed first, but a racer who gave up wins nothing
    assert [(job.counted, job.won) for job in jobs] == [(True, False)] * 3
    assert all((job.race, job.game, job.day, job.keep_s) == ("r1", GAME, None, 77) for job in jobs)
    last = jobs[2].entry
    assert last == {
        "race": "r1",
        "game": GAME,
        "mode": "race",
        "ranked": True,  # the server dealt it (quick pairing): a blind deal for fair play
        "day": None,
        "at_ms": END.wall_ms,
        "name": "Cy",
        "rank": 3,
        "of": 3,
        "outcome": "resigned",
        "time_ms": result["ranking"][2]["time_ms"],
        "actions": 1,
        "progress": 0,
    }


def test_the_first_of_a_race_the_clock_ended_won_it() -> None:
    race = played_to_the_clock(race_of(Badge(1500, True), Badge(1500, True))).race
    jobs = histories(race, race_result(race), END, 77)
    assert [(job.counted, job.won) for job in jobs] == [(True, True), (True, False)]


def test_a_race_for_one_counts_in_nobody_s_races_played() -> None:
    race = ended(race_of(Badge(1500, True))).race
    (job,) = histories(race, race_result(race), END, 77)
    assert (job.counted, job.won) == (False, False)


def test_a_rated_race_rates_its_accounts_runs_only() -> None:
    race = ended(race_of(Badge(1500, True), None, Badge(1500, True), max_players=3)).race
    assert [run.player for run in rated_runs(race)] == ["ann", "cy"]


def test_an_open_race_everyone_left_is_let_go_and_ended_with_no_ranking() -> None:
    race = race_of(None, None)
    for player in list(race.racers):
        race.leave(player)
    room = Room(race, 0, Feeding())
    room.version = 2
    end = EndRace("r1", record_of(race), {"race": "r1", "ranking": [], "deal": None}, 2 * 86_400, 2)
    assert closed(room, SETTINGS) == [Forget(room, "closed"), Write(end)]


def test_every_rated_racer_is_told_every_new_rating_and_its_rounded_change() -> None:
    race = race_of(Badge(1500, True), Badge(1500, True))
    ann_after = replace(DEFAULT, rating=1516.6, rd=290.2, games=1)
    bob_after = replace(DEFAULT, rating=1483.4, rd=290.2, games=1)
    changed: dict[str, tuple[Rating, Rating]] = {
        "ann": (DEFAULT, ann_after),
        "bob": (DEFAULT, bob_after),
    }
    effects = ratings_told(race, changed)
    assert [effect.player for effect in effects] == ["ann", "bob"]
    assert all(
        isinstance(effect, PushAnywhere) and effect.event.kind == "rated" for effect in effects
    )
    told = effects[0]
    assert isinstance(told, PushAnywhere) and effects[1] == replace(told, player="bob")
    assert told.event.data() == {
        "race": "r1",
        "game": GAME,
        "ratings": {
            "ann": {"rating": 1517, "rd": 290, "provisional": True, "games": 1, "change": 17},
            "bob": {"rating": 1483, "rd": 290, "provisional": True, "games": 1, "change": -17},
        },
    }


def won_daily(field_ms: tuple[int, ...]) -> Room:
    """A ranked daily run of Mount Sunflower Easy 1 that wins at a person's uneven pace,
    its room holding the day's ``field_ms`` as read at its start (no solver line known)."""
    rules = rules_for("mount_sunflower_easy")
    settings = RaceSettings(
        game="mount_sunflower_easy",
        options=rules.options,
        deal=1,
        countdown_ms=0,
        max_players=1,
        mode="daily",
        day="2024-05-01",
    )
    race = Race("r1", settings, rules, "ann")
    race.join("ann", "Ann", None)
    race.schedule_start(None, START)
    race.begin()
    at = START.mono_ms
    for seq, action in enumerate(winning_actions("mount_sunflower_easy", 1), start=1):
        at += (700, 2_100, 450, 5_300, 900)[seq % 5]
        assert race.act("ann", seq, action, Now(at, at + 49_000)).ok
    assert race.phase is Phase.DONE
    room = Room(race, START.mono_ms, Feeding())
    room.field_ms = field_ms
    return room


def test_a_won_daily_run_judged_clear_before_the_day_s_field_is_big_enough_waits_for_it() -> None:
    room = won_daily(tuple(range(600_000, 600_000 + FIELD_RUNS - 1)))
    jobs = [effect.job for effect in finished(room, END, SETTINGS) if isinstance(effect, Write)]
    review = next(job for job in jobs if isinstance(job, KeepReview))
    assert review.review["status"] == "clear"
    daily = next(job for job in jobs if isinstance(job, RecordDaily))
    assert daily.run.finished and daily.awaits_field


def test_a_won_daily_run_judged_against_a_big_enough_field_does_not_wait_for_it() -> None:
    room = won_daily(tuple(range(1_000, 1_000 + FIELD_RUNS)))  # all faster
    jobs = [effect.job for effect in finished(room, END, SETTINGS) if isinstance(effect, Write)]
    daily = next(job for job in jobs if isinstance(job, RecordDaily))
    assert daily.run.finished and not daily.awaits_field


def test_an_unfinished_daily_run_never_waits_for_the_field() -> None:
    room = ended(race_of(None, mode="daily", day="2024-05-01", max_players=1))
    jobs = [effect.job for effect in finished(room, END, SETTINGS) if isinstance(effect, Write)]
    assert not next(job for job in jobs if isinstance(job, RecordDaily)).awaits_field
