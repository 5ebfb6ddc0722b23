"""``solrace bench fairplay --offline``: the fair-play rule and the clairvoyance signal
(``protocol/fairplay_reveals.py``) on the bench's population, worked out without a server.

For each game, ``deals`` deals the solver wins within the server's budget (the server's
line for each); on each, ``honest`` honest players, 4 bots, 4 cheaters on the server's
line (the four speeds, detours drawn from the bench's), 4 knowers on lines of their own
and 4 lucky players (``bench/fairplaypeople.py``). Each plan's actions are given the
times it planned (its think times, no server), and its signals computed as the server's
review does: the rule's reasons, and the reveals (blind reveals, useful ones, their
expectation and z). It prints, per kind, the share flagged by the rule and why, how much
of the server's line each kind kept, the reveals' z at its tenths (of a run, and summed over
an account's runs: the plans of one index of the kind, one on each deal), and the share of
each kind a reveals rule would flag at each of a few thresholds; and the review's cost (signals,
reveals, reasons and evidence of one run, process CPU time). One process, in order: run it
niced on a shared machine.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from typing import Any

from bench.fairplaybench import solvable_deal
from bench.fairplaypeople import (
    BOT,
    CHEATER,
    CHEATER_MEDIANS_MS,
    DETOURS,
    HONEST,
    KNOWER,
    LUCKY,
    Plan,
    bot,
    cheater,
    honest,
    knower,
    lucky,
)
from protocol.fairplay import evidence, reasons, signals_of
from protocol.fairplay_line import line_match
from protocol.fairplay_order import line_order
from protocol.fairplay_reveals import reveals_of
from protocol.games import rules_for

GAMES = ("mount_sunflower_easy", "mount_sunflower")
KINDS = (HONEST, CHEATER, BOT, KNOWER, LUCKY)
OTHERS_PER_DEAL = 4  # bots, cheaters, knowers and lucky players per deal
Z_THRESHOLDS = (2.0, 2.5, 3.0, 3.5)  # a reveals rule tried: z at least this ...
BLIND_NEEDED = (5, 10)  # ... over at least this many blind reveals


def plans_for(
    game: str,
    number: int,
    line: tuple[str, ...],
    honest_n: int,
    seed: int,
    knowers: int = OTHERS_PER_DEAL,
) -> list[Plan]:
    """Every player's plan on deal ``number`` of ``game`` (``knowers`` knowers, the
    cheaters' speeds in turn)."""
    rules, rng = rules_for(game), random.Random(seed)
    start = rules.deal(number)
    plans = [honest(rules, start, rng) for _ in range(honest_n)]
    plans += [bot(rules, start, rng) for _ in range(OTHERS_PER_DEAL)]
    for index, median in enumerate(CHEATER_MEDIANS_MS):  # every other one trades moves
        detours, trades = rng.choice(DETOURS), index % 2 == 1
        plans.append(cheater(rules, start, list(line), rng, median, detours, trades))
    speeds = CHEATER_MEDIANS_MS
    plans += [knower(rules, start, list(line), rng, speeds[i % 4]) for i in range(knowers)]
    plans += [lucky(rules, start, rng) for _ in range(OTHERS_PER_DEAL)]
    return plans


def judged(game: str, number: int, line: tuple[str, ...], plan: Plan) -> dict[str, Any]:
    """One plan's review as the server would make it (times as planned), and its cost."""
    rules = rules_for(game)
    entries, at = [], 0
    for action, think_ms in plan.steps:
        at += think_ms
        entries.append((action, at))
    began = time.process_time()
    seen = reveals_of(rules, rules.deal(number), [action for action, _ in entries])
    order = line_order(rules, rules.start(number), line)
    signals = signals_of(entries, plan.won, at, line, reveals=seen, order=order)
    why = reasons(signals)
    evidence(signals)
    cost = time.process_time() - began
    return {
        "kind": plan.kind,
        "lucky": (seen.lucky, seen.expected, seen.variance),
        "won": plan.won,
        "reasons": why,
        "kept_share": line_match([a for a, _ in entries], line, order).kept / len(line),
        "blind": seen.blind,
        "z": seen.z(),
        "cost_s": cost,
    }


def measure_offline(
    deals: int, honest_n: int, seed: int, knowers: int = OTHERS_PER_DEAL, save: str | None = None
) -> dict[str, Any]:
    """Every kind's figures over ``deals`` deals of each game, ``honest_n`` honest and
    ``knowers`` knowers a deal; ``save``: a file the runs' figures are written to (JSON),
    for ``solrace bench fairplay --accounts``."""
    rng = random.Random(seed)
    runs: list[dict[str, Any]] = []
    chosen: dict[str, list[int]] = {}
    began = time.monotonic()
    for game in GAMES:
        for index in range(deals):
            number, line = solvable_deal(game, rng)
            chosen.setdefault(game, []).append(number)
            counts: dict[str, int] = {}
            for plan in plans_for(game, number, line, honest_n, seed * 1_000 + index, knowers):
                run = {**judged(game, number, line, plan), "game": game, "deal": number}
                run["player"] = counts[plan.kind] = counts.get(plan.kind, -1) + 1
                runs.append(run)
    costs = sorted(run["cost_s"] for run in runs)
    if save is not None:
        with open(save, "w") as out:
            json.dump({"seed": seed, "runs": runs}, out)
    return {
        "deals": chosen,
        "seconds": round(time.monotonic() - began, 1),
        "kinds": {kind: kind_figures([r for r in runs if r["kind"] == kind]) for kind in KINDS},
        "review_cpu_p95_ms": round(costs[int(0.95 * (len(costs) - 1))] * 1000, 2),
        "review_cpu_max_ms": round(costs[-1] * 1000, 2),
    }


def kind_figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One kind's runs: won, flagged by the rule (and why), line kept, reveals, trials."""
    why: dict[str, int] = {}
    for run in runs:
        for reason in run["reasons"]:
            why[reason] = why.get(reason, 0) + 1
    zs = sorted(run["z"] if run["z"] is not None else 0.0 for run in runs)
    kept = [run["kept_share"] for run in runs]
    trials = {
        f"z>={z} over >={n}": sum(1 for r in runs if r["blind"] >= n and (r["z"] or 0.0) >= z)
        for n in BLIND_NEEDED
        for z in Z_THRESHOLDS
    }
    return {
        "runs": len(runs),
        "won": sum(run["won"] for run in runs),
        "flagged": sum(1 for run in runs if run["reasons"]),
        "reasons": dict(sorted(why.items())),
        "kept_mean": round(statistics.fmean(kept), 3) if kept else 0.0,
        "kept_max": round(max(kept, default=0.0), 3),
        "kept_won_max": round(max((r["kept_share"] for r in runs if r["won"]), default=0.0), 3),
        "blind_mean": round(statistics.fmean(r["blind"] for r in runs), 1) if runs else 0.0,
        "z_tenths": [round(z, 2) for z in tenths(zs)],
        "trials": trials,
        "accounts": len(accounts := account_zs(runs)),
        "account_z": [round(z, 2) for z in tenths(accounts)],
    }


def account_zs(runs: list[dict[str, Any]]) -> list[float]:
    """The reveals' z summed over an account's runs, sorted: an account is the plans of
    one index of the kind, one on every deal (so as many runs as deals)."""
    accounts: dict[int, list[tuple[int, float, float]]] = {}
    for run in runs:
        accounts.setdefault(run["player"], []).append(run["lucky"])
    zs = []
    for played in accounts.values():
        variance = sum(v for _, _, v in played)
        if variance > 0:
            zs.append((sum(u for u, _, _ in played) - sum(e for _, e, _ in played)) / variance**0.5)
    return sorted(zs)


def tenths(values: list[float]) -> list[float]:
    """The least, p10, p50, p90, p99 and the most of sorted ``values``."""
    if not values:
        return []
    return [values[int(q * (len(values) - 1))] for q in (0.0, 0.1, 0.5, 0.9, 0.99, 1.0)]


def print_offline(result: dict[str, Any]) -> None:
    """The report: per kind, flagged by the rule, line kept, reveals' z, the trials."""
    for game, numbers in result["deals"].items():
        print(f"{game}: deals {', '.join(map(str, numbers))}")
    print(f"worked out in {result['seconds']} s; times as planned, no server")
    print(f"{'kind':8} {'runs':>5} {'won':>4} {'flagged':>8}  line kept mean/max/max won  reasons")
    kinds = result["kinds"]
    for kind, row in kinds.items():
        share = row["flagged"] / row["runs"] if row["runs"] else 0.0
        why = ", ".join(f"{reason} {count}" for reason, count in row["reasons"].items())
        print(
            f"{kind:8} {row['runs']:>5} {row['won']:>4} {row['flagged']:>4} {share:>6.1%}  "
            f"{row['kept_mean']:.2f}/{row['kept_max']:.2f}/{row['kept_won_max']:.2f}  {why}"
        )
    print("reveals: blind reveals a run (mean); z at least, p10, p50, p90, p99, most")
    for kind, row in kinds.items():
        print(f"  {kind:8} {row['blind_mean']:>5}  " + " ".join(f"{z:>6}" for z in row["z_tenths"]))
    print("reveals summed over an account's runs, one on each deal: accounts; z as above")
    for kind, row in kinds.items():
        print(f"  {kind:8} {row['accounts']:>5}  " + " ".join(f"{z:>6}" for z in row["account_z"]))
    print("a reveals rule tried (share of each kind it would flag):")
    for trial in kinds[HONEST]["trials"]:
        shares = ", ".join(
            f"{kind} {row['trials'][trial] / row['runs']:.1%}" if row["runs"] else f"{kind} -"
            for kind, row in kinds.items()
        )
        print(f"  {trial:18} {shares}")
    print(
        f"review, one core: p95 {result['review_cpu_p95_ms']} ms, "
        f"most {result['review_cpu_max_ms']} ms"
    )
