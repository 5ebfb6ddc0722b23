"""docker-compose.monitoring.yml, Prometheus and Grafana beside the nodes, checked by running
its parts (no Docker daemon runs here): Prometheus's config is taken by Debian's
``promtool``, and a real ``prometheus`` with it scrapes a live node and loads every alert
rule; Grafana's provisioning names that Prometheus and the dashboard where the compose file
mounts them."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from harness import running_server
from redis_server import free_port

from server.store import MemoryStore

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS_DIR = ROOT / "deploy" / "prometheus"
CONFIG = PROMETHEUS_DIR / "prometheus.yml"
PROVISIONING = ROOT / "deploy" / "grafana" / "provisioning"


def services() -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.monitoring.yml").read_text())[
        "services"
    ]
    return found


def mounts(service: str) -> dict[str, Path]:
    """A service's bind mounts: where in the container -> the file or folder of this tree."""
    found = {}
    for volume in services()[service]["volumes"]:
        source, target = volume.split(":")[:2]
        if source.startswith("./"):
            found[target] = ROOT / source
    return found


def program(name: str) -> str:
    binary = shutil.which(name)
    if binary is None:
        pytest.fail(f"{name} is not on the PATH: run .ci/system-packages", pytrace=False)
    return binary


def test_prometheus_mounts_its_config_and_the_alert_rules_where_the_config_reads_them() -> None:
    mounted = mounts("prometheus")
    command = services()["prometheus"]["command"]
    config_path = next(arg.split("=", 1)[1] for arg in command if arg.startswith("--config.file"))
    assert mounted[config_path] == CONFIG
    config = yaml.safe_load(CONFIG.read_text())
    for rule_file in config["rule_files"]:
        in_container = str(Path(config_path).parent / rule_file)
        assert mounted[in_container] == PROMETHEUS_DIR / "alerts.yml"
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    (found,) = job["dns_sd_configs"]
    assert found["names"] == ["server"] and found["port"] == 8765  # every node of the service


def test_promtool_takes_the_config_and_the_rules_it_loads() -> None:
    checked = subprocess.run(
        [program("promtool"), "check", "config", str(CONFIG)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS" in checked.stdout and "alerts.yml" in checked.stdout


@pytest.fixture
def prometheus_of(tmp_path: Path) -> Iterator[Any]:
    """Starts a real Prometheus on this config, its nodes found at ``port`` instead of by
    Docker's DNS and scraped every second; yields that starter, stops it after."""
    started: list[subprocess.Popen[bytes]] = []

    def start(node_port: int) -> int:
        config = yaml.safe_load(CONFIG.read_text())
        config["global"].update(scrape_interval="1s", evaluation_interval="1s")
        job = config["scrape_configs"][0]
        del job["dns_sd_configs"]
        job["static_configs"] = [{"targets": [f"127.0.0.1:{node_port}"]}]
        (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
        shutil.copy(PROMETHEUS_DIR / "alerts.yml", tmp_path / "alerts.yml")
        port = free_port()
        command = [
            program("prometheus"),
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ]
        log = (tmp_path / "prometheus.log").open("wb")
        started.append(subprocess.Popen(command, stdout=log, stderr=log))
        return port

    yield start
    for process in started:
        process.kill()
        process.wait()


def ask(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
        return json.loads(answer.read())["data"]


async def until(reading: Any, done: Any, timeout: float = 30.0) -> Any:
    """``reading()`` once ``done`` holds of it, retried while Prometheus starts and scrapes
    (read in a thread: the node it scrapes answers on this event loop)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = await asyncio.to_thread(reading)
            if done(found):
                return found
        except OSError:
            pass  # not listening yet
        if time.monotonic() > deadline:
            raise AssertionError(f"Prometheus did not get there in {timeout} s")
        await asyncio.sleep(0.2)


async def test_a_real_prometheus_on_this_config_scrapes_a_node_and_loads_every_alert(
    prometheus_of: Any,
) -> None:
    rules = yaml.safe_load((PROMETHEUS_DIR / "alerts.yml").read_text())["groups"]
    alerts = {rule["alert"] for group in rules for rule in group["rules"] if "alert" in rule}
    async with running_server(MemoryStore()) as server:
        node = server.port
        port = prometheus_of(node)
        targets = await until(
            lambda: ask(port, "/api/v1/targets")["activeTargets"],
            lambda found: found and found[0]["health"] == "up",
        )
        up = await until(
            lambda: ask(port, "/api/v1/query?query=up%7Bjob%3D%22solrace%22%7D")["result"],
            lambda found: bool(found),
        )
    assert targets[0]["labels"]["instance"] == f"127.0.0.1:{node}"
    assert up[0]["value"][1] == "1"
    loaded = ask(port, "/api/v1/rules")["groups"]
    assert {rule["name"] for group in loaded for rule in group["rules"]} >= alerts
    assert all(rule["health"] != "err" for group in loaded for rule in group["rules"])


def test_grafana_is_provisioned_with_that_prometheus_and_the_dashboard_it_mounts() -> None:
    mounted = mounts("grafana")
    assert mounted["/etc/grafana/provisioning"] == PROVISIONING
    (source,) = yaml.safe_load((PROVISIONING / "datasources" / "prometheus.yml").read_text())[
        "datasources"
    ]
    assert source["type"] == "prometheus" and source["url"] == "http://prometheus:9090"
    assert services()["prometheus"]["ports"] == ["9090:9090"]
    (provider,) = yaml.safe_load((PROVISIONING / "dashboards" / "solrace.yml").read_text())[
        "providers"
    ]
    folder = provider["options"]["path"]
    assert mounted[f"{folder}/solrace.json"] == ROOT / "deploy" / "grafana" / "solrace.json"
    dashboard = json.loads(mounted[f"{folder}/solrace.json"].read_text())
    (variable,) = dashboard["templating"]["list"]
    assert variable["type"] == "datasource" and variable["query"] == source["type"]
