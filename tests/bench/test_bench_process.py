"""What the benchmarks read of a process: its CPU time, finer than /proc's clock ticks
(10 ms), so a node that works a few milliseconds in a short phase is not counted as idle;
and how long it waited ready to run."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from serve_process import children

from bench.benchprocess import (
    SERVE_BANNER,
    cpu_seconds,
    free_port,
    run_queue_wait_s,
    serve_command,
    spawn,
)

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


def test_the_benchmarks_server_starts_no_solver_beside_what_is_measured() -> None:
    """At start a server certifies daily deals and finds the solver's lines in a worker
    process (seconds of a core each): work unrelated to the races measured, which would take
    CPU from them on this machine's two cores."""
    server = spawn(serve_command(free_port()), SERVE_BANNER)
    try:
        deadline = time.monotonic() + 5  # the first preparation starts within a second
        while time.monotonic() < deadline:
            assert children(server.pid) == []
            time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(20)


def test_a_process_kept_from_running_is_seen_waiting_on_the_run_queue() -> None:
    """Three busy processes on one core: each is ready to run all the time, and runs about
    a third of it."""
    spin = "import time\nend = time.monotonic() + 1.5\nwhile time.monotonic() < end: pass"
    core = {min(os.sched_getaffinity(0))}
    spinners = [
        subprocess.Popen(
            [sys.executable, "-c", spin], preexec_fn=lambda: os.sched_setaffinity(0, core)
        )
        for _ in range(3)
    ]
    try:
        time.sleep(1.0)
        waited = [run_queue_wait_s(spinner.pid) for spinner in spinners]
    finally:
        for spinner in spinners:
            spinner.wait(10)
    assert all(0.3 < wait < 1.0 for wait in waited), waited
    assert run_queue_wait_s(spinners[0].pid) == 0.0  # gone: nothing to read
