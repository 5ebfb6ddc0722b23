"""What the benchmarks read of a process: its CPU time, finer than /proc's clock ticks
(10 ms), so a node that works a few milliseconds in a short phase is not counted as idle."""

from __future__ import annotations

import subprocess
import sys

from bench.benchprocess import cpu_seconds

BURN_S = 0.003
BURNER = f"""
import sys, time
print("ready", flush=True)
for _ in sys.stdin:
    start = time.process_time()
    while time.process_time() - start < {BURN_S}:
        pass
    print("burnt", flush=True)
"""


def test_a_few_milliseconds_of_another_process_s_cpu_are_counted() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as burner:
        assert burner.stdin is not None and burner.stdout is not None
        assert burner.stdout.readline() == "ready\n"  # started: its start is not counted
        burnt = []
        for _ in range(5):
            before = cpu_seconds(burner.pid)
            burner.stdin.write("burn\n")
            burner.stdin.flush()
            assert burner.stdout.readline() == "burnt\n"
            burnt.append(cpu_seconds(burner.pid) - before)
        burner.stdin.close()
    assert all(BURN_S <= seconds < 3 * BURN_S for seconds in burnt), burnt
