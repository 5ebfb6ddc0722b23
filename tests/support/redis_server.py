"""A real ``redis-server`` process for tests: started on a free port of 127.0.0.1, in its own
directory, without persistence unless asked; it can be killed and started again on the same port.

Tests get it through the fixtures of ``tests/server/conftest.py`` (``redis_url``,
``redis_server_factory``); any test may also ``import redis_server``.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

START_TIMEOUT_S = 10.0


class RedisServerError(RuntimeError):
    """redis-server is missing or did not start."""


LOWEST_PORT = 10_000
_handed_out: set[int] = set()


def free_port() -> int:
    """A port of 127.0.0.1 nobody listens on, for a server started later: below the kernel's
    ephemeral range (so no outgoing connection takes it meanwhile), in this pytest-xdist
    worker's own slice of that space (so no other worker hands it out), never handed out twice
    by this process."""
    ephemeral_low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    ports = list(range(LOWEST_PORT + worker, ephemeral_low, max(workers, 1)))
    random.shuffle(ports)
    for port in ports:
        if port in _handed_out:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise RedisServerError("no free port left below the kernel's ephemeral range")


def answers_ping(port: int) -> bool:
    """True when a Redis server on 127.0.0.1:``port`` answers PING with PONG."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One redis-server process; ``start`` picks a free port unless one was given."""

    def __init__(self, directory: Path, port: int | None = None, *args: str) -> None:
        """``args``: more redis-server options, e.g. ``--appendonly yes`` to keep its data
        across a kill, or ``--maxmemory``."""
        self.directory = directory
        self.port = port or 0
        self.args = args
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server (on its port, or a free one the first time) and wait until it
        answers PING; RedisServerError, with the server's log, if it does not."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisServerError(
                "redis-server is not on the PATH: install Redis (e.g. apt install "
                "redis-server) or set REDIS_URL=redis://host:port/db to use a running one"
            )
        tries = 1 if self.port else 3
        for _ in range(tries):
            port = self.port or free_port()
            if self._spawn(binary, port):
                self.port = port
                return
        log = (self.directory / "redis.log").read_text(errors="replace")[-2000:]
        raise RedisServerError(f"redis-server did not start on port {port}:\n{log}")

    def _spawn(self, binary: str, port: int) -> bool:
        self.directory.mkdir(parents=True, exist_ok=True)
        with (self.directory / "redis.log").open("ab") as log:
            process = subprocess.Popen(
                [
                    binary,
                    "--port",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.directory),
                    *self.args,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and process.poll() is None:
            if answers_ping(port):
                self._process = process
                return True
            time.sleep(0.02)
        process.kill()
        process.wait()
        return False

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        self._end(signal.SIGTERM)

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open, nothing is answered."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused server answer again (SIGCONT)."""
        assert self._process is not None
        self._process.send_signal(signal.SIGCONT)

    def _end(self, how: signal.Signals) -> None:
        if self._process is not None:
            end(self._process, how)
        self._process = None


def end(process: subprocess.Popen[bytes], how: signal.Signals = signal.SIGTERM) -> None:
    """Send ``how`` to ``process`` and wait for it to end (killed if it takes over 5 s)."""
    process.send_signal(how)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
