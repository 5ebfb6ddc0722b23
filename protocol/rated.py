"""Which races move ratings, pure: only real games between real opponents.

A race is rated when all of these hold (``unrated_because`` says which one fails):
- the server chose the pairing (quick pairing: ``RaceSettings.ranked``); a private or
  lobby race, or a rematch, is chosen by its players, so any two accounts could meet;
- a random deal with the game's usual options (a chosen deal may have been practised);
- two or more accounts race (guests are left out) and no bot;
- every racer made at least ``MIN_ACTIONS`` actions (a race one side abandoned at once,
  "aborted", changes nothing);
- at least one racer finished, or the race's time limit ended it;
- the store holds every action it acknowledged (``Race.history_lost``).
And, from what the server saw (``server/director.py`` asks the store): no two of its
accounts were seen on one client address that day, and no two of them have already had
``PAIR_RACES_A_DAY`` rated races together that day.
"""

from __future__ import annotations

from protocol.games import rules_for
from protocol.players import is_bot
from protocol.race import Ending, Race

MIN_ACTIONS = 3
PAIR_RACES_A_DAY = 3


def unrated_because(race: Race) -> str | None:
    """Why ``race`` (over) moves no rating, in a few words; None when it may."""
    settings = race.settings
    racers = list(race.racers.values())
    if settings.mode != "race" or not settings.ranked:
        return "not paired by the server"
    if race.history_lost:
        return "the store lost some of its moves"
    if settings.deal_chosen or settings.options != dict(rules_for(settings.game).options):
        return "a chosen deal or other options"
    if sum(1 for racer in racers if racer.badge is not None) < 2:
        return "fewer than two accounts"
    if any(is_bot(racer.player) for racer in racers):
        return "a bot raced"
    if any(len(racer.log) < MIN_ACTIONS for racer in racers):
        return f"a racer made fewer than {MIN_ACTIONS} actions"
    if not any(racer.outcome in (Ending.FINISHED, Ending.TIMED_OUT) for racer in racers):
        return "nobody finished"
    return None


def pairs(players: list[str]) -> list[tuple[str, str]]:
    """Every pair of ``players``, each in byte order (the store counts pairs so)."""
    ordered = sorted(players)
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :]]
