"""``solrace bench storage`` runs end to end on a tiny load and reports Redis's memory per
race, per action, per identity and per board entry, with MEMORY USAGE by kind of key."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_storage_benchmark_reports_every_kind_with_its_keys() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "storage", "--races", "3"]
    command += ["--settle-s", "0", "--json"]  # the keys are checked, not the memory figures
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    kinds = {kind["unit"]: [] for kind in result["kinds"]}
    for kind in result["kinds"]:
        kinds[kind["unit"]].append(kind)
        # used_memory's difference is printed, but at 3 units Redis's own memory moves by
        # more than the data (a run gave -6,168 bytes); MEMORY USAGE of the keys does not
        assert isinstance(kind["bytes_per_unit"], int | float)
        assert kind["keys"] and all(size > 0 for _, size in kind["keys"].values())
    assert [k["actions"] for k in kinds["race"]] == [400, 150]
    race, attempt = (set(k["keys"]) for k in kinds["race"])
    assert (
        race
        == attempt
        == {
            "race:{RACE}:race",
            "race:{RACE}:result",
            "race:{RACE}:racers",
            "race:{RACE}:log:PLAYER",
        }
    )
    assert kinds["race"][0]["keys"]["race:{RACE}:log:PLAYER"][0] == 2 * 3  # a log per racer
    (identity,) = kinds["identity"]
    assert identity["keys"] == {"token:HASH": [3, identity["keys"]["token:HASH"][1]]}
    unfinished, finished = kinds["entry"]
    assert not any(key.startswith("best:") for key in unfinished["keys"])
    assert {"best:{sanibel}:board", "daily:{sanibel}:DAY:board"} <= set(finished["keys"])
