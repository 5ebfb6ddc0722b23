"""``solrace bench fairplay --accounts FILE``: accounts drawn from saved runs are judged as
the server judges a ranked daily run (``lucky_account``): an account of runs at chance is
never flagged, one of runs always above chance is flagged from the run the rule needs on,
and every share is a share."""

from __future__ import annotations

import json
from pathlib import Path

from bench.fairplayaccounts import AT_RUNS, measure_accounts, print_accounts
from protocol.fairplay_account import ACCOUNT_RUNS

DEALS = 30


def saved(folder: Path) -> str:
    """A saved offline run: honest runs exactly at chance, knowers' two useful cards over
    chance each (z 2 a run, 2 x sqrt(n) over n runs), and runs that turned up nothing."""
    runs = []
    for deal in range(DEALS):
        where = {"game": "mount_sunflower", "deal": deal}
        runs += [{**where, "kind": "honest", "blind": 4, "lucky": [2, 2.0, 1.0]}] * 2
        runs += [{**where, "kind": "knower", "blind": 4, "lucky": [4, 2.0, 1.0]}] * 2
        runs += [{**where, "kind": "bot", "blind": 0, "lucky": [0, 0.0, 0.0]}] * 2
    path = folder / "runs.json"
    path.write_text(json.dumps({"seed": 1, "runs": runs}))
    return str(path)


def test_accounts_at_chance_are_never_flagged_and_lucky_ones_from_the_runs_needed_on(
    tmp_path: Path,
) -> None:
    result = measure_accounts([saved(tmp_path)], seed=1)
    honest, knower, bot = (result["kinds"][kind] for kind in ("honest", "knower", "bot"))
    assert honest["all_runs"] == honest["most_at_a_run"] == honest["ever_by"] == 0
    assert bot["all_runs"] == 0  # no card turned up blind: no run counts
    assert knower["runs"] == DEALS  # one run on each deal
    assert knower["at_run"] == {k: float(k >= ACCOUNT_RUNS) for k in AT_RUNS if k <= DEALS}
    assert knower["all_runs"] == (DEALS - ACCOUNT_RUNS + 1) / DEALS
    assert result["runs"] == {"honest": 2 * DEALS, "knower": 2 * DEALS, "bot": 2 * DEALS}
    for rows in result["sweep"].values():
        for row in rows.values():
            assert all(0 <= share <= 1 for share in row["at_run"].values())
    print_accounts(result)
