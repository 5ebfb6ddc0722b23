"""Redis Sentinel processes for the failover benchmark and tests: the sentinels' config,
their timings, and the questions asked of them and of the replicas, over plain sockets.

Three ``redis-sentinel`` processes watch a primary (quorum 2, down after 1 s) and read the
servers' INFO and PING them well under that time (``TIMINGS_MS``): the offsets they pick a
replica by are read after the primary died (at redis-sentinel's default INFO period, 10 s,
they promoted a replica that lacked writes the other had), and a new primary answers a PING
before it is thought down (at the default PING period, 1 s, a sentinel took the primary it
had just promoted for down and failed over again while it served). docs/operations.md,
"Redis Sentinel", says the same for a deployment.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

SERVICE = "solrace"
QUORUM = 2
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 3000
TIMINGS_MS = {"INFO-PERIOD": 250, "PING-PERIOD": 200}
START_TIMEOUT_S = 10.0
READY_TIMEOUT_S = 30.0


def ask(port: int, *words: str) -> str:
    """One command to the Redis (or sentinel) on 127.0.0.1:``port``; its reply as raw text
    (RESP), for the few questions asked here without a client library."""
    command = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
        connection.sendall(command.encode())
        connection.settimeout(0.3)
        chunks: list[bytes] = []
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


def answers(port: int) -> bool:
    try:
        return ask(port, "PING").startswith("+PONG")
    except OSError:
        return False


def start_sentinel(directory: Path, port: int, primary_port: int) -> subprocess.Popen[bytes]:
    """A ``redis-sentinel`` on 127.0.0.1:``port`` watching the primary on ``primary_port``,
    answering, its timings set (``TIMINGS_MS``; a sentinel's config file cannot hold them).
    RuntimeError, with its log, when it does not start."""
    binary = shutil.which("redis-sentinel")
    if binary is None:
        raise RuntimeError(
            "redis-sentinel is not on the PATH: install Debian's redis-sentinel "
            "(.ci/system-packages does)"
        )
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "sentinel.conf"  # the sentinel rewrites it as it learns
    config.write_text(
        f"port {port}\nbind 127.0.0.1\ndir {directory}\n"
        f"sentinel monitor {SERVICE} 127.0.0.1 {primary_port} {QUORUM}\n"
        f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
        f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
        f"sentinel parallel-syncs {SERVICE} 1\n"
    )
    log = directory / "sentinel.log"
    with log.open("ab") as output:
        process = subprocess.Popen([binary, str(config)], stdout=output, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not answers(port):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            process.wait()
            text = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"redis-sentinel did not start:\n{text}")
        time.sleep(0.02)
    timings = [str(word) for pair in TIMINGS_MS.items() for word in pair]
    told = ask(port, "SENTINEL", "DEBUG", *timings)
    if not told.startswith("+OK"):
        process.kill()
        process.wait()
        raise RuntimeError(f"redis-sentinel refused {timings}: {told}")
    return process


def in_step(replica_port: int) -> bool:
    """The replica's link to its primary is up (it holds what the primary had)."""
    return "master_link_status:up" in ask(replica_port, "INFO", "replication")


def wait_ready(sentinel_ports: list[int], replica_ports: list[int]) -> None:
    """Return once every sentinel knows the others and every replica, and every replica is
    in step: a primary killed then is failed over. RuntimeError after ``READY_TIMEOUT_S``."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    others, replicas = str(len(sentinel_ports) - 1), str(len(replica_ports))
    while time.monotonic() < deadline:
        views = [ask(port, "SENTINEL", "MASTER", SERVICE) for port in sentinel_ports]
        if all(map(in_step, replica_ports)) and all(
            field(view, "num-other-sentinels") == others and field(view, "num-slaves") == replicas
            for view in views
        ):
            return
        time.sleep(0.1)
    raise RuntimeError("the sentinels did not all see each other and the replicas")


def primary_port(sentinel_port: int) -> int:
    """The port of the primary the sentinel names now."""
    reply = ask(sentinel_port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
    return int(reply.split("\r\n")[-2])


def field(reply: str, name: str) -> str | None:
    """A field of a ``SENTINEL MASTER`` reply (a flat array of names and values)."""
    lines = reply.split("\r\n")
    for i, line in enumerate(lines):
        if line == name and i + 2 < len(lines):
            return lines[i + 2]
    return None
