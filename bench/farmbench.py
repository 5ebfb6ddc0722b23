"""``solrace bench farm``: the best rating farm found against the rating rules.

One person holds a main account and ``alts`` second accounts and races them for a day,
in any way the server allows: races they set up (private or in the lobby) or quick races
(when the two happen to be paired), the second accounts resigning at once or playing a few
moves and losing, the main finishing or not; from one address, or each account from an
address of its own (a VPN). Every race goes through the server's own rule
(``protocol/rated.py``) and store facts as the server keeps them (addresses seen that
day, rated races per pair that day), and rated races through ``protocol.ratings``. A
random search over such days prints the main account's best rise found.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from protocol.games import rules_for
from protocol.race import Badge, Ending, LogEntry, Race, RaceSettings
from protocol.ranking import Run
from protocol.rated import PAIR_RACES_A_DAY, pairs, unrated_because
from protocol.ratings import DEFAULT, Rating, race_updates

GAME = "sanibel"
MAIN = "pmain0000000"


@dataclass(frozen=True)
class Farmed:
    """One race of the farm: who, how it was set up, how each played."""

    alts: tuple[str, ...]
    quick: bool  # paired by the server (else set up by the players)
    alt_actions: int  # each second account's actions before it resigns
    main_finishes: bool


def alt(index: int) -> str:
    return f"palt{index:08d}"


def race_of(farmed: Farmed) -> Race:
    """The race as the server would hold it at its end."""
    rules = rules_for(GAME)
    settings = RaceSettings(GAME, dict(rules.options), 7, 1 + len(farmed.alts), ranked=farmed.quick)
    race = Race("r", settings, rules, MAIN)
    for player in (MAIN, *farmed.alts):
        race.join(player, player, Badge(1500, True))
    for player, count in ((MAIN, 5), *((a, farmed.alt_actions) for a in farmed.alts)):
        racer = race.racers[player]
        for seq in range(1, count + 1):
            racer.log.append(LogEntry(player, seq, "deal", seq))
        racer.outcome = Ending.RESIGNED
    if farmed.main_finishes:
        race.racers[MAIN].outcome = Ending.FINISHED
    return race


def farm_day(races: list[Farmed], one_address: bool) -> float:
    """The main account's rating after ``races`` in one day, from 1500 (a new player)."""
    ratings: dict[str, Rating] = {}
    rated_pairs: Counter[tuple[str, str]] = Counter()
    now_ms = 1_700_000_000_000
    for index, farmed in enumerate(races):
        race = race_of(farmed)
        accounts = [MAIN, *farmed.alts]
        if unrated_because(race) is not None or one_address:  # one address: all shared
            continue
        if any(rated_pairs[pair] >= PAIR_RACES_A_DAY for pair in pairs(accounts)):
            continue
        runs = [
            Run(
                p,
                p,
                "r",
                GAME,
                7,
                p == MAIN and farmed.main_finishes,
                1000,
                5,
                0 if p != MAIN else 10,
                now_ms,
            )
            for p in accounts
        ]
        ratings.update(race_updates(runs, ratings, now_ms + index * 1000))
        rated_pairs.update(pairs(accounts))
    return ratings.get(MAIN, DEFAULT).rating


def random_farm(rng: random.Random, alts: int, races: int) -> list[Farmed]:
    farm = []
    for _ in range(races):
        chosen = tuple(alt(i) for i in range(alts) if rng.random() < 0.7) or (alt(0),)
        quick = rng.random() < 0.5 and len(chosen) == 1  # quick races are races of two
        farm.append(Farmed(chosen, quick, rng.choice([0, 1, 3, 10]), rng.random() < 0.9))
    return farm


def best_farm(alts: int, races: int, tries: int, seed: int) -> dict[str, float]:
    """The best rise found, from one address and from an address per account."""
    rng = random.Random(seed)
    best = {"one address": 0.0, "an address each": 0.0}
    for _ in range(tries):
        farm = random_farm(rng, alts, races)
        for label, one in (("one address", True), ("an address each", False)):
            best[label] = max(best[label], farm_day(farm, one) - DEFAULT.rating)
    return best
