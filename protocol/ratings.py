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
"""

from __future__ import annotations

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


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one game: the estimate, its deviation (RD), the volatility, the
    rated games played (each opponent in a race is one), and when it was last rated."""

    rating: float = 1500.0
    rd: float = RD_MAX
    volatility: float = 0.06
    games: int = 0
    at_ms: int = 0  # wall clock (epoch ms) of the last rated race; 0 = never rated

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields, for storage."""
        return {
            "rating": self.rating,
            "rd": self.rd,
            "volatility": self.volatility,
            "games": self.games,
            "at_ms": self.at_ms,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        """The rating ``as_dict`` wrote; numbers may come as strings (a Redis hash's)."""
        return cls(
            rating=float(data["rating"]),
            rd=float(data["rd"]),
            volatility=float(data["volatility"]),
            games=int(data["games"]),
            at_ms=int(data["at_ms"]),
        )


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
    mu, phi, sigma = (player.rating - 1500.0) / SCALE, player.rd / SCALE, player.volatility
    weighted = []  # (g(phi_j), E(mu, mu_j, phi_j), s_j) for each game
    for opponent, score in results:
        g = 1.0 / math.sqrt(1.0 + 3.0 * (opponent.rd / SCALE) ** 2 / math.pi**2)
        expected = 1.0 / (1.0 + math.exp(-g * (mu - (opponent.rating - 1500.0) / SCALE)))
        weighted.append((g, expected, score))
    # step 3: the estimated variance of the rating from the games alone
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in weighted)
    # step 4: the estimated improvement
    delta = v * sum(g * (s - e) for g, e, s in weighted)
    # step 5: the new volatility
    sigma = new_volatility(phi, sigma, v, delta, tau)
    # steps 6 and 7: the pre-period RD (grown by the periods elapsed), then the new values
    phi_star = _grown_rd(player.rd, sigma, periods) / SCALE
    phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    mu = mu + phi**2 * sum(g * (s - e) for g, e, s in weighted)
    # step 8: back to the rating scale
    return replace(
        player,
        rating=SCALE * mu + 1500.0,
        rd=min(max(SCALE * phi, RD_MIN), RD_MAX),
        volatility=sigma,
        games=player.games + len(results),
    )


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
    runs: Sequence[Run], ratings: Mapping[str, Rating], now_ms: int
) -> dict[str, Rating]:
    """The new rating of every racer of a finished race of two or more (``Race.runs()``),
    rated at ``now_ms``: each racer's games (``pairwise``) against the others' ratings as of
    now, in one period that began at their own last race. Racers missing from ``ratings``
    start at ``DEFAULT``. A race of one is not rated: the answer is empty."""
    if len(runs) < 2:
        return {}
    before = {run.player: ratings.get(run.player, DEFAULT) for run in runs}
    now = {player: aged(rating, now_ms) for player, rating in before.items()}
    return {
        player: replace(
            update(
                before[player],
                [(now[other], score) for other, score in games],
                periods_since(before[player], now_ms),
            ),
            at_ms=now_ms,
        )
        for player, games in pairwise(runs).items()
    }


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
