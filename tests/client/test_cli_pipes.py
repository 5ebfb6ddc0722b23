"""A ``solrace`` command whose standard output is a pipe that closes early (``| head``) exits
quietly: nothing on standard error (no traceback, no "Broken pipe"), exit status 141
(128 + SIGPIPE, what a shell reports for ``seq 1000000 | head -1``).

Every command runs as a real process. Its output goes into a real ``head``, or into a pipe
whose reading end is closed before the command starts, so its first write fails."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import SERVE_QUICKLY
from redis_server import free_port

SOLRACE = str(Path(sys.executable).with_name("solrace"))
BROKEN_PIPE = 128 + signal.SIGPIPE
WINS = Path(__file__).parents[1] / "data" / "wins" / "mount_sunflower-18.txt"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A real ``solrace serve`` process on a free port; its websocket URL."""
    port = free_port()
    process = subprocess.Popen(
        [SOLRACE, "serve", "--port", str(port), *SERVE_QUICKLY],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and "serving" in process.stdout.readline()
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        process.terminate()
        process.wait(10)


def test_a_long_output_piped_into_head_stops_quietly() -> None:
    """Three thousand deals are far more than a pipe holds: ``head`` exits after one line
    while ``solrace deal`` is still writing."""
    numbers = [str(n) for n in range(1, 3001)]
    solrace = subprocess.Popen(
        [SOLRACE, "deal", "mount_sunflower", *numbers],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert solrace.stdout is not None and solrace.stderr is not None
    head = subprocess.run(["head", "-n", "1"], stdin=solrace.stdout, capture_output=True)
    solrace.stdout.close()  # head holds the only reading end; it has gone
    errors = solrace.stderr.read().decode()
    status = solrace.wait(60)
    assert head.stdout == b"Mount Sunflower deal 1 (undo=True)\n"
    assert (status, errors) == (BROKEN_PIPE, "")


def run_into_closed_pipe(argv: list[str], stdin: str = "") -> tuple[int, str]:
    """Run ``solrace *argv`` with standard output a pipe nobody reads any more; its exit
    status and standard error."""
    reading, writing = os.pipe()
    os.close(reading)
    try:
        done = subprocess.run(
            [SOLRACE, *argv],
            input=stdin.encode(),
            stdout=writing,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    finally:
        os.close(writing)
    return done.returncode, done.stderr.decode()


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "sanibel", "1", "--json"],
        ["deal", "sanibel", "1"],
        ["replay", "mount_sunflower", "18", str(WINS), "--trace"],
        ["study", "mount_sunflower", "--count", "2", "--nodes", "2000", "--jobs", "1"],
        ["bench", "engine", "--seconds", "0.05", "--json"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_command_whose_output_is_closed_exits_quietly(argv: list[str]) -> None:
    status, errors = run_into_closed_pipe(argv)
    assert (status, errors) == (BROKEN_PIPE, "")


@pytest.mark.parametrize(
    "argv",
    [
        ["board", "sanibel"],
        ["board", "sanibel", "--json"],
        ["watch", "--live"],
        ["play", "--name", "Ann", "--create", "sanibel", "--players", "1"],
        ["play", "--name", "Ann", "--create", "sanibel"],
    ],
    ids=" ".join,
)
def test_a_command_talking_to_a_server_whose_output_is_closed_exits_quietly(
    server: str, argv: list[str]
) -> None:
    status, errors = run_into_closed_pipe([*argv, "--server", server])
    assert (status, errors) == (BROKEN_PIPE, "")
