"""Glicko-2 ratings, pure: one rating per player and game, updated after every rated race.

The formulae are those of Glickman's "Example of the Glicko-2 system" (2013), steps 1 to 8,
with the volatility found by the paper's Illinois iteration; ``update`` reproduces its worked
example. Three choices are ours, as lichess makes them:

* Each race is a rating period of its own for its players, rated the moment it ends.
  Time between a player's races counts too: the RD grows by ``periods`` * sigma**2 (step 6)
  where ``periods`` is the time since their last rated race in ``RATING_PERIOD_MS``, so an
  absent player's rating becomes uncertain again, up to ``RD_MAX``.
* The RD is kept between ``RD_MIN`` and ``RD_MAX`` so that a rating never freezes and a
  player back after years is no less certain than a new one.
* A race of several players counts as every pair of its runs: the better run (by the one
  ranking rule, ``Run.better_than``) wins, runs equal on what was played draw. Each pair is
  a whole game and all of a player's pairs fall in the race's one rating period, so a race
  of eight moves a rating as seven games played at once would.

A rating is provisional (lichess shows it with a "?") while its RD is above
``PROVISIONAL_RD``: about the first ten races against settled players, and again after a
long absence.

Four guards keep farming (a main account beating second accounts made for it) from
moving a rating; each limits only what a player gains, never a loss, so no guard can
shield a player (``Guards``; docs/fairness.md, "Ratings that farming cannot move"):

* A game against a provisional opponent gives ``c**2`` of what it gives above the
  expected score, where c = (RD_MAX - RD) / (RD_MAX - PROVISIONAL_RD), clamped to [0, 1],
  from the opponent's RD as of the race: nothing from a new account, all from a settled one.
* A win over an opponent who did not finish and made fewer than ``EARLY_ACTIONS``
  actions (resigned, left or ran out of time early) gives nothing above the expected score.
* A *feeder* gives nothing above the expected score: an opponent at least
  ``FEEDER_GAMES`` of whose last ``RECENT_GAMES`` rated games were against this player (a
  second account exists to feed one account). Each ``Rating`` keeps its recent opponents.
* No rating rises more than ``DAILY_RISE`` above where it stood before the player's
  first rated race of the UTC day (``Rating.day_start``); a race's rise beyond that counts
  for nothing, a fall always counts in full.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from protocol.ranking import Run

SCALE = 173.7178  # Glicko-2's scale: mu = (rating - 1500) / SCALE, phi = RD / SCALE
TAU = 0.5  # the system constant: how much the volatility may change (the paper's example)
EPSILON = 0.000001  # the Illinois iteration's tolerance (the paper's)
MAX_ITERATIONS = 100  # a guard only: the iteration converges in well under 20 steps
RD_MAX = 350.0  # the RD of a new player, and the most any RD grows to
RD_MIN = 45.0  # no RD shrinks below this (lichess's floor), so ratings keep moving
PROVISIONAL_RD = 110.0  # above this a rating is provisional (lichess's threshold)
RATING_PERIOD_MS = 24 * 3600 * 1000  # absence adds one period's sigma**2 to phi**2 per day
EARLY_ACTIONS = 20  # a win over a racer who gave up with fewer actions gives nothing
RECENT_GAMES = 10  # each rating keeps the opponents of its latest rated games
FEEDER_GAMES = 6  # so many of an opponent's recent games against a player make it a feeder
DAILY_RISE = 100.0  # the most a rating rises in a UTC day (its falls are never limited)


@dataclass(frozen=True, slots=True)
class Guards:
    """Which farming guards apply (all of them on the server; the bench turns them off
    to measure what they cost honest players)."""

    provisional: bool = True  # damp gains from provisional opponents
    early_actions: int = EARLY_ACTIONS  # 0: a win over an early quitter counts in full
    feeder_games: int | None = FEEDER_GAMES  # None: feeders give what anyone would
    daily_rise: float | None = DAILY_RISE  # None: no daily cap


GUARDS = Guards()
NO_GUARDS = Guards(provisional=False, early_actions=0, feeder_games=None, daily_rise=None)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one game: the estimate, its deviation (RD), the volatility, the
    rated games played (each opponent in a race is one), and when it was last rated."""

    rating: float = 1500.0
    rd: float = RD_MAX
    volatility: float = 0.06
    games: int = 0
    at_ms: int = 0  # wall clock (epoch ms) of the last rated race; 0 = never rated
    recent: tuple[str, ...] = ()  # the opponents of the latest rated games, oldest first
    day: int = 0  # the UTC day (days since the epoch) of ``day_start``
    day_start: float = 1500.0  # the rating before the first rated race of ``day``

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields, for storage."""
        return {
            "rating": self.rating,
            "rd": self.rd,
            "volatility": self.volatility,
            "games": self.games,
            "at_ms": self.at_ms,
            "recent": list(self.recent),
            "day": self.day,
            "day_start": self.day_start,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        """The rating ``as_dict`` wrote; numbers may come as strings (a Redis hash's), the
        recent opponents as JSON text. A rating stored before the farming guards has no
        recent opponents and no day begun."""
        recent = data.get("recent") or []
        recent = json.loads(recent) if isinstance(recent, str) else recent
        return cls(
            rating=float(data["rating"]),
            rd=float(data["rd"]),
            volatility=float(data["volatility"]),
            games=int(data["games"]),
            at_ms=int(data["at_ms"]),
            recent=tuple(str(opponent) for opponent in recent),
            day=int(data.get("day", 0)),
            day_start=float(data.get("day_start", 1500.0)),
        )

    def games_against(self, player: str) -> int:
        """How many of this player's latest ``RECENT_GAMES`` rated games were against
        ``player``."""
        return self.recent.count(player)


DEFAULT = Rating()


def is_provisional(rating: Rating) -> bool:
    """Too uncertain to show as settled: RD above ``PROVISIONAL_RD``. Pass ``aged(r, now)``
    to count the time since the last race."""
    return rating.rd > PROVISIONAL_RD


def periods_since(rating: Rating, now_ms: int) -> float:
    """Rating periods from the last rated race to ``now_ms`` (never negative)."""
    return max(0, now_ms - rating.at_ms) / RATING_PERIOD_MS


def aged(rating: Rating, now_ms: int) -> Rating:
    """The rating as of ``now_ms``: its RD grown by the time since the last rated race,
    up to ``RD_MAX`` (step 6 for a player who did not play)."""
    return update(rating, [], periods_since(rating, now_ms))


def update(
    player: Rating,
    results: Sequence[tuple[Rating, float]],
    periods: float = 1.0,
    tau: float = TAU,
) -> Rating:
    """``player`` after a rating period with these ``results``: each an opponent's rating at
    the start of the period and the player's score against them (1 won, 0.5 drew, 0 lost).
    ``periods`` is the period's length in ``RATING_PERIOD_MS`` (1 in the paper; the time
    since the player's last race in ``race_updates``). With no results only the RD grows.
    The new RD is kept within ``RD_MIN`` and ``RD_MAX``; ``at_ms`` is left as it was."""
    if not results:
        return replace(player, rd=_grown_rd(player.rd, player.volatility, periods))
    for _, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score is between 0 (lost) and 1 (won), not {score}")
    phi, sigma = player.rd / SCALE, player.volatility
    weighted = []  # (g(phi_j), E(mu, mu_j, phi_j), s_j) for each game
    for opponent, score in results:
        g = 1.0 / math.sqrt(1.0 + 3.0 * (opponent.rd / SCALE) ** 2 / math.pi**2)
        weighted.append((g, expected_score(player, opponent), score))
    # step 3: the estimated variance of the rating from the games alone
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in weighted)
    # step 4: the estimated improvement
    delta = v * sum(g * (s - e) for g, e, s in weighted)
    # step 5: the new volatility
    sigma = new_volatility(phi, sigma, v, delta, tau)
    # steps 6 and 7: the pre-period RD (grown by the periods elapsed), then the new values
    phi_star = _grown_rd(player.rd, sigma, periods) / SCALE
    phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    rise = SCALE * phi**2 * sum(g * (s - e) for g, e, s in weighted)
    # step 8: back to the rating scale
    return replace(
        player,
        rating=player.rating + rise,
        rd=min(max(SCALE * phi, RD_MIN), RD_MAX),
        volatility=sigma,
        games=player.games + len(results),
    )


def expected_score(player: Rating, opponent: Rating) -> float:
    """Glicko-2's E: the score ``player`` is expected to make against ``opponent``."""
    g = 1.0 / math.sqrt(1.0 + 3.0 * (opponent.rd / SCALE) ** 2 / math.pi**2)
    return 1.0 / (1.0 + math.exp(-g * (player.rating - opponent.rating) / SCALE))


def provisional_share(opponent: Rating) -> float:
    """The share (c**2) of a gain that a game against ``opponent`` gives: 0 at ``RD_MAX``,
    1 at ``PROVISIONAL_RD`` and below."""
    c = (RD_MAX - opponent.rd) / (RD_MAX - PROVISIONAL_RD)
    return min(max(c, 0.0), 1.0) ** 2


def guarded_score(
    player: str,
    ratings: tuple[Rating, Rating],
    score: float,
    opponent_run: Run,
    guards: Guards = GUARDS,
) -> float:
    """The score ``player`` (``ratings``: theirs and their opponent's, as of the race) is
    counted as making once the provisional, early-quit and feeder guards apply: only what
    lies above the expected score is limited (a loss counts as it is)."""
    mine, opponent = ratings
    expected = expected_score(mine, opponent)
    if score <= expected:
        return score
    share = provisional_share(opponent) if guards.provisional else 1.0
    if not opponent_run.finished and opponent_run.actions < guards.early_actions:
        share = 0.0
    if guards.feeder_games is not None and opponent.games_against(player) >= guards.feeder_games:
        share = 0.0
    return expected + share * (score - expected)


def daily_capped(before: Rating, after: Rating, day: int, cap: float | None) -> Rating:
    """``after`` (a race's result for a player rated ``before``) with its rise cut so that
    the rating stays within ``cap`` of where it stood before the player's first rated race
    of ``day``; a fall is left as it is. Notes the day's start."""
    start = before.day_start if before.day == day else before.rating
    rating = after.rating
    if cap is not None and rating > before.rating:
        rating = min(rating, max(before.rating, start + cap))
    return replace(after, rating=rating, day=day, day_start=start)


def pairwise(runs: Sequence[Run]) -> dict[str, list[tuple[str, float]]]:
    """Each player's games in a race: every other racer and the player's score against
    them (1 for the better run, 0 for the worse, 0.5 for runs equal on what was played)."""
    players = [run.player for run in runs]
    if len(set(players)) != len(players):
        raise ValueError("a player has two runs in one race")
    games: dict[str, list[tuple[str, float]]] = {player: [] for player in players}
    for run in runs:
        for other in runs:
            if other is not run:
                score = 1.0 if run.better_than(other) else 0.0 if other.better_than(run) else 0.5
                games[run.player].append((other.player, score))
    return games


def race_updates(
    runs: Sequence[Run], ratings: Mapping[str, Rating], now_ms: int, guards: Guards = GUARDS
) -> dict[str, Rating]:
    """The new rating of every racer of a finished race of two or more (``Race.runs()``),
    rated at ``now_ms``: each racer's games (``pairwise``) against the others' ratings as of
    now, in one period that began at their own last race, with the farming ``guards``;
    each keeps this race's opponents (in id order) as its latest in ``recent``. Racers
    missing from ``ratings`` start at ``DEFAULT``. A race of one is not rated: the answer
    is empty."""
    if len(runs) < 2:
        return {}
    before = {run.player: ratings.get(run.player, DEFAULT) for run in runs}
    now = {player: aged(rating, now_ms) for player, rating in before.items()}
    runs_of = {run.player: run for run in runs}
    day = now_ms // RATING_PERIOD_MS
    new = {}
    for player, games in pairwise(runs).items():
        results = [
            (
                now[other],
                guarded_score(player, (now[player], now[other]), score, runs_of[other], guards),
            )
            for other, score in games
        ]
        rated = update(before[player], results, periods_since(before[player], now_ms))
        rated = daily_capped(before[player], rated, day, guards.daily_rise)
        recent = (*before[player].recent, *sorted(other for other, _ in games))[-RECENT_GAMES:]
        new[player] = replace(rated, at_ms=now_ms, recent=recent)
    return new


def _grown_rd(rd: float, volatility: float, periods: float) -> float:
    """Step 6 over ``periods`` periods, on the rating scale: sqrt(RD**2 + periods * (sigma *
    SCALE)**2), at most ``RD_MAX`` (and never below the RD it started from)."""
    return max(rd, min(math.sqrt(rd**2 + periods * (volatility * SCALE) ** 2), RD_MAX))


def new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5, on the Glicko-2 scale: the volatility sigma' whose x = ln(sigma'**2) solves the
    paper's f(x) = 0 to within ``EPSILON``, by the paper's Illinois iteration."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)
