"""A Redis Sentinel set of real processes for tests: a primary, its replicas
(``redis-server --replicaof``) and three ``redis-sentinel`` processes watching it (quorum 2,
down after 1 s; their config and timings are ``bench/sentinelgroup.py``'s, shared with
``solrace bench failover``), each on a free port of 127.0.0.1 in its own directory.

``SentinelSet.start`` returns once every sentinel knows the other two and the replicas, and
every replica is in step with the primary, so a primary killed then is failed over;
``primary_port`` asks the sentinels which one is the primary now.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from redis_server import RedisServer, RedisServerError, end, free_port

from bench.sentinelgroup import (
    SERVICE,
    ask,
    in_step,
    primary_port,
    start_sentinel,
    wait_ready,
)

__all__ = ["SERVICE", "Sentinel", "SentinelSet", "ask", "wait_in_step"]
AT_ONCE = ("--repl-diskless-sync-delay", "0")  # a new replica gets the data at once


class Sentinel:
    """One ``redis-sentinel`` process watching the primary at ``primary_port``."""

    def __init__(self, directory: Path, primary_port: int) -> None:
        self.directory = directory
        self.primary_port = primary_port
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.port = free_port()
        try:
            self._process = start_sentinel(self.directory, self.port, self.primary_port)
        except RuntimeError as error:
            raise RedisServerError(str(error)) from None

    def stop(self) -> None:
        if self._process is not None:
            end(self._process)
        self._process = None


class SentinelSet:
    """A primary, ``replicas`` replicas of it and three sentinels, under ``directory``."""

    def __init__(self, directory: Path, replicas: int = 1) -> None:
        # every server may become the primary: each sends a new replica its data at once
        self.primary = RedisServer(directory / "primary", None, *AT_ONCE)
        self.replicas: list[RedisServer] = []
        self.count = replicas
        self.directory = directory
        self.sentinels: list[Sentinel] = []

    @property
    def servers(self) -> list[RedisServer]:
        return [self.primary, *self.replicas]

    @property
    def addresses(self) -> str:
        """The sentinels as ``--redis-sentinel`` takes them."""
        return ",".join(f"127.0.0.1:{sentinel.port}" for sentinel in self.sentinels)

    def start(self) -> SentinelSet:
        self.primary.start()
        for i in range(self.count):
            of = ("--replicaof", "127.0.0.1", str(self.primary.port))
            replica = RedisServer(self.directory / f"replica-{i}", None, *AT_ONCE, *of)
            replica.start()
            self.replicas.append(replica)
        for i in range(3):
            sentinel = Sentinel(self.directory / f"sentinel-{i}", self.primary.port)
            sentinel.start()
            self.sentinels.append(sentinel)
        try:
            wait_ready([s.port for s in self.sentinels], [r.port for r in self.replicas])
        except RuntimeError as error:
            raise RedisServerError(str(error)) from None
        return self

    def primary_port(self) -> int:
        """The port of the primary the sentinels name now."""
        return primary_port(self.sentinels[0].port)

    def stop(self) -> None:
        for sentinel in self.sentinels:
            sentinel.stop()
        for server in self.servers:
            server.stop()


def wait_in_step(replica: RedisServer, timeout_s: float = 10.0) -> None:
    """Return once ``replica``'s link to its primary is up (it holds what the primary had)."""
    deadline = time.monotonic() + timeout_s
    while not in_step(replica.port):
        if time.monotonic() > deadline:
            raise RedisServerError(f"the replica on port {replica.port} never caught up")
        time.sleep(0.05)
