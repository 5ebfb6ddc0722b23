"""``solrace bench fairplay --accounts FILE``'s second part, ``beyond_record``: accounts
whose races are drawn from the honest runs saved are judged as the server judges a ranked
daily run; an honest account that never finishes is never flagged, a knower who finishes
every daily is flagged from the run the rule can judge on, and every share is a share."""

from __future__ import annotations

import json
from pathlib import Path

from bench.fairplayrecord import AT_RUNS, RECORD_LENGTHS, print_record, record_shares
from protocol.fairplay_record import RECORD_CHANCE, RECORD_RUNS, Record

DEALS = 12


def saved(folder: Path) -> str:
    """Honest runs that never finish, knowers' that always do."""
    runs = []
    for deal in range(DEALS):
        where = {"game": "mount_sunflower", "deal": deal}
        runs += [{**where, "kind": "honest", "won": False}] * 3
        runs += [{**where, "kind": "knower", "won": True}] * 2
    path = folder / "runs.json"
    path.write_text(json.dumps({"seed": 1, "runs": runs}))
    return str(path)


def test_honest_accounts_are_never_flagged_and_knowers_from_the_run_the_rule_judges_on(
    tmp_path: Path,
) -> None:
    result = record_shares([saved(tmp_path)], seed=1)
    assert result["finished"] == {"honest": 0.0, "knower": 1.0}
    for races in RECORD_LENGTHS:
        honest, knower = result["lengths"][races]["honest"], result["lengths"][races]["knower"]
        assert honest["all_runs"] == honest["ever_by"] == 0
        assert knower["runs"] == DEALS
        first = next(  # the first run at which all finished is beyond a record of no finish
            k
            for k in range(RECORD_RUNS, DEALS + 1)
            if Record(races, 0, k, k).chance() < RECORD_CHANCE
        )
        assert knower["at_run"] == {k: float(k >= first) for k in AT_RUNS if k <= DEALS}
        assert knower["ever_by"] == 1.0
    print_record(result)
