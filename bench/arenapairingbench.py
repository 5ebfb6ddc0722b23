"""``solrace bench arena-pairing``: the time of one arena pairing wave (``pair_wave``,
``protocol/arena_pairing.py``), pure, on one core, for a whole field idle at once (the
arena's first wave, the worst case), wave after wave.

``players`` players get ratings from a normal distribution (``RATING_MEAN`` ± ``RATING_SD``)
and points from a few heats' worth, ranked by them; each wave all of them are idle, idle
for 0 to 30 s (so some take their breather and some may meet a last opponent again), and
their last opponents are the previous wave's heats. The figures per heat size: the wave's
time (p50, p95, max over ``waves`` waves, after one wave not counted), heats, players left
waiting and heats with a repeat. Heats of 2 are also timed with the whole field in one
graph (two waves; none with ``--quick``), the figure behind the bands of 50.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from protocol.arena_pairing import BAND, Idle, PairingRule, pair_wave

RATING_MEAN = 1500.0
RATING_SD = 300.0
NOW = 10**12


def measure(players: int, waves: int, seed: int, rule: PairingRule) -> dict[str, Any]:
    """The figures of ``waves`` waves (after one not counted) of ``players`` players."""
    chance = random.Random(seed)
    names = [f"p{i:012x}" for i in range(players)]
    ratings = {name: chance.gauss(RATING_MEAN, RATING_SD) for name in names}
    last: dict[str, frozenset[str]] = {}
    times, heats, waiting, repeats = [], [], [], []
    for wave in range(waves + 1):
        points = {name: chance.randrange(0, 4 * (wave + 1)) for name in names}
        ranks = {p: 1 + sum(q > points[p] for q in points.values()) for p in names}
        idle = [
            Idle(
                name,
                ranks[name],
                ratings[name],
                NOW - chance.randrange(0, 30_000),
                last.get(name, frozenset()),
            )
            for name in names
        ]
        chance.shuffle(idle)
        started = time.process_time()
        result = pair_wave(idle, rule, NOW)
        elapsed = (time.process_time() - started) * 1000
        last = {player: frozenset(heat) - {player} for heat in result.heats for player in heat}
        if wave:
            times.append(elapsed)
            heats.append(len(result.heats))
            waiting.append(len(result.waiting))
            repeats.append(result.repeats)
    return {
        "heat_size": rule.heat_size,
        "band": rule.band,
        "players": players,
        "waves": waves,
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(_p95(times), 1),
        "max_ms": round(max(times), 1),
        "heats": round(statistics.mean(heats), 1),
        "waiting": round(statistics.mean(waiting), 1),
        "repeats": round(statistics.mean(repeats), 2),
    }


def run_arena_pairing(players: int, waves: int, one_graph: int, seed: int) -> list[dict[str, Any]]:
    """Heats of 2 in bands, of 2 in one graph (when ``one_graph`` waves), of 3, of 4."""
    rows = [{"method": f"bands of {BAND}", **measure(players, waves, seed, PairingRule(2))}]
    if one_graph:
        whole = PairingRule(2, band=max(players, BAND))
        rows.append({"method": "one graph", **measure(players, one_graph, seed, whole)})
    for size in (3, 4):
        rows.append({"method": "cut in order", **measure(players, waves, seed, PairingRule(size))})
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    first = rows[0]
    print(f"arena pairing waves: {first['players']:,} idle players a wave, pure, one core")
    print(f"{'heats of':>8} {'method':>16} {'waves':>6} {'p50 ms':>8} {'p95 ms':>8} "
          f"{'max ms':>8} {'heats':>7} {'waiting':>8} {'repeats':>8}")  # fmt: skip
    for row in rows:
        print(
            f"{row['heat_size']:>8} {row['method']:>16} {row['waves']:>6} {row['p50_ms']:>8} "
            f"{row['p95_ms']:>8} {row['max_ms']:>8} {row['heats']:>7} {row['waiting']:>8} "
            f"{row['repeats']:>8}"
        )


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
