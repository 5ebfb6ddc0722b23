"""``solrace bench fairplay --accounts FILE [FILE ...]``: the rule over an account's runs
(``lucky_account``, ``protocol/fairplay_account.py``) on accounts made of the runs that
``solrace bench fairplay --offline DEALS --save FILE`` worked out.

An account of a kind plays ``RUNS`` ranked daily runs in turn, each drawn at random (with
replacement) from that kind's runs in the files, over every deal of both games: the
offline bench plays each deal once per player, so an account's many days are drawn from
its kind's runs as if each day's deal were a new one. Each run is judged as the server
judges it: its reveals summed with those of the account's earlier runs. It prints, per
kind, the share of accounts whose k-th run is flagged (at a few k; and the most at any k
up to ``RUNS``), the share of all their runs flagged, and the share of accounts flagged at
least once by their last run; then a
sweep of the rule's two thresholds (runs needed, z needed), to choose them on one seed's
runs and report them on another's. Pure arithmetic on the saved figures: seconds.
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

RUNS = 40  # an account's runs (the server's kept history holds 50 races and runs)
ACCOUNTS = 2000  # accounts of each kind
AT_RUNS = (8, 12, 16, 20, 24, 30, 40)  # the runs at which shares are printed
SWEEP_RUNS = (8, 12, 16, 20)
SWEEP_Z = (2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 4.0)


def load_runs(paths: list[str]) -> dict[str, list[Reveals]]:
    """Each kind's runs' reveals in the saved files."""
    kinds: dict[str, list[Reveals]] = {}
    for path in paths:
        with open(path) as saved:
            for run in json.load(saved)["runs"]:
                lucky, expected, variance = run["lucky"]
                kinds.setdefault(run["kind"], []).append(
                    Reveals(run["blind"], lucky, expected, variance)
                )
    return kinds


def account_zs(pool: list[Reveals], seed: int) -> list[list[tuple[int, float | None]]]:
    """``ACCOUNTS`` accounts of ``RUNS`` runs drawn from ``pool``: at each run, how many
    of its runs so far count and their summed z (two decimals, as a review keeps it)."""
    rng = random.Random(seed)
    accounts = []
    for _ in range(ACCOUNTS):
        played: list[Reveals] = []
        figures = []
        for _ in range(RUNS):
            played.append(rng.choice(pool))
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
    count = len(marks)
    at_run = [sum(m[k] for m in marks) / count for k in range(RUNS)]
    return {
        "at_run": {k: at_run[k - 1] for k in AT_RUNS},
        "most_at_a_run": max(at_run),
        "ever_by": {k: sum(any(m[:k]) for m in marks) / count for k in AT_RUNS},
        "all_runs": sum(map(sum, marks)) / (count * RUNS),
    }


def measure_accounts(paths: list[str], seed: int) -> dict[str, Any]:
    """The rule's shares per kind, and the sweep of its thresholds (honest, knowers)."""
    kinds = load_runs(paths)
    zs = {kind: account_zs(pool, seed * 7_919 + i) for i, (kind, pool) in enumerate(kinds.items())}
    sweep = {
        f"{runs} runs, z {z}": {kind: shares(zs[kind], runs, z) for kind in ("honest", "knower")}
        for runs in SWEEP_RUNS
        for z in SWEEP_Z
    }
    return {
        "files": paths,
        "runs": {kind: len(pool) for kind, pool in kinds.items()},
        "rule": {"runs_needed": ACCOUNT_RUNS, "z_needed": ACCOUNT_Z},
        "kinds": {kind: shares(zs[kind], ACCOUNT_RUNS, ACCOUNT_Z) for kind in zs},
        "sweep": sweep,
    }


def print_accounts(result: dict[str, Any]) -> None:
    """The report: the rule's shares per kind, then the sweep."""
    pools = ", ".join(f"{kind} {count}" for kind, count in result["runs"].items())
    print(f"runs drawn from {' '.join(result['files'])}: {pools}")
    rule = result["rule"]
    print(
        f"{ACCOUNTS} accounts a kind, {RUNS} ranked runs each; the rule: at least "
        f"{rule['runs_needed']} runs that count, z at least {rule['z_needed']}"
    )
    heads = " ".join(f"{k:>6}" for k in AT_RUNS)
    print(f"share of accounts' k-th runs flagged, k = {heads}   all runs  most  ever by {RUNS}")
    for kind, row in result["kinds"].items():
        print(f"  {kind:8} {' ' * 24}" + share_row(row))
    print("sweep (honest / knower): share of k-th runs flagged; all runs; ever by the last")
    for name, rows in result["sweep"].items():
        for kind, row in rows.items():
            print(f"  {name:16} {kind:8} {' ' * 14}" + share_row(row))


def share_row(row: dict[str, Any]) -> str:
    at = " ".join(f"{share:>6.1%}" for share in row["at_run"].values())
    most, ever = row["most_at_a_run"], row["ever_by"][RUNS]
    return f"{at}   {row['all_runs']:>6.2%} {most:>6.2%}  {ever:>6.1%}"
