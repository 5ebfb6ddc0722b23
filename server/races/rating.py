"""A finished race's rating step: the store's facts about its accounts (shared
addresses, the pair's races that day), its fair-play review, then the ratings and the
news of them. Called by the race desk for each race that may count
(``results.finished`` asks ``protocol/rated.py``); the store rates a race once, whichever
node asks first."""

from __future__ import annotations

import logging

from protocol.daily import DAY_MS, day_of
from protocol.race import Now, Race
from protocol.rated import PAIR_RACES_A_DAY, pairs
from server.config import Settings
from server.handover.effects import Effects, Push, PushAnywhere, Write
from server.handover.jobs import KeepReview
from server.races.fairplay import history_times, review_of, with_changes
from server.races.results import held_news, logs_keep_s, rated_runs, ratings_told, unrated_news
from server.races.standing import related_pair, standing_of
from server.store import Store

log = logging.getLogger("solrace.director")  # one of the race desk's steps


async def rate(store: Store, settings: Settings, race: Race, moment: Now) -> Effects:
    """Rate a finished race, if no node did yet, and tell its rated racers their new
    ratings (``rated``, wherever they are): unless two of its accounts were seen on one
    address that day, an account is not in good standing, two are related, or the pair
    raced enough that day (then its racers here are told so: ``unrated``), or its
    fair-play review holds it for a moderator (``server/races/fairplay.py``; the review is kept
    either way)."""
    keep_s = logs_keep_s(settings)
    runs = rated_runs(race)
    day = day_of(moment.wall_ms)
    accounts = [run.player for run in runs]
    if await store.accounts.shared_address(day, accounts):
        log.info("race not rated: accounts seen on one address", extra={"race": race.id})
        return unrated_told(race, "same_address")
    for account in accounts:
        name = await store.accounts.account_of(account)
        if (await standing_of(store, settings, account, name, moment.wall_ms))["code"]:
            log.info("race not rated: an account not in good standing", extra={"race": race.id})
            return unrated_told(race, "standing")
    if await related_pair(store, accounts, moment.wall_ms):
        log.info("race not rated: related accounts", extra={"race": race.id})
        return unrated_told(race, "related")
    for a, b in pairs(accounts):  # the store's expiring counters count a pair's day
        if await store.limits.failures(f"rated-pair:{day}:{a}:{b}") >= PAIR_RACES_A_DAY:
            if await store.accounts.was_rated(race.settings.game, race.id):
                return []  # another node rated it, and counted it: its racers were told
            log.info("race not rated: the pair's races today", extra={"race": race.id})
            return unrated_told(race, "pair_limit")
    game = race.settings.game
    histories = {
        player: history_times(await store.accounts.history(player), game, race.id)
        for player in accounts
    }
    # no solver line: a race's deal is random, and solving each would take a core
    review = review_of(race, runs, moment.wall_ms, None, histories, settings.hold_flagged)
    if review["held"]:
        log.warning("rated race held for a moderator", extra={"race": race.id})
        told = [PushAnywhere(player, held_news(race)) for player in accounts]
        return [Write(KeepReview(race.id, review, keep_s)), *told]
    changed = await store.accounts.rate_race(game, race.id, runs, moment.wall_ms, keep_s)
    if not changed:
        return []
    for a, b in pairs(accounts):  # counted once: only the node that rated it
        await store.limits.note_failure(f"rated-pair:{day}:{a}:{b}", 2 * DAY_MS // 1000)
    log.info("race rated", extra={"race": race.id, "players": sorted(changed)})
    kept = Write(KeepReview(race.id, with_changes(review, changed), keep_s))
    return [kept, *ratings_told(race, changed)]


def unrated_told(race: Race, reason: str) -> Effects:
    """Every racer is told that the race moved no rating, and why: by their own node (each
    node that follows the race decides alike), so once."""
    return [Push(player, unrated_news(race, reason)) for player in race.racers]
