"""``solrace bench signin`` runs end to end on a tiny load: the paced phase alone and with
sign-ins, every sign-in answered, and the figures it reports agree with each other."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_signin_benchmark_reports_the_p99_rise_and_the_sign_ins_cost() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "signin", "--players", "20"]
    options = ["--rate", "40", "--seconds", "1", "--rounds", "1", "--sign-ins", "4", "--json"]
    done = subprocess.run(
        [*command, *options], capture_output=True, text=True, timeout=180, check=True
    )
    result = json.loads(done.stdout.splitlines()[-1])
    (round_,) = result["rounds"]
    rise = round_["with_sign_ins"]["p99_ms"] - round_["alone"]["p99_ms"]
    assert result["p99_rise_ms"] == [round(rise, 2)] and result["median_p99_rise_ms"] == round(
        rise, 2
    )
    asked = result["sign_ins"] + result["sign_ins_refused"]
    assert 4 <= asked <= 9 and result["sign_ins"] > 0  # about 4 a second for 2 s
    assert 0 < result["sign_in_p50_ms"] <= result["sign_in_p99_ms"]
    assert round_["alone"]["actions"] > 0 and round_["with_sign_ins"]["actions"] > 0
    assert result["target_met"] == (result["median_p99_rise_ms"] <= 1.0)
