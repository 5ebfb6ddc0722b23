"""Ranked daily runs judged again once the day's field is big enough (docs/fairness.md,
"Fair-play signals"): a run reads the day's board as it starts, so the runs of a day's
first hours met a field of fewer than ``FIELD_RUNS`` finished runs and ``beyond_field``
could not judge them. A clear one such goes on the board listed by the store
(``RecordDaily.awaits_field``); the ``daily`` lease holder looks at the lists of today and
yesterday every ``FIELD_JUDGE_EVERY_S`` seconds and judges each listed run against the
day's board once it holds ``FIELD_RUNS`` finished runs besides the run's own. A run it
flags is taken off the boards (when flagged runs are held), its review flagged for a
moderator with the field's figures as evidence, and its player told the run is held; a
run it does not flag keeps its place, its review noting the field it was judged by.

Each step can be done again: the board's entry is dropped before the review changes (a
review is only judged while ``clear``), and a run leaves the list once its review is
judged, so a node lost midway leaves the next lease holder the same work.
"""

from __future__ import annotations

from typing import Final

from protocol.daily import day_of, previous_day
from protocol.fairplay import FIELD_READ, FIELD_RUNS
from protocol.games import GAMES
from protocol.player_events import Held
from protocol.race import Now
from server.handover.effects import Effects, PushAnywhere
from server.races.fairplay import CLEAR, FLAGGED, against_field, review_runs
from server.store import Store

FIELD_JUDGE_EVERY_S: Final = 2.0


async def judge_listed_runs(store: Store, moment: Now, keep_s: int, hold: bool) -> Effects:
    """Judge the runs of today and yesterday listed as waiting for their day's field, where
    it is big enough (their reviews then kept ``keep_s``, or for good when flagged); the
    news of the runs it holds (``hold``) for their players."""
    today = day_of(moment.wall_ms)
    effects: Effects = []
    for day in (previous_day(today), today):
        for game in GAMES:
            races = await store.moderation.awaiting_field(game, day)
            if not races:
                continue
            board = await store.days.daily_board(game, day, FIELD_READ + 1)
            times = {
                entry.run.player: entry.run.time_ms for entry in board.top if entry.run.finished
            }
            for race in races:
                effects += await judge(store, game, day, race, times, keep_s, hold)
    return effects


async def judge(
    store: Store,
    game: str,
    day: str,
    race: str,
    times: dict[str, int],
    keep_s: int,
    hold: bool,
) -> Effects:
    """Judge ``race``'s run against ``times`` (each player's finished time on the day's
    board) less its own, once they are ``FIELD_RUNS``; nothing while its review is not yet
    written."""
    moderation = store.moderation
    review = await moderation.review(race)
    if review is None:
        return []
    if review["status"] != CLEAR:  # a moderator's, or judged already
        await moderation.field_judged(game, day, race)
        return []
    (player,) = review["players"]
    field = sorted(time_ms for other, time_ms in times.items() if other != player)[:FIELD_READ]
    if len(field) < FIELD_RUNS:
        return []
    judged = against_field(review, field, hold)
    if judged["held"]:
        for run in review_runs(review):
            await moderation.drop_daily_run(game, day, run)
    flagged = judged["status"] == FLAGGED
    settled = await moderation.settle(race, CLEAR, judged, 0 if flagged else keep_s)
    await moderation.field_judged(game, day, race)
    if settled and judged["held"]:
        return [PushAnywhere(player, Held(race, game, "daily"))]
    return []
