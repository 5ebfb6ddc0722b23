"""``solrace bench farm``: the best rating farm found against the rating rules.

One person holds a main account and ``alts`` second accounts and races them for a day,
in any way the server allows: races they set up (private or in the lobby) or quick races
(when the two happen to be paired), the second accounts resigning at once or playing a few
moves and losing, the main finishing or not; from one address, or each account from an
address of its own (a VPN). Every race goes through the server's own rule
(``protocol/rated.py``) and store facts as the server keeps them (addresses seen that
day, rated races per pair that day), and rated races through ``protocol.ratings``. A
random search over such days prints the main account's best rise found.

``farm_days`` plays the farm the issue found (issue 33): second accounts each on an address
of its own, made days before (new, or settled by a dozen rated races against the field),
three quick races a day with the main account each (as many as a pair may have rated),
every one either resigned after 3 moves or played out and lost; it prints the main
account's rise each day, with the farming guards of ``protocol.ratings`` and without.
The bench stays on the rules' public functions, as the store calls them.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from bench.ratingfield import measure, print_field
from protocol.games import rules_for
from protocol.race import Badge, Ending, LogEntry, Race, RaceSettings
from protocol.ranking import Run
from protocol.rated import PAIR_RACES_A_DAY, pairs, unrated_because
from protocol.ratings import (
    DEFAULT,
    GUARDS,
    NO_GUARDS,
    RATING_PERIOD_MS,
    Guards,
    Rating,
    race_updates,
)

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


def farm_day(races: list[Farmed], one_address: bool, guards: Guards = GUARDS) -> float:
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
        ratings.update(race_updates(runs, ratings, now_ms + index * 1000, guards))
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


DAY0_MS = 1_700_006_400_000  # a midnight UTC: the farm's first day
SETTLING_RACES = 12  # a settled second account's rated races against the field, days before
BEHAVIOURS = {
    "resign": "3 moves, resigns",
    "lose": "plays it out, loses",
    "dilute": "loses, +7 field races",  # also 7 rated races a day with others: no feeder
}
DILUTING_RACES = 7


def sock_run(sock: str, behaviour: str, at_ms: int) -> Run:
    """A second account's run: 3 actions and resigned, or a whole race played and lost."""
    actions = 3 if behaviour == "resign" else 90  # "lose" and "dilute": played out
    return Run(sock, sock, "r", GAME, 7, False, 300_000, actions, 0 if actions == 3 else 30, at_ms)


def main_run(at_ms: int) -> Run:
    return Run(MAIN, MAIN, "r", GAME, 7, True, 240_000, 110, 52, at_ms)


def field_races(
    ratings: dict[str, Rating], socks: list[str], races: int, from_ms: int, guards: Guards
) -> None:
    """Each second account races ``races`` rated races against different settled players of
    the field (1500, RD 60), winning half, an hour apart from ``from_ms``."""
    for n in range(races):
        at_ms = from_ms + n * 3_600_000
        for sock in socks:
            rival = f"pfield{n:07d}"
            ratings[rival] = Rating(1500.0, 60.0, 0.06, 200, at_ms)
            won = n % 2 == 0
            runs = [
                Run(sock, sock, "s", GAME, 7, won, 200_000, 90, 52 if won else 30, at_ms),
                Run(rival, rival, "s", GAME, 7, not won, 200_000, 90, 30 if won else 52, at_ms),
            ]
            ratings[sock] = race_updates(runs, ratings, at_ms, guards)[sock]


def farm_days(socks: int, settled: bool, behaviour: str, days: int, guards: Guards) -> list[float]:
    """The main account's rise each day of the farm (a new account on day 0)."""
    names = [alt(i) for i in range(socks)]
    ratings: dict[str, Rating] = {}
    if settled:  # a dozen rated races, days before
        field_races(ratings, names, SETTLING_RACES, DAY0_MS - 5 * RATING_PERIOD_MS, guards)
    rises = []
    for day in range(days):
        start = ratings.get(MAIN, DEFAULT).rating
        if behaviour == "dilute":  # in the small hours, before the day's farm
            field_races(ratings, names, DILUTING_RACES, DAY0_MS + day * RATING_PERIOD_MS, guards)
        for race in range(PAIR_RACES_A_DAY):
            for index, sock in enumerate(names):
                noon = DAY0_MS + day * RATING_PERIOD_MS + RATING_PERIOD_MS // 2
                at_ms = noon + (race * socks + index) * 60_000
                runs = [main_run(at_ms), sock_run(sock, behaviour, at_ms)]
                ratings.update(race_updates(runs, ratings, at_ms, guards))
        rises.append(ratings.get(MAIN, DEFAULT).rating - start)
    return rises


def print_farm_days(days: int) -> None:
    """The issue's farm, every way: the main account's rise on day 1 and day by day."""
    print(f"farm over {days} days: 3 quick races a day with each second account")
    print(
        f"{'second accounts':>22} {'each race':>20} {'guards':>6} {'day 1':>6}"
        f" {'best day':>8} {f'{days} days':>7}"
    )
    for socks in (1, 2, 7):
        for settled in (False, True):
            for behaviour, said in BEHAVIOURS.items():
                for label, guards in (("on", GUARDS), ("off", NO_GUARDS)):
                    rises = farm_days(socks, settled, behaviour, days, guards)
                    kind = f"{socks} {'settled' if settled else 'new'}"
                    print(
                        f"{kind:>22} {said:>20} {label:>6} {rises[0]:>+6.0f}"
                        f" {max(rises):>+8.0f} {sum(rises):>+7.0f}"
                    )


def print_farm(quick: bool, seed: int) -> None:
    """``solrace bench farm``: the random search, the issue's farm day by day, and the
    honest field (``quick``: a smaller search and field)."""
    races, tries = 40, 200 if quick else 2000
    print(f"farm: {races} races a day, {tries} random days per number of second accounts")
    print(f"{'second accounts':>16} {'best rise, one address':>24} {'an address each':>16}")
    for alts in (1, 2, 7):
        best = best_farm(alts, races, tries, seed=seed)
        print(f"{alts:>16} {best['one address']:>24.1f} {best['an address each']:>16.1f}")
    print()
    print_farm_days(8)
    print()
    players, days = (40, 18) if quick else (200, 30)
    print(f"honest field: {players} players for {days} days (+20 newcomers on day 10)")
    print_field(measure(players, days, seed))
