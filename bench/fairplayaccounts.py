"""``solrace bench fairplay --accounts FILE [FILE ...]``: the rule over an account's runs
(``lucky_account``, ``protocol/fairplay_account.py``) on accounts made of the runs that
``solrace bench fairplay --offline DEALS --save FILE`` worked out.

An account of a kind plays one ranked daily run on each of the files' deals (both games),
in a random order, at most ``MOST_RUNS``: on each deal, one of that kind's runs there, drawn
at random. Never two runs on one deal: every player of a day turns up the same hidden
cards, so a deal's luck is shared by all its runs (on the offline bench's deals, honest
players' summed z over one deal ranges from -7 to +7), and an account that met one deal
twice would count its luck twice. Each run is judged as the server judges it: its reveals
summed with those of the account's earlier runs. It prints, per kind, the share of
accounts whose k-th run is flagged (at a few k; and the most at any k), the share of all
their runs flagged, and the share of accounts flagged at least once by their last run;
then a sweep of the rule's two thresholds (runs needed, z needed), to choose them on one
seed's runs and report them on another's. Pure arithmetic on the saved figures: seconds.
"""

from __future__ import annotations

import json
import random
from typing import Any

from protocol.fairplay_account import (
    ACCOUNT_RUNS,
    ACCOUNT_Z,
    combined,
    judged_runs,
    lucky_account,
)
from protocol.fairplay_reveals import Reveals

MOST_RUNS = 40  # an account's runs at most (the server's kept history: 50 races and runs)
ACCOUNTS = 2000  # accounts of each kind
AT_RUNS = (4, 8, 12, 16, 20, 24, 30, 40)  # the runs at which shares are printed (those played)
SWEEP_RUNS = (4, 8, 12)
SWEEP_Z = (2.0, 2.25, 2.5, 2.75, 3.0, 3.5)


Deal = tuple[str, int]  # (game, deal number)
Pools = dict[str, dict[Deal, list[Reveals]]]  # kind -> deal -> its runs' reveals


def load_runs(paths: list[str]) -> Pools:
    """Each kind's runs' reveals in the saved files, by deal."""
    kinds: Pools = {}
    for path in paths:
        with open(path) as saved:
            for run in json.load(saved)["runs"]:
                lucky, expected, variance = run["lucky"]
                deal = (run["game"], run["deal"])
                kinds.setdefault(run["kind"], {}).setdefault(deal, []).append(
                    Reveals(run["blind"], lucky, expected, variance)
                )
    return kinds


def account_zs(pools: dict[Deal, list[Reveals]], seed: int) -> list[list[tuple[int, float | None]]]:
    """``ACCOUNTS`` accounts, each playing the deals of ``pools`` in a random order (at most
    ``MOST_RUNS``), one run drawn from each deal's: at each run, how many of its runs so
    far count and their summed z (two decimals, as a review keeps it)."""
    rng = random.Random(seed)
    deals = sorted(pools)
    accounts = []
    for _ in range(ACCOUNTS):
        played: list[Reveals] = []
        figures = []
        for deal in rng.sample(deals, min(MOST_RUNS, len(deals))):
            played.append(rng.choice(pools[deal]))
            counted = judged_runs(played)
            z = combined(counted).z()
            figures.append((len(counted), round(z, 2) if z is not None else None))
        accounts.append(figures)
    return accounts


def shares(
    accounts: list[list[tuple[int, float | None]]], runs_needed: int, z_needed: float
) -> dict[str, Any]:
    """Flagged by the rule with these thresholds: the share of accounts' k-th runs (for k
    in ``AT_RUNS``), of all their runs, and of accounts flagged at least once by run k."""
    marks = [
        [lucky_account(counted, z, runs_needed, z_needed) for counted, z in account]
        for account in accounts
    ]
    count, runs = len(marks), len(marks[0])
    at_run = [sum(m[k] for m in marks) / count for k in range(runs)]
    return {
        "runs": runs,
        "at_run": {k: at_run[k - 1] for k in AT_RUNS if k <= runs},
        "most_at_a_run": max(at_run),
        "ever_by": sum(any(m) for m in marks) / count,
        "all_runs": sum(map(sum, marks)) / (count * runs),
    }


def measure_accounts(paths: list[str], seed: int) -> dict[str, Any]:
    """The rule's shares per kind, and the sweep of its thresholds (honest, knowers)."""
    kinds = load_runs(paths)
    zs = {
        kind: account_zs(pools, seed * 7_919 + i) for i, (kind, pools) in enumerate(kinds.items())
    }
    sweep = {
        f"{runs} runs, z {z}": {kind: shares(zs[kind], runs, z) for kind in ("honest", "knower")}
        for runs in SWEEP_RUNS
        for z in SWEEP_Z
    }
    return {
        "files": paths,
        "runs": {kind: sum(map(len, pools.values())) for kind, pools in kinds.items()},
        "deals": len({deal for pools in kinds.values() for deal in pools}),
        "rule": {"runs_needed": ACCOUNT_RUNS, "z_needed": ACCOUNT_Z},
        "kinds": {kind: shares(zs[kind], ACCOUNT_RUNS, ACCOUNT_Z) for kind in zs},
        "sweep": sweep,
    }


def print_accounts(result: dict[str, Any]) -> None:
    """The report: the rule's shares per kind, then the sweep."""
    pools = ", ".join(f"{kind} {count}" for kind, count in result["runs"].items())
    print(f"runs drawn from {' '.join(result['files'])}: {result['deals']} deals; {pools}")
    rule = result["rule"]
    runs = next(iter(result["kinds"].values()))["runs"]
    print(
        f"{ACCOUNTS} accounts a kind, {runs} ranked runs each, one a deal; the rule: at least "
        f"{rule['runs_needed']} runs that count, z at least {rule['z_needed']}"
    )
    heads = " ".join(f"{k:>6}" for k in AT_RUNS if k <= runs)
    print(f"share of accounts' k-th runs flagged, k = {heads}   all runs  most  ever")
    for kind, row in result["kinds"].items():
        print(f"  {kind:8} {' ' * 24}" + share_row(row))
    print("sweep (honest / knower): share of k-th runs flagged; all runs; ever by the last")
    for name, rows in result["sweep"].items():
        for kind, row in rows.items():
            print(f"  {name:16} {kind:8} {' ' * 14}" + share_row(row))


def share_row(row: dict[str, Any]) -> str:
    at = " ".join(f"{share:>6.1%}" for share in row["at_run"].values())
    most, ever = row["most_at_a_run"], row["ever_by"]
    return f"{at}   {row['all_runs']:>6.2%} {most:>6.2%}  {ever:>6.1%}"
