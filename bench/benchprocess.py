"""Processes for the server benchmarks: a real ``solrace serve``, a redis-server of the
benchmark's own, free ports, and a process's CPU time, run-queue waits and resident memory.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from prometheus_client.parser import text_string_to_metric_families

SERVE_BANNER = "serving on"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def spawn(
    command: list[str], ready_word: str, stderr: IO[str] | None = None
) -> subprocess.Popen[str]:
    """Start ``command`` and wait for its first line of standard output, which must hold
    ``ready_word`` (a banner printed once it serves)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if ready_word not in line:
        process.kill()
        raise RuntimeError(f"{command[0]} did not start: {line!r}")
    return process


def serve_command(port: int, *options: str) -> list[str]:
    """``solrace serve`` on 127.0.0.1:``port`` (``SOLRACE_BENCH_SERVER`` may name another
    command line for ``solrace``), logging warnings only, and without the daily deals'
    solving at start (certifying them, finding the solver's lines for fair play: seconds
    of a core in a worker process, unrelated to the races measured)."""
    solrace = os.environ.get("SOLRACE_BENCH_SERVER", f"{sys.executable} -m solrace.cli").split()
    return [
        *solrace,
        "serve",
        "--port",
        str(port),
        "--no-certify",
        "--fair-play-solver-nodes",
        "0",
        "--log-level",
        "WARNING",
        "--connections-per-address",  # every simulated player comes from 127.0.0.1
        "0",
        *options,
    ]


def cpu_seconds(pid: int) -> float:
    """The CPU time of process ``pid`` (all its threads, user and system), to the
    nanosecond: Linux's CPU-time clock of the process (what ``clock_getcpuclockid`` gives,
    ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``). /proc's clock ticks (10 ms) counted a
    node that worked a few milliseconds in a one-second phase as idle."""
    return time.clock_gettime((~pid << 3) | 2)


def run_queue_wait_s(pid: int) -> float:
    """How long the main thread of process ``pid`` (an asyncio server's event loop) has
    waited, in all, runnable but not running: its turn on a busy core, or a virtual CPU the
    host had not yet given back (``/proc/PID/schedstat``; 0 where the kernel keeps none)."""
    try:
        with open(f"/proc/{pid}/schedstat", encoding="ascii") as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def machine_ticks() -> tuple[int, int]:
    """The machine's CPU time since boot in clock ticks, all cores: (stolen by the host,
    all of it) (``/proc/stat``)."""
    with open("/proc/stat", encoding="ascii") as stats:
        ticks = [int(field) for field in stats.readline().split()[1:9]]
    return ticks[7], sum(ticks)


def rss_kib(pid: int) -> int:
    """The process's resident set (VmRSS in /proc/PID/status), in KiB."""
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def health(port: int) -> dict[str, Any]:
    """``GET /healthz`` of the server on ``port`` (players connected, races in memory...),
    healthy (200) or not (503)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            text = answer.read()
    except urllib.error.HTTPError as error:
        text = error.read()
    body: dict[str, Any] = json.loads(text)
    return body


def metric_samples(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the ``/metrics`` of the server on ``port``, by name and labels."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def raise_open_files(needed: int) -> int:
    """Raise this process's soft limit on open files to the hard limit (children started
    afterwards inherit it); SystemExit when even that is below ``needed``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise SystemExit(f"error: {needed} open files needed, the hard limit is {hard}")
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


@dataclass(frozen=True)
class RedisProcess:
    url: str
    pid: int


@contextmanager
def redis_choice(choice: str | None) -> Iterator[tuple[str | None, int | None]]:
    """The Redis URL and the redis-server's process id for a ``--redis`` choice: None (no
    Redis: the memory store), "start" (a redis-server of the benchmark's own, see
    ``own_redis``; its pid), or a URL (someone else's server: no pid)."""
    if choice != "start":
        yield choice, None
        return
    with own_redis() as redis:
        yield redis.url, redis.pid


@contextmanager
def own_redis(persist: bool = True) -> Iterator[RedisProcess]:
    """A redis-server of the benchmark's own on a free port, for as long as it runs: with
    ``persist``, an append-only file fsynced every second (as in production), else nothing
    on disk."""
    with tempfile.TemporaryDirectory() as directory:
        port = free_port()
        persistence = ["yes", "--appendfsync", "everysec"] if persist else ["no"]
        process = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", directory]
            + ["--save", "", "--appendonly", *persistence],
            stdout=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while not answers_ping(port):
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.05)
            yield RedisProcess(f"redis://127.0.0.1:{port}/0", process.pid)
        finally:
            process.terminate()
            process.wait(10)


def answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False
