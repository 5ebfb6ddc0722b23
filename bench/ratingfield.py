"""What the farming guards cost honest players: a simulated field of honest players.

Players have a true skill (normal, mean 1500, sd 300, on the rating scale) and each day a
share of them races: a player's races that day (1 to 12, most a few) are quick races the
server pairs by close ratings (the pool sorted by rating, with noise, neighbours meet; a
pair's fourth race of a day is not rated, as on the server). The better skill wins with
Elo's chance, 1 / (1 + 10 ** (-gap / 400)); a loser finishes no run but plays on (more
than ``EARLY_ACTIONS`` actions). Every race is rated by ``protocol.ratings.race_updates``
with the guards on and, from the same random draws, off. The field starts new on day 0
(the launch), newcomers join on ``JOIN_DAY``; printed: how far ratings are from skill
(root mean square, after the field's mean is taken out), the field's mean, the
newcomers' error a day, three days and a week after joining, and how often a guard cut a
gain.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field

from protocol.ranking import Run
from protocol.rated import PAIR_RACES_A_DAY, pairs
from protocol.ratings import (
    DEFAULT,
    GUARDS,
    NO_GUARDS,
    RATING_PERIOD_MS,
    Guards,
    Rating,
    race_updates,
)

START_MS = 1_700_006_400_000  # a midnight UTC
JOIN_DAY = 10
NEWCOMERS = 20


@dataclass
class Field:
    """The players' skills and ratings, and what the guards did."""

    skill: dict[str, float]
    ratings: dict[str, Rating] = field(default_factory=dict)
    joined: dict[str, int] = field(default_factory=dict)
    races: int = 0
    cut: int = 0  # winners who gained less than they would have without guards
    errors: dict[int, float] = field(default_factory=dict)  # days after joining -> error


def run_of(player: str, won: bool, race: str, at_ms: int) -> Run:
    return Run(player, player, race, "sanibel", 1, won, 60_000, 80, 52 if won else 30, at_ms)


def centred_error(field_: Field, players: list[str]) -> float:
    """Root mean square of rating - skill over ``players``, the field's mean gap removed."""
    gaps = [field_.ratings.get(p, DEFAULT).rating - field_.skill[p] for p in field_.skill]
    mean = sum(gaps) / len(gaps)
    chosen = [field_.ratings.get(p, DEFAULT).rating - field_.skill[p] - mean for p in players]
    return math.sqrt(sum(g * g for g in chosen) / len(chosen))


def play_day(field_: Field, day: int, rng: random.Random, guards: Guards) -> None:
    """One day of quick races among the players who have joined."""
    present = [p for p, joined in field_.joined.items() if joined <= day]
    wanted = {p: rng.choice([0, 0, 1, 2, 3, 4, 6, 8, 12]) for p in present}
    rated_pairs: Counter[tuple[str, str]] = Counter()
    for round_ in range(12):
        pool = [p for p in present if wanted[p] > round_]
        pool.sort(key=lambda p: field_.ratings.get(p, DEFAULT).rating + rng.gauss(0, 60))
        for a, b in zip(pool[0::2], pool[1::2], strict=False):
            at_ms = START_MS + day * RATING_PERIOD_MS + round_ * 3_600_000
            gap = field_.skill[a] - field_.skill[b]
            a_won = rng.random() < 1 / (1 + 10 ** (-gap / 400))
            pair = pairs([a, b])[0]
            if rated_pairs[pair] >= PAIR_RACES_A_DAY:
                continue
            rated_pairs[pair] += 1
            runs = [run_of(a, a_won, "r", at_ms), run_of(b, not a_won, "r", at_ms)]
            new = race_updates(runs, field_.ratings, at_ms, guards)
            if guards != NO_GUARDS:
                free = race_updates(runs, field_.ratings, at_ms, NO_GUARDS)
                winner = a if a_won else b
                field_.cut += new[winner].rating < free[winner].rating - 1e-9
            field_.races += 1
            field_.ratings.update(new)


def settled(skill: float, rng: random.Random) -> Rating:
    """A founder of a field that has run for months: rated near their skill, settled,
    having met many opponents."""
    return Rating(skill + rng.gauss(0, 40), 60.0, 0.06, 200, START_MS)


def simulate(guards: Guards, players: int, days: int, seed: int, launch: bool) -> Field:
    """The field after ``days``, every random draw from ``seed`` (so both arms meet the
    same players and skills; their pairings part as their ratings do): new on day 0 (a
    launch) or settled."""
    rng = random.Random(seed)
    skill = {f"p{i:05d}": rng.gauss(1500, 300) for i in range(players + NEWCOMERS)}
    field_ = Field(skill)
    for index, player in enumerate(skill):
        field_.joined[player] = 0 if index < players else JOIN_DAY
        if index < players and not launch:
            field_.ratings[player] = settled(skill[player], rng)
    newcomers = [p for p, joined in field_.joined.items() if joined == JOIN_DAY]
    for day in range(days):
        play_day(field_, day, rng, guards)
        after = day + 1 - JOIN_DAY
        if after in (1, 3, 7):
            field_.errors[after] = centred_error(field_, newcomers)
    return field_


def measure(players: int = 200, days: int = 30, seed: int = 1) -> dict[str, dict[str, float]]:
    """The honest field's figures with the guards and without, settled and at a launch."""
    figures = {}
    arms = [
        (f"{start}, guards {on}", start == "launch", guards)
        for start in ("settled", "launch")
        for on, guards in (("on", GUARDS), ("off", NO_GUARDS))
    ]
    for label, launch, guards in arms:
        field_ = simulate(guards, players, days, seed, launch)
        founders = [p for p, joined in field_.joined.items() if joined == 0]
        ratings = [field_.ratings.get(p, DEFAULT).rating for p in founders]
        figures[label] = {
            "races": field_.races,
            "error": centred_error(field_, founders),
            "mean": sum(ratings) / len(ratings),
            "new_1": field_.errors.get(1, math.nan),
            "new_3": field_.errors.get(3, math.nan),
            "new_7": field_.errors.get(7, math.nan),
            "cut": field_.cut / max(1, field_.races),
        }
    return figures


def print_field(figures: dict[str, dict[str, float]]) -> None:
    print(
        f"{'honest field':>22} {'races':>6} {'error':>6} {'mean':>7} "
        f"{'new+1d':>7} {'new+3d':>7} {'new+7d':>7} {'wins cut':>9}"
    )
    for label, f in figures.items():
        print(
            f"{label:>22} {f['races']:>6.0f} {f['error']:>6.1f} {f['mean']:>7.1f} "
            f"{f['new_1']:>7.1f} {f['new_3']:>7.1f} {f['new_7']:>7.1f} {f['cut']:>9.1%}"
        )
