"""``solrace bench fairplay --field``: the time rules (``beyond_field`` and
``beyond_history``, ``protocol/fairplay.py``) on simulated days of a ranked daily board.

The other rules are judged on the bench's runs one at a time; these two judge a run
against others (the day's finished runs, the account's earlier ones), so they need a
field: many accounts playing day after day. The bench's honest players finish 1 daily run
in 15, so no day of the server bench reaches the 20 finished runs ``beyond_field`` needs;
here the days are simulated, without a server and without the solver per run:

- **The runs' moves.** For each day's deal (``DEALS`` deals of the game, in turn), a few
  winning runs are worked out once with the bench's knower (``bench/fairplaypeople.py``: a
  winning line of its own on the true deal, with detours). A finished run on that day is
  one of them, given its player's think times: the rules compare times, so the moves only
  give a run its length.
- **Honest accounts** (``--field-accounts``): each with a person's pace of its own (the
  bench's honest players': a median of 0.5 to 1.5 s, a log-normal spread), slower by 1.8
  after a surprise (``SURPRISES``, the share of actions made after one in the honest
  planner's wins at its best skill), a chance of playing a day (``PLAYS``) and of
  finishing the runs it plays, drawn around the population's finish rate (its skill;
  each of ``FINISH_RATES`` in turn), in a random order each day.
- **Knowers**: ``KNOWERS`` more accounts, honest the same way, until a day of their own
  from which they know every deal: then they play the day's winning run without surprises
  at one of the cheaters' speeds (``CHEATER_MEDIANS_MS``: 285 to 1,500 ms), and always
  finish.

Each finished run is judged as the server judges it, by ``signals_of`` and ``reasons``:
against the fastest ``FIELD_READ`` times on the day's board so far (a run not flagged
while the board held fewer than ``FIELD_RUNS``: again once it holds that many besides its
own, as ``server/races/field_judge.py`` does) and the account's earlier finished daily
runs (its races are not in its history here, so its best is never better than on the
server, and an honest player is judged at least as harshly). It prints,
per finish rate, the share of honest runs flagged by each rule and of honest accounts
flagged at least once, and the share of knowers' runs flagged: their first run that knows
the deal and all of them. Unfinished runs count as runs never flagged by these rules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from bench.fairplaybench import solvable_deal
from bench.fairplaypeople import CHEATER_MEDIANS_MS, knower, person_pace
from protocol.fairplay import (
    BEYOND_FIELD,
    BEYOND_HISTORY,
    FIELD_READ,
    FIELD_RUNS,
    Signals,
    field_figures,
    reasons,
    signals_of,
)
from protocol.games import rules_for

GAME = "mount_sunflower_easy"
DEALS = 3  # the days' deals, in turn
SHAPES = 4  # winning runs worked out per deal
PLAYS = 0.7  # the chance an account plays a given day
SURPRISES = 0.11  # the honest planner's wins at its best skill: 34 of 320 actions, 3 wins
SLOWER_AFTER_SURPRISE = 1.8
KNOWERS = 200
FINISH_RATES = (0.07, 0.3, 0.6)
TIME_RULES = (BEYOND_FIELD, BEYOND_HISTORY)


@dataclass
class Account:
    """One simulated account: its pace, skill and earlier finished daily times; a knower
    also its speed and the day from which it knows the deals."""

    median_ms: float
    sigma: float
    finishes: float
    knows_from: int | None = None
    knower_median_ms: int = 0
    times: list[int] = field(default_factory=list)
    known_runs: int = 0  # a knower's runs that knew the deal so far


def winning_runs(rng: random.Random, deals: int, shapes: int) -> list[list[list[str]]]:
    """For each deal, up to ``shapes`` winning runs' actions (the bench's knower's)."""
    rules = rules_for(GAME)
    runs = []
    for _ in range(deals):
        number, line = solvable_deal(GAME, rng)
        start = rules.deal(number)
        plans = [knower(rules, start, list(line), rng, 1_000) for _ in range(shapes)]
        runs.append([[action for action, _ in plan.steps] for plan in plans if plan.won])
    return [shapes for shapes in runs if shapes]


def account(rng: random.Random, finish_rate: float) -> Account:
    """An account of a person's pace and a skill around ``finish_rate``."""
    finishes = min(1.0, rng.uniform(0, 2 * finish_rate))
    return Account(rng.uniform(500, 1500), rng.uniform(0.45, 0.9), finishes)


def timed(
    actions: list[str], median_ms: float, sigma: float, surprises: float, rng: random.Random
) -> tuple[list[tuple[str, int]], int]:
    """``actions`` with the moments they are made at, at a person's pace, and the total."""
    entries, at = [], 0
    for action in actions:
        slower = SLOWER_AFTER_SURPRISE if rng.random() < surprises else 1.0
        at += person_pace(rng, median_ms, sigma, slower)
        entries.append((action, at))
    return entries, at


@dataclass
class Tally:
    """What the time rules flag, per kind of run: runs, the rules' flags of honest ones,
    the honest accounts flagged once or more, knowers' runs, and knowers' first runs that
    know the deal by speed (``[flagged, runs]``)."""

    out: dict[str, int] = field(default_factory=dict)
    flagged: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TIME_RULES, 0))
    ever: set[int] = field(default_factory=set)
    first_by_speed: dict[int, list[int]] = field(
        default_factory=lambda: {median: [0, 0] for median in CHEATER_MEDIANS_MS}
    )

    def add(self, what: str, count: int = 1) -> None:
        self.out[what] = self.out.get(what, 0) + count

    def judged(self, player: Account, knows: bool, first: bool, why: set[str]) -> None:
        """A run's flags (a run judged again once its day had a field: only what it adds)."""
        hit = bool(why & set(TIME_RULES))
        if knows:
            self.add("knower_flagged", hit)
            if first:
                self.first_by_speed[player.knower_median_ms][0] += hit
        elif player.knows_from is None:
            for rule in TIME_RULES:
                self.flagged[rule] += rule in why
            if hit:
                self.ever.add(id(player))


def simulate(
    runs: list[list[list[str]]],
    finish_rate: float,
    accounts: int,
    days: int,
    seed: int,
    knower_count: int = KNOWERS,
) -> dict[str, Any]:
    """``days`` days of ``accounts`` honest accounts and ``knower_count`` knowers, all of
    a skill around ``finish_rate``: the runs and those the time rules flag. A finished run
    not flagged while its day's board held fewer than ``FIELD_RUNS`` finished runs is
    judged again against the board once it holds that many besides its own, as the server
    does (``server/races/field_judge.py``)."""
    rng = random.Random(seed)
    honest = [account(rng, finish_rate) for _ in range(accounts)]
    knowers = [account(rng, finish_rate) for _ in range(knower_count)]
    for index, each in enumerate(knowers):
        each.knows_from = rng.randrange(max(1, days // 2))
        each.knower_median_ms = CHEATER_MEDIANS_MS[index % len(CHEATER_MEDIANS_MS)]
    tally = Tally({"honest_runs": 0, "honest_finished": 0, "knower_runs": 0})
    tally.out.update(knower_flagged=0, judged_by_field=0, judged_late=0)
    for day in range(days):
        shapes, board = runs[day % len(runs)], list[int]()
        waiting: list[tuple[Signals, Account, bool, bool]] = []  # judged without a field
        playing = [each for each in (*honest, *knowers) if rng.random() < PLAYS]
        rng.shuffle(playing)
        for player in playing:
            knows = player.knows_from is not None and day >= player.knows_from
            is_honest = player.knows_from is None
            tally.add("honest_runs", is_honest)
            if not knows and rng.random() >= player.finishes:
                continue  # an unfinished run: these rules judge finished runs only
            median = player.knower_median_ms if knows else player.median_ms
            surprises = 0.0 if knows else SURPRISES
            entries, total = timed(rng.choice(shapes), median, player.sigma, surprises, rng)
            field_ms = sorted(board)[:FIELD_READ]
            signals = signals_of(entries, True, total, None, player.times, field_ms)
            why = set(reasons(signals))
            first = knows and player.known_runs == 0
            if knows:
                player.known_runs += 1
                tally.add("knower_runs")
                if first:
                    tally.first_by_speed[player.knower_median_ms][1] += 1
            elif is_honest:
                tally.add("honest_finished")
                tally.add("judged_by_field", len(field_ms) >= FIELD_RUNS)
            tally.judged(player, knows, first, why)
            if not why and len(field_ms) < FIELD_RUNS:
                waiting.append((signals, player, knows, first))
            board.append(total)
            player.times.append(total)
            if waiting and len(board) > FIELD_RUNS:
                for signals, waited, waited_knows, waited_first in waiting:
                    others = sorted(board)
                    others.remove(signals.time_ms)
                    again = replace(signals, **field_figures(others[:FIELD_READ]))
                    tally.judged(waited, waited_knows, waited_first, set(reasons(again)))
                    tally.add("judged_late", waited.knows_from is None)
                    tally.add("judged_by_field", waited.knows_from is None)
                waiting = []
    return {
        **tally.out,
        "flagged": tally.flagged,
        "honest_accounts": accounts,
        "honest_accounts_flagged": len(tally.ever),
        "knower_first": sum(runs for _, runs in tally.first_by_speed.values()),
        "knower_first_flagged": sum(hits for hits, _ in tally.first_by_speed.values()),
        "knower_first_by_speed": tally.first_by_speed,
    }


def measure_field(accounts: int, days: int, seed: int, quick: bool) -> dict[str, Any]:
    """The time rules at each of ``FINISH_RATES`` (``quick``: one deal, two runs)."""
    rng = random.Random(seed)
    runs = winning_runs(rng, 1 if quick else DEALS, 2 if quick else SHAPES)
    rates = {
        rate: simulate(runs, rate, accounts, days, seed * 1_000 + index)
        for index, rate in enumerate(FINISH_RATES)
    }
    return {"game": GAME, "accounts": accounts, "days": days, "knowers": KNOWERS, "rates": rates}


def print_field(result: dict[str, Any]) -> None:
    print(
        f"time rules on simulated days: {result['game']}, {result['accounts']} honest accounts "
        f"and {result['knowers']} knowers, {result['days']} days"
    )
    for rate, got in result["rates"].items():
        runs, finished = got["honest_runs"], got["honest_finished"]
        rules = ", ".join(f"{rule} {count}" for rule, count in got["flagged"].items())
        print(
            f"  finish rate {rate:.0%}: honest runs {runs} ({finished} finished, "
            f"{got['judged_by_field']} against a field of {FIELD_RUNS} or more, "
            f"{got['judged_late']} of them once their day had it); flagged "
            f"{rules}: {sum(got['flagged'].values()) / runs:.2%} of honest runs, "
            f"{got['honest_accounts_flagged'] / got['honest_accounts']:.1%} of honest accounts"
        )
        speeds = ", ".join(
            f"{median} ms {hit}/{count}"
            for median, (hit, count) in got["knower_first_by_speed"].items()
        )
        print(
            f"    knowers: first run that knows the deal {got['knower_first_flagged']}/"
            f"{got['knower_first']} flagged ({speeds}); all their runs that know it "
            f"{got['knower_flagged']}/{got['knower_runs']}"
        )
