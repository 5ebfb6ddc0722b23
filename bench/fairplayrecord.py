"""The rule over an account's record (``beyond_record``, ``protocol/fairplay_record.py``)
on accounts made of the runs ``solrace bench fairplay --offline DEALS --save FILE`` worked
out, printed by ``solrace bench fairplay --accounts FILE [FILE ...]`` after the reveals'.

Each account of a kind has a record of ``races`` races the server dealt it, played as an
honest player plays a deal it meets blind: each one an honest run drawn at random from the
files (whether it finished is what counts); then it plays one ranked daily run on each of
the files' deals in a random order, one of its kind's runs there drawn at random, as
``bench/fairplayaccounts.py`` does. A knower is honest in its races (nobody knows a race's
deal ahead) and knows every daily deal. Each daily run is judged as the server judges it:
against the record and the account's daily runs so far, this one included. It prints, per
kind and record length, the share of accounts' k-th runs flagged, of all their runs, and
of accounts flagged at least once. Not modelled: players of different skill (every
account here finishes its races as often as the files' honest players, 1 to 7 in 100) and
an honest player who finishes their dailies more often than their races (more care, an
easier deal): both are judged against their own record on the server.
"""

from __future__ import annotations

import json
import random
from typing import Any

from protocol.fairplay_record import Record, beyond_record

ACCOUNTS = 2000  # accounts of each kind
MOST_RUNS = 40  # daily runs at most, one a deal
RECORD_LENGTHS = (10, 20, 40)  # dealt races in an account's record
AT_RUNS = (2, 3, 4, 8, 12, 16, 20, 24)

Deal = tuple[str, int]


def load_finishes(paths: list[str]) -> dict[str, dict[Deal, list[bool]]]:
    """Each kind's runs, by deal: whether each finished (won)."""
    kinds: dict[str, dict[Deal, list[bool]]] = {}
    for path in paths:
        with open(path) as saved:
            for run in json.load(saved)["runs"]:
                deal = (run["game"], run["deal"])
                kinds.setdefault(run["kind"], {}).setdefault(deal, []).append(bool(run["won"]))
    return kinds


def account_marks(
    blind: list[bool], dailies: dict[Deal, list[bool]], races: int, rng: random.Random
) -> list[bool]:
    """One account: its record drawn from ``blind``, then a daily run on each deal of
    ``dailies`` in a random order; whether each daily run is flagged."""
    finished = sum(rng.choice(blind) for _ in range(races))
    marks, runs, runs_finished = [], 0, 0
    for deal in rng.sample(sorted(dailies), min(MOST_RUNS, len(dailies))):
        won = rng.choice(dailies[deal])
        runs, runs_finished = runs + 1, runs_finished + won
        marks.append(beyond_record(won, Record(races, finished, runs, runs_finished)))
    return marks


def record_shares(paths: list[str], seed: int) -> dict[str, Any]:
    """Per record length and kind (honest, knower): the shares flagged."""
    kinds = load_finishes(paths)
    blind = [won for runs in kinds["honest"].values() for won in runs]
    result: dict[str, Any] = {
        "finished": {
            kind: round(sum(map(sum, pools.values())) / sum(map(len, pools.values())), 4)
            for kind, pools in kinds.items()
        },
        "lengths": {},
    }
    for races in RECORD_LENGTHS:
        rows = {}
        for index, kind in enumerate(("honest", "knower")):
            rng = random.Random(seed * 7_919 + races * 31 + index)
            marks = [account_marks(blind, kinds[kind], races, rng) for _ in range(ACCOUNTS)]
            runs = len(marks[0])
            at_run = [sum(m[k] for m in marks) / ACCOUNTS for k in range(runs)]
            rows[kind] = {
                "runs": runs,
                "at_run": {k: at_run[k - 1] for k in AT_RUNS if k <= runs},
                "all_runs": sum(map(sum, marks)) / (ACCOUNTS * runs),
                "ever_by": sum(any(m) for m in marks) / ACCOUNTS,
            }
        result["lengths"][races] = rows
    return result


def print_record(result: dict[str, Any]) -> None:
    finished = ", ".join(f"{kind} {share:.1%}" for kind, share in result["finished"].items())
    print(f"beyond_record: runs finished per kind in the files: {finished}")
    first = next(iter(result["lengths"].values()))["honest"]
    heads = " ".join(f"{k:>6}" for k in first["at_run"])
    print(f"share of accounts' k-th daily runs flagged, k = {heads}   all runs   ever")
    for races, rows in result["lengths"].items():
        for kind, row in rows.items():
            at = " ".join(f"{share:>6.1%}" for share in row["at_run"].values())
            label = f"{races} races, {kind}"
            print(f"  {label:20} {' ' * 22}{at}   {row['all_runs']:>7.2%} {row['ever_by']:>6.1%}")
