"""Which races move ratings, pure: only real games between real opponents.

A race is rated when all of these hold (``unrated_because`` says which one fails, as a
stable code; ``UNRATED`` has each code's sentence):
- no bot races (``bot``), and two or more accounts race (``guests``: guests are left out);
- not an arena heat (``arena``: it scores arena points, docs/arenas.md);
- the server chose the pairing (``not_paired``; quick pairing: ``RaceSettings.ranked``); a
  private or lobby race, or a rematch, is chosen by its players, so any two accounts could
  meet;
- the store holds every action it acknowledged (``history_lost``: ``Race.history_lost``);
- a random deal with the game's usual options (``chosen_deal``: it may have been practised);
- every racer made at least ``MIN_ACTIONS`` actions (``few_actions``: a race one side
  abandoned at once, "aborted", changes nothing);
- at least one racer finished, or the race's time limit ended it (``nobody_finished``).
And, from what the server saw (``server/races/rating.py`` asks the store): no two of its accounts
were seen on one client address that day (``same_address``), every account is in good
standing (``standing``: old enough, with enough finished games: ``protocol/standing.py``),
no two of them are related (``related``: seen on one address or one device within a week:
``server/races/standing.py``), and no two of them have already had ``PAIR_RACES_A_DAY`` rated
races together that day (``pair_limit``).
"""

from __future__ import annotations

from protocol.games import rules_for
from protocol.players import is_bot
from protocol.race import Ending, Race

MIN_ACTIONS = 3
PAIR_RACES_A_DAY = 3

UNRATED = {
    "bot": "Not rated: a bot raced, and races with a bot are never rated.",
    "guests": "Not rated: fewer than two racers had accounts (a guest is never rated).",
    "arena": "Not rated: an arena heat scores arena points, not ratings.",
    "not_paired": "Not rated: its racers chose each other; only quick races are rated.",
    "history_lost": "Not rated: the server lost some of its moves.",
    "chosen_deal": "Not rated: its deal or options were chosen, not the usual random deal.",
    "few_actions": f"Not rated: a racer made fewer than {MIN_ACTIONS} moves.",
    "nobody_finished": "Not rated: nobody finished, and the time limit did not end it.",
    "same_address": "Not rated: two of its accounts were seen on one address today.",
    "standing": "Not rated: an account in it is too new, or has finished too few games, "
    "for rated play.",
    "related": "Not rated: two of its accounts are related (seen on one address or one "
    "device this week); related accounts never rate each other.",
    "pair_limit": f"Not rated: these players had {PAIR_RACES_A_DAY} rated races together today.",
}


def unrated_because(race: Race) -> str | None:
    """Why ``race`` (over) moves no rating, as a code of ``UNRATED``; None when it may."""
    settings = race.settings
    racers = list(race.racers.values())
    if any(is_bot(racer.player) for racer in racers):
        return "bot"
    if sum(1 for racer in racers if racer.badge is not None) < 2:
        return "guests"
    if settings.arena is not None:
        return "arena"
    if settings.mode != "race" or not settings.ranked:
        return "not_paired"
    if race.history_lost:
        return "history_lost"
    if settings.deal_chosen or settings.options != dict(rules_for(settings.game).options):
        return "chosen_deal"
    if any(len(racer.log) < MIN_ACTIONS for racer in racers):
        return "few_actions"
    if not any(racer.outcome in (Ending.FINISHED, Ending.TIMED_OUT) for racer in racers):
        return "nobody_finished"
    return None


def pairs(players: list[str]) -> list[tuple[str, str]]:
    """Every pair of ``players``, each in byte order (the store counts pairs so)."""
    ordered = sorted(players)
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :]]
