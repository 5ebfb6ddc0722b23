"""docker-compose.sentinel.yml, the Sentinel shape laid over docker-compose.yml, checked by
running its parts (no Docker daemon runs here): its Redis commands start a real primary and a
real replica in step with it, its sentinels' configuration and timings are taken by a real
``redis-sentinel`` watching that primary, and the nodes' settings are ``solrace serve``'s."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from redis_sentinels import ask, wait_in_step
from redis_server import RedisServer, free_port

from server.command import replication_of, settings_from
from solrace.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def variant() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.sentinel.yml").read_text())[
        "services"
    ]
    return services


def sentinel_lines(service: dict[str, Any]) -> list[str]:
    """The lines of the config file a sentinel service's command writes."""
    script = service["command"][-1]  # printf '%s\n' 'line' 'line' ... > file && ...
    return re.findall(r"'([^']*)'", script.split(">", 1)[0])[1:]


def test_the_variant_adds_two_replicas_of_the_primary_and_three_sentinels_watching_it() -> None:
    services = variant()
    replicas = [name for name in services if name.startswith("redis-replica-")]
    sentinels = [name for name in services if name.startswith("sentinel-")]
    assert len(replicas) == 2 and len(sentinels) == 3
    for name in replicas:
        words = services[name]["command"]
        assert words[-3:] == ["--replicaof", "redis", "6379"]
        assert words[words.index("--replica-announce-ip") + 1] == name  # the name it is found by
    environment = services["server"]["environment"]
    listed = environment["SOLRACE_REDIS_SENTINELS"].split(",")
    assert listed == [f"{name}:26379" for name in sentinels]
    for name in sentinels:
        lines = sentinel_lines(services[name])
        assert "port 26379" in lines
        service = environment["SOLRACE_REDIS_SERVICE"]
        assert f"sentinel monitor {service} redis 6379 2" in lines  # quorum: 2 of the 3
    # one replica may be lost (the one promoted) and the writes still have one to wait for
    assert 0 < int(environment["SOLRACE_REDIS_WAIT_REPLICAS"]) < len(replicas)


def test_the_nodes_settings_in_the_variant_are_read_by_solrace_serve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    environment = variant()["server"]["environment"]
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    replication = replication_of(settings_from(build_parser().parse_args(["serve"])))
    assert replication.sentinels == tuple((f"sentinel-{i}", 26379) for i in (1, 2, 3))
    assert replication.service == "solrace" and replication.wait_replicas == 1


def test_the_variant_s_redis_commands_start_a_primary_and_a_replica_in_step(
    tmp_path: Path,
) -> None:
    services = variant()
    primary = RedisServer(tmp_path / "primary", None, *services["redis"]["command"][1:])
    primary.start()
    words = services["redis-replica-a"]["command"][1:-3]  # its own options, at this primary
    replica = RedisServer(
        tmp_path / "replica", None, *words, "--replicaof", "127.0.0.1", str(primary.port)
    )
    try:
        replica.start()
        wait_in_step(replica)
    finally:
        replica.stop()
        primary.stop()


def test_the_variant_s_sentinel_configuration_and_timings_are_taken_by_a_real_sentinel(
    tmp_path: Path,
) -> None:
    primary = RedisServer(tmp_path / "primary")
    primary.start()
    try:
        service = variant()["sentinel-1"]
        syntax = subprocess.run(["sh", "-n", "-c", service["command"][-1]], capture_output=True)
        assert service["command"][:2] == ["sh", "-c"] and syntax.returncode == 0, syntax.stderr
        port = free_port()
        lines = [
            line.replace("redis 6379", f"127.0.0.1 {primary.port}").replace("26379", str(port))
            for line in sentinel_lines(service)
        ]
        config = tmp_path / "variant.conf"
        config.write_text("\n".join(["bind 127.0.0.1", f"dir {tmp_path}", *lines]) + "\n")
        process = subprocess.Popen(
            ["redis-sentinel", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            timings = re.search(r"sentinel debug ([\w\- 0-9]+);", service["command"][-1])
            assert timings is not None
            told = ""
            for _ in range(100):
                try:
                    told = ask(port, "SENTINEL", "DEBUG", *timings.group(1).split())
                    break
                except OSError:  # not listening yet
                    time.sleep(0.05)
            assert told.startswith("+OK"), told
            assert f"\r\n{primary.port}\r\n" in ask(port, "SENTINEL", "MASTER", "solrace")
        finally:
            process.terminate()
            process.wait(5)
    finally:
        primary.stop()
