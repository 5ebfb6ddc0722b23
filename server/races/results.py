"""What a race's end leaves, as effects (``server/handover/effects.py``): its record and result
written, then told to its racers and spectators; a ranked daily run for the day's boards;
each racer's line in their history; whether it counts for ratings, and the news of the
new ones. Plain functions of the ended race: the race desk (``server/races/race_desk.py``)
calls them when a race finishes or closes.
"""

from __future__ import annotations

import logging
from typing import Any

from protocol.fairplay import FIELD_RUNS
from protocol.player_events import Held, RaceResult, Rated, Unrated
from protocol.race import Now, Race
from protocol.race_record import record_of
from protocol.race_views import final_boards, race_result, race_runs, revealed_views
from protocol.ranking import Run
from protocol.rated import UNRATED, unrated_because
from protocol.ratings import Rating, is_provisional
from server.config import Settings
from server.handover.effects import (
    Effects,
    Forget,
    Post,
    Push,
    PushAnywhere,
    Rate,
    ScoreHeat,
    Write,
)
from server.handover.inputs import EndWritten
from server.handover.jobs import EndRace, KeepReview, RecordDaily, RecordHistory
from server.races.fairplay import CLEAR, review_of, with_related
from server.state.rooms import Room

GAVE_UP = ("resigned", "dropped")  # outcomes that never win a race, whatever the place

log = logging.getLogger("solrace.director")  # a race's end is one of the race desk's steps


def finished(room: Room, moment: Now, settings: Settings) -> Effects:
    """Everyone is done: the ranking is final; it is written, then everyone told (its
    racers, its spectators). Nothing the second time (the end is decided once per node)."""
    race = room.race
    if room.done_mono is not None:
        return []
    room.done_mono = moment.mono_ms
    if room.start_handle is not None:
        room.start_handle.cancel()
    result = race_result(race)
    race_settings = race.settings
    end = EndRace(race.id, record_of(race), result, logs_keep_s(settings), room.version)
    effects: Effects = [
        Write(end, EndWritten(room)),  # once written, the race may be let go
        *[Push(player, RaceResult(result)) for player in race.racers],
        Post(room, "result", result_item(room, result)),
    ]
    if (
        race_settings.mode == "daily"
        and race_settings.ranked
        and race_settings.day is not None
        and not race.history_lost  # a board never rests on moves the store lost
    ):
        effects += daily_run(room, moment, settings)
    if race_settings.arena is not None:  # a heat: scored once its end is written
        effects.append(ScoreHeat(room))
    reason = unrated_because(race)
    if reason is None:
        effects.append(Rate(room))
    elif race_settings.mode == "race" and len(race.racers) > 1:
        effects += [Push(player, unrated_news(race, reason)) for player in race.racers]
    keep_identities_s = settings.keep_identities_days * 86_400
    effects += [Write(job) for job in histories(race, result, moment, keep_identities_s)]
    log.info(
        "race finished",
        extra={
            "race": race.id,
            "kind": race_settings.mode,
            "ranking": [entry["player"] for entry in result["ranking"]],
        },
    )
    return effects


def result_item(room: Room, result: dict[str, Any]) -> dict[str, Any]:
    """The feed's ``result``: the result, every racer's last cards (``boards``) when its
    spectators saw progress only, and every card (``revealed``) once the deal is shown."""
    item = dict(result)
    if not room.boards_live and room.race.settings.arena is None:  # a heat's: never
        item["boards"] = final_boards(room.race)
    revealed = revealed_views(room.race)
    if revealed is not None:
        item["revealed"] = revealed
    return item


def daily_run(room: Room, moment: Now, settings: Settings) -> Effects:
    """A ranked daily run's review (``server/races/fairplay.py``; flagged too when its account
    is related to one that started the day's daily first) is kept, and the run goes on
    the day's board unless it is flagged and held for a moderator; a finished one judged
    clear before the day's field was big enough is listed to be judged against it once it
    is (``server/races/field_judge.py``)."""
    race = room.race
    run = race_runs(race)[0]
    review = review_of(
        race,
        [run],
        moment.wall_ms,
        room.solver_line,
        room.histories,
        settings.hold_flagged,
        room.field_ms,
        room.earlier_reveals,
        room.records,
    )
    review = with_related(review, run.player, room.related, settings.hold_flagged)
    effects: Effects = [Write(KeepReview(race.id, review, logs_keep_s(settings)))]
    if review["held"]:
        log.warning("daily run held for a moderator", extra={"race": race.id})
        effects.append(Push(run.player, held_news(race)))
    else:
        assert race.settings.day is not None
        awaits = run.finished and review["status"] == CLEAR and len(room.field_ms) < FIELD_RUNS
        daily = RecordDaily(race.settings.game, race.settings.day, run, awaits_field=awaits)
        effects.append(Write(daily))
    return effects


def unrated_news(race: Race, reason: str) -> Unrated:
    """A head-to-head race moved no rating: why (a code of ``UNRATED``), and in a sentence."""
    return Unrated(race.id, race.settings.game, reason, UNRATED[reason])


def held_news(race: Race) -> Held:
    """What a racer is told when a run of ``race`` is held for a moderator (never why:
    the rule's details would only help to slip past it)."""
    what = "daily" if race.settings.mode == "daily" else "race"
    return Held(race.id, race.settings.game, what)


def closed(room: Room, settings: Settings) -> Effects:
    """An open race everyone left closes: it is let go and written as ended, with an
    empty result."""
    result: dict[str, Any] = {"race": room.id, "ranking": [], "deal": None}
    end = EndRace(room.id, record_of(room.race), result, logs_keep_s(settings), room.version)
    return [Forget(room, "closed"), Write(end)]


def histories(race: Race, result: dict[str, Any], moment: Now, keep_s: int) -> list[RecordHistory]:
    """Each racer's line in their history (kept ``keep_s`` after their last race): their
    place, outcome and figures; a head-to-head race counts as played (and won, by the
    first unless they gave up: resigned or dropped), a ranked daily run for its day."""
    settings = race.settings
    counted = settings.mode == "race" and len(race.racers) > 1
    ranked_day = settings.day if settings.mode == "daily" and settings.ranked else None
    jobs = []
    for entry in result["ranking"]:
        line = {
            "race": race.id,
            "game": settings.game,
            "mode": settings.mode,
            "ranked": settings.ranked,  # a race the server dealt, or a ranked daily run
            "day": settings.day,
            "at_ms": moment.wall_ms,
            "name": entry["name"],
            "rank": entry["rank"],
            "of": len(result["ranking"]),
            "outcome": entry["outcome"],
            "time_ms": entry["time_ms"],
            "actions": entry["actions"],
            "progress": entry["progress"],
        }
        won = counted and entry["rank"] == 1 and entry["outcome"] not in GAVE_UP
        jobs.append(
            RecordHistory(
                entry["player"], race.id, settings.game, line, counted, won, ranked_day, keep_s
            )
        )
    return jobs


def rated_runs(race: Race) -> list[Run]:
    """The runs a rated race rates: its accounts' (a guest has no badge)."""
    return [run for run in race_runs(race) if race.racers[run.player].badge is not None]


def ratings_told(race: Race, changed: dict[str, tuple[Rating, Rating]]) -> Effects:
    """Every rated racer is told, wherever they are, everyone's new rating (``changed``:
    each player's rating before and after the race) and its change."""
    ratings = {
        player: {**rating_json(after), "change": round(after.rating) - round(before.rating)}
        for player, (before, after) in changed.items()
    }
    told = Rated(race.id, race.settings.game, ratings)
    return [PushAnywhere(player, told) for player in changed]


def rating_json(rating: Rating) -> dict[str, Any]:
    """A rating as players see it: rounded, and whether it is still provisional."""
    return {
        "rating": round(rating.rating),
        "rd": round(rating.rd),
        "provisional": is_provisional(rating),
        "games": rating.games,
    }


def logs_keep_s(settings: Settings) -> int:
    """How long an ended race's record, result and logs stay in the store, in seconds."""
    return settings.keep_race_logs_days * 86_400
