"""A Redis Sentinel set of real processes for tests: a primary, its replicas
(``redis-server --replicaof``) and three ``redis-sentinel`` processes watching it (quorum 2,
down after 1 s), each on a free port of 127.0.0.1 in its own directory.

``SentinelSet.start`` returns once every sentinel knows the other two and the replicas, and
every replica is in step with the primary, so a primary killed then is failed over;
``primary_port`` asks the sentinels which one is the primary now.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from redis_server import RedisServer, RedisServerError, answers_ping, end, free_port

SERVICE = "solrace"
QUORUM = 2
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 3000
# How often a sentinel reads the servers' INFO (replication offsets) and PINGs them, well
# under the down-after time: the offsets it picks a replica by are read after the primary
# died (at redis-sentinel's default, 10 s, it promoted a replica that lacked writes the
# other had: 2 runs in 10 lost acknowledged actions), and a new primary answers a PING
# before it is thought down (at the default, 1 s, a sentinel took the primary it had just
# promoted for down and failed over again while it served: 1 run in 10)
TIMINGS_MS = {"INFO-PERIOD": 250, "PING-PERIOD": 200}
READY_TIMEOUT_S = 30.0


def ask(port: int, *words: str) -> str:
    """One command to the Redis (or sentinel) on 127.0.0.1:``port``, its reply as raw text
    (RESP), for the few checks this module makes without a client library."""
    command = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
        connection.sendall(command.encode())
        connection.settimeout(0.3)
        chunks = []
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                chunk = connection.recv(65536)
            except TimeoutError:
                if chunks:
                    break
                continue
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")


class Sentinel:
    """One ``redis-sentinel`` process watching the primary at ``primary_port``."""

    def __init__(self, directory: Path, primary_port: int) -> None:
        self.directory = directory
        self.primary_port = primary_port
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-sentinel")
        if binary is None:
            raise RedisServerError(
                "redis-sentinel is not on the PATH: install Debian's redis-sentinel "
                "(.ci/system-packages does)"
            )
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        config = self.directory / "sentinel.conf"  # the sentinel rewrites it as it learns
        config.write_text(
            f"port {self.port}\nbind 127.0.0.1\ndir {self.directory}\n"
            f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary_port} {QUORUM}\n"
            f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
            f"sentinel parallel-syncs {SERVICE} 1\n"
        )
        with (self.directory / "sentinel.log").open("ab") as log:
            self._process = subprocess.Popen(
                [binary, str(config)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 10
        while not answers_ping(self.port):
            if time.monotonic() > deadline or self._process.poll() is not None:
                log_text = (self.directory / "sentinel.log").read_text(errors="replace")
                raise RedisServerError(f"redis-sentinel did not start:\n{log_text[-2000:]}")
            time.sleep(0.02)
        timings = [str(word) for pair in TIMINGS_MS.items() for word in pair]
        told = ask(self.port, "SENTINEL", "DEBUG", *timings)  # not kept in its config file
        if not told.startswith("+OK"):
            raise RedisServerError(f"redis-sentinel refused {timings}: {told}")

    def stop(self) -> None:
        if self._process is not None:
            end(self._process)
        self._process = None


class SentinelSet:
    """A primary, ``replicas`` replicas of it and three sentinels, under ``directory``."""

    def __init__(self, directory: Path, replicas: int = 1) -> None:
        # every server may become the primary: each sends a new replica its data at once
        self.at_once = ("--repl-diskless-sync-delay", "0")
        self.primary = RedisServer(directory / "primary", None, *self.at_once)
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
            replica = RedisServer(
                self.directory / f"replica-{i}",
                None,
                *self.at_once,
                "--replicaof",
                "127.0.0.1",
                str(self.primary.port),
            )
            replica.start()
            self.replicas.append(replica)
        for i in range(3):
            sentinel = Sentinel(self.directory / f"sentinel-{i}", self.primary.port)
            sentinel.start()
            self.sentinels.append(sentinel)
        self._wait_until_ready()
        return self

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            views = [ask(s.port, "SENTINEL", "MASTER", SERVICE) for s in self.sentinels]
            synced = all(
                "master_link_status:up" in ask(r.port, "INFO", "replication") for r in self.replicas
            )
            if synced and all(
                _field(view, "num-other-sentinels") == "2"
                and _field(view, "num-slaves") == str(self.count)
                for view in views
            ):
                return
            time.sleep(0.1)
        raise RedisServerError("the sentinels did not all see each other and the replicas")

    def primary_port(self) -> int:
        """The port of the primary the sentinels name now."""
        reply = ask(self.sentinels[0].port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
        return int(reply.split("\r\n")[-2])

    def stop(self) -> None:
        for sentinel in self.sentinels:
            sentinel.stop()
        for server in self.servers:
            server.stop()


def _field(reply: str, name: str) -> str | None:
    """A field of a ``SENTINEL MASTER`` reply (a flat array of names and values)."""
    lines = reply.split("\r\n")
    for i, line in enumerate(lines):
        if line == name and i + 2 < len(lines):
            return lines[i + 2]
    return None


def wait_in_step(replica: RedisServer, timeout_s: float = 10.0) -> None:
    """Return once ``replica``'s link to its primary is up (it holds what the primary had)."""
    deadline = time.monotonic() + timeout_s
    while "master_link_status:up" not in ask(replica.port, "INFO", "replication"):
        if time.monotonic() > deadline:
            raise RedisServerError(f"the replica on port {replica.port} never caught up")
        time.sleep(0.05)
