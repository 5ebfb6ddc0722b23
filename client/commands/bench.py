"""``solrace bench engine|server``: benchmarks that print figures (never timed tests)."""

from __future__ import annotations

import argparse
import json
import random
import time

from protocol.engine import Rules
from protocol.games import GAMES, rules_for
from protocol.notation import UNDO, Action


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", choices=["engine"], help="what to measure")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game (engine)")
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--seed", type=int, default=1, help="seed of the random playouts")
    parser.add_argument("--json", action="store_true", help="print JSON")


def measure_engine(rules: Rules, seconds: float, seed: int) -> dict[str, float]:
    """Random playouts of 400 actions from deals 1, 2, ...: applied (validated) actions per
    second and full legal-action enumerations per second, timed apart."""
    rng = random.Random(seed)
    apply_time = enumerate_time = 0.0
    applied = enumerated = 0
    clock = time.perf_counter
    deal = 0
    while apply_time + enumerate_time < seconds:
        deal += 1
        state = rules.start(deal)
        for _ in range(400):
            t0 = clock()
            legal = rules.legal_actions(state)
            t1 = clock()
            enumerate_time += t1 - t0
            enumerated += 1
            choices: list[Action] = [a for a in legal if a is not UNDO]
            if not choices:
                break
            action = rng.choice(choices)
            t0 = clock()
            state = rules.apply(state, action).state
            apply_time += clock() - t0
            applied += 1
    return {
        "apply_per_s": round(applied / apply_time),
        "enumerate_per_s": round(enumerated / enumerate_time),
    }


def run(args: argparse.Namespace) -> int:
    figures = {
        game: measure_engine(rules_for(game), args.seconds, args.seed) for game in args.games
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{'game':22} {'actions applied/s':>18} {'enumerations/s':>15}")
        for game, row in figures.items():
            print(f"{game:22} {row['apply_per_s']:>18,} {row['enumerate_per_s']:>15,}")
    return 0
