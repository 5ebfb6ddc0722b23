"""``solrace bench pairing``: the quick-pairing pools (``protocol/pairing.py``) under a
simulated load, in simulated time (no server, no clock: seconds of load run in a moment).

``players`` players arrive over ``seconds`` as a Poisson process (exponential gaps at
players/seconds a second), each with a rating drawn from a normal distribution
(``RATING_MEAN`` ± ``RATING_SD``) and a game drawn uniformly from ``games``. The pools pair
every ``tick_ms`` (a player joins at their arrival; pairs are made at the next tick). After
the last arrival the ticks go on until the pools are empty or until everyone left has
waited long enough to accept any rating, when nobody more can be paired (the odd one out
of a game). The figures are each player's wait (join to pair) and each pair's rating gap,
per game and in all; and the CPU time the pairing took per tick.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from protocol.pairing import WINDOW, Pair, Pools, Waiting, Window

RATING_MEAN = 1500.0
RATING_SD = 300.0


@dataclass
class Simulation:
    """What happened: every pair with the time it was made, and who was left waiting."""

    players: dict[str, int] = field(default_factory=dict)  # game -> players who came
    pairs: list[tuple[Pair, int]] = field(default_factory=list)  # (pair, made at ms)
    left: list[tuple[str, Waiting]] = field(default_factory=list)  # (game, entry)
    ended_ms: int = 0
    ticks: int = 0
    pair_cpu_s: float = 0.0
    slowest_tick_s: float = 0.0


def arrivals(
    players: int, seconds: float, games: list[str], seed: int
) -> list[tuple[int, str, str, float]]:
    """(arrival ms, player, game, rating) for every player, in arrival order."""
    rng = random.Random(seed)
    rate_per_ms = players / (seconds * 1000)
    at = 0.0
    rows = []
    for i in range(players):
        at += rng.expovariate(rate_per_ms)
        rows.append((int(at), f"p{i:05}", rng.choice(games), rng.gauss(RATING_MEAN, RATING_SD)))
    return rows


def simulate(
    players: int,
    seconds: float,
    tick_ms: int,
    games: list[str],
    seed: int,
    window: Window = WINDOW,
) -> Simulation:
    """Run the load through a ``Pools`` (see the module's docstring)."""
    coming = arrivals(players, seconds, games, seed)
    last_arrival = coming[-1][0] if coming else 0
    pools, result = Pools(window), Simulation()
    next_arrival, now = 0, 0
    while True:
        now += tick_ms
        while next_arrival < len(coming) and coming[next_arrival][0] <= now:
            at, player, game, rating = coming[next_arrival]
            pools.join(player, game, rating, at)
            result.players[game] = result.players.get(game, 0) + 1
            next_arrival += 1
        started = time.process_time()
        made = pools.pair(now)
        spent = time.process_time() - started
        result.ticks += 1
        result.pair_cpu_s += spent
        result.slowest_tick_s = max(result.slowest_tick_s, spent)
        result.pairs += [(pair, now) for pair in made]
        everyone_came = next_arrival == len(coming)
        if everyone_came and (not len(pools) or now >= last_arrival + window.unlimited_after_ms):
            break
    result.ended_ms = now
    result.left = [
        (game, entry) for game in sorted(result.players) for entry in pools.waiting(game)
    ]
    return result


def _spread(values: list[float]) -> dict[str, float]:
    """Median, 90th percentile and maximum (0 for none)."""
    if not values:
        return {"median": 0.0, "p90": 0.0, "max": 0.0}
    p90 = (
        values[0] if len(values) < 2 else statistics.quantiles(values, n=10, method="inclusive")[-1]
    )
    return {
        "median": round(statistics.median(values), 1),
        "p90": round(p90, 1),
        "max": round(max(values), 1),
    }


def _figures(pairs: list[tuple[Pair, int]], players: int, left: int) -> dict[str, Any]:
    waits = [
        float(at - entry.joined_ms) for pair, at in pairs for entry in (pair.first, pair.second)
    ]
    gaps = [abs(pair.first.rating - pair.second.rating) for pair, _ in pairs]
    return {
        "players": players,
        "pairs": len(pairs),
        "left": left,
        "wait_ms": _spread(waits),
        "gap": _spread(gaps),
    }


def summary(sim: Simulation, options: dict[str, Any]) -> dict[str, Any]:
    """The figures of ``sim``, JSON-ready."""
    games = {
        game: _figures(
            [(pair, at) for pair, at in sim.pairs if pair.game == game],
            count,
            sum(1 for g, _ in sim.left if g == game),
        )
        for game, count in sorted(sim.players.items())
    }
    return {
        "options": options,
        "games": games,
        "all": _figures(sim.pairs, sum(sim.players.values()), len(sim.left)),
        "left": [
            {"game": game, "player": e.player, "rating": round(e.rating), "joined_ms": e.joined_ms}
            for game, e in sim.left
        ],
        "ended_ms": sim.ended_ms,
        "ticks": sim.ticks,
        "pair_cpu_ms_per_tick": round(sim.pair_cpu_s * 1000 / max(1, sim.ticks), 3),
        "slowest_tick_ms": round(sim.slowest_tick_s * 1000, 3),
    }


def run_pairing(options: dict[str, Any]) -> dict[str, Any]:
    sim = simulate(
        options["players"],
        options["seconds"],
        options["tick_ms"],
        options["games"],
        options["seed"],
    )
    return summary(sim, options)


def print_table(result: dict[str, Any]) -> None:
    options = result["options"]
    print(
        f"{options['players']} players over {options['seconds']:g} s (simulated), pools paired "
        f"every {options['tick_ms']} ms; ended at {result['ended_ms'] / 1000:g} s"
    )
    print(
        f"{'game':20} {'players':>7} {'pairs':>6} {'left':>5} "
        f"{'wait median':>11} {'p90':>7} {'max':>7} {'gap median':>10} {'p90':>6} {'max':>6}"
    )
    for name, row in [*result["games"].items(), ("all", result["all"])]:
        wait, gap = row["wait_ms"], row["gap"]
        print(
            f"{name:20} {row['players']:>7} {row['pairs']:>6} {row['left']:>5} "
            f"{wait['median'] / 1000:>10.2f}s {wait['p90'] / 1000:>6.2f}s "
            f"{wait['max'] / 1000:>6.2f}s {gap['median']:>10.0f} {gap['p90']:>6.0f} "
            f"{gap['max']:>6.0f}"
        )
    for entry in result["left"]:
        print(
            f"left waiting: {entry['player']} ({entry['game']}, rating {entry['rating']}, "
            f"joined at {entry['joined_ms'] / 1000:g} s): the odd one out"
        )
    print(
        f"pairing CPU: {result['pair_cpu_ms_per_tick']} ms a tick on average, "
        f"{result['slowest_tick_ms']} ms at most"
    )
