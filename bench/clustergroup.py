"""A Redis Cluster of real processes for the benchmark and the tests: ``redis-server
--cluster-enabled yes`` processes on free ports of 127.0.0.1, each in its own directory,
joined by ``redis-cli --cluster create ... --cluster-replicas R`` (the slots split evenly
over the primaries, R replicas each), ready once every node says ``cluster_state:ok`` and
every replica is linked to its primary.

``ClusterGroup`` is a context manager: the processes are killed when it ends (or when
starting fails).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType

from bench.sentinelgroup import answers, ask

START_TIMEOUT_S = 10.0
READY_TIMEOUT_S = 30.0
PRIMARIES = 3


class ClusterGroup:
    """Cluster nodes under ``directory`` on ``ports`` (one each), their cluster bus on
    ``bus_ports`` (redis-server's default, port + 10000, may be taken), with more
    ``redis-server`` options if given (persistence is off unless they say otherwise)."""

    def __init__(
        self,
        directory: Path,
        ports: list[int],
        bus_ports: list[int],
        *options: str,
        replicas: int = 0,
    ) -> None:
        self.directory = directory
        self.ports = ports
        self.bus_ports = bus_ports
        self.options = options
        self.replicas = replicas  # per primary (``ports`` holds them all)
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def addresses(self) -> str:
        """The nodes as ``--redis-cluster`` takes them."""
        return ",".join(f"127.0.0.1:{port}" for port in self.ports)

    def start(self) -> ClusterGroup:
        """Every node started, the cluster made and its state ok; ``RuntimeError`` saying
        what failed (the processes killed)."""
        try:
            for port, bus in zip(self.ports, self.bus_ports, strict=True):
                self.processes.append(self._spawn(port, bus))
            self._create()
            self._wait_ok()
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn(self, port: int, bus: int) -> subprocess.Popen[bytes]:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not on the PATH: install Redis 7")
        directory = self.directory / f"node-{port}"
        directory.mkdir(parents=True, exist_ok=True)
        with (directory / "redis.log").open("ab") as log:
            process = subprocess.Popen(
                [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory)]
                + ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
                + ["--cluster-port", str(bus)]
                + ["--cluster-node-timeout", "2000", "--save", "", "--appendonly", "no"]
                + list(self.options),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not answers(port):
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                text = (directory / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"a cluster node did not start on port {port}:\n{text}")
            time.sleep(0.02)
        return process

    def _create(self) -> None:
        binary = shutil.which("redis-cli")
        if binary is None:
            raise RuntimeError("redis-cli is not on the PATH: install Redis 7")
        nodes = [f"127.0.0.1:{port}" for port in self.ports]
        made = subprocess.run(
            [binary, "--cluster", "create", *nodes, "--cluster-replicas", str(self.replicas)]
            + ["--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=READY_TIMEOUT_S,
        )
        if made.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{made.stdout}{made.stderr}")

    def _wait_ok(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not all(map(self._ready, self.ports)):
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster's state did not become ok")
            time.sleep(0.1)

    def _ready(self, port: int) -> bool:
        if "cluster_state:ok" not in ask(port, "CLUSTER", "INFO"):
            return False
        replication = ask(port, "INFO", "replication")
        return "role:slave" not in replication or "master_link_status:up" in replication

    def kill(self, port: int) -> None:
        """The node on ``port`` killed with -9, as a crash would."""
        process = self.processes[self.ports.index(port)]
        process.kill()
        process.wait(10)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
        for process in self.processes:
            process.wait(10)
        self.processes = []

    def __enter__(self) -> ClusterGroup:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
