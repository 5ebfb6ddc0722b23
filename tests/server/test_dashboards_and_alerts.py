"""The alert rules (deploy/prometheus/alerts.yml) and the dashboard (deploy/grafana/
solrace.json) are checked, not trusted: Debian's ``promtool`` checks the rules and runs
their unit tests (one that fires and one that stays quiet for every alert), and every
metric they name is on a live node's ``GET /metrics`` after real traffic."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from harness import player, running_server, winning_actions
from prometheus_client.parser import text_string_to_metric_families

from client.api import ServerError
from server.store import open_store

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "alerts.yml"
RULE_TESTS = ROOT / "deploy" / "prometheus" / "alerts_test.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "solrace.json"
GAME, DEAL = "mount_sunflower", 18
# a metric's name in PromQL, not part of a recorded name (``instance:solrace_...:p99``)
METRIC = re.compile(r"(?<![\w:])solrace_[a-z0-9_]+")
RECORDED = re.compile(r"(?<![\w:])[a-z_]*:[a-z0-9_:]+")
PANELS = {  # what the dashboard shows (issue 36)
    "Act latency p50 / p99",
    "Actions per second",
    "Errors by code",
    "Event-loop lag p99",
    "Pub/sub delivery lag p99",
    "Write backlog",
    "Sessions",
    "Redis health",
    "Fair-play holds",
    "SLO burn rate (99.9 %)",
    "Store round trips p50 / p99",
}


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("promtool")
    if binary is None:
        pytest.fail("promtool is not on the PATH: run .ci/system-packages", pytrace=False)
    return subprocess.run(
        [binary, *args], capture_output=True, text=True, timeout=120, cwd=RULES.parent
    )


def rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def alerts() -> set[str]:
    return {rule["alert"] for rule in rules() if "alert" in rule}


def dashboard_queries() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def test_promtool_finds_the_rules_well_formed() -> None:
    checked = promtool("check", "rules", RULES.name)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(rules())} rules found" in checked.stdout


def test_every_alert_s_unit_tests_pass_under_promtool() -> None:
    tested = promtool("test", "rules", RULE_TESTS.name)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout


def test_every_alert_has_a_unit_test_where_it_fires_and_one_where_it_stays_quiet() -> None:
    fires: set[str] = set()
    quiet: set[str] = set()
    for test in yaml.safe_load(RULE_TESTS.read_text())["tests"]:
        instances = {
            match.group(1)
            for series in test["input_series"]
            if (match := re.search(r'instance="([^"]+)"', series["series"]))
        }
        for check in test["alert_rule_test"]:
            name, expected = check["alertname"], check["exp_alerts"]
            (fires if expected else quiet).add(name)
            told = {alert["exp_labels"].get("instance") for alert in expected}
            if expected and None not in told and instances - told:
                quiet.add(name)  # another node's series in the same test did not fire it
    assert alerts() - fires == set()
    assert alerts() - quiet == set()


def test_every_recorded_name_the_alerts_and_the_dashboard_use_is_recorded() -> None:
    recorded = {rule["record"] for rule in rules() if "record" in rule}
    used = {
        name
        for expr in [*(rule["expr"] for rule in rules()), *dashboard_queries()]
        for name in RECORDED.findall(expr)
    }
    assert used - recorded == set()
    assert used  # the recording rules are in use


def test_the_dashboard_has_a_panel_for_each_figure_with_a_query_and_a_unit() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    titles = [panel["title"] for panel in dashboard["panels"]]
    assert set(titles) == PANELS and len(titles) == len(PANELS)
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(PANELS)
    for panel in dashboard["panels"]:
        assert panel["targets"] and all(target["expr"] for target in panel["targets"])
        assert panel["fieldConfig"]["defaults"]["unit"]
    assert [variable["type"] for variable in dashboard["templating"]["list"]] == ["datasource"]


async def test_every_metric_the_rules_and_the_dashboard_name_is_on_a_live_node_s_metrics(
    redis_url: str,
) -> None:
    store = open_store(redis_url, prefix=f"test:{uuid.uuid4().hex}:")
    try:
        async with running_server(store, countdown_ms=0) as server:
            ann = await player(server, "Ann")  # a hello, a request, an act and an error
            race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
            await ann.next_event("started")
            await ann.act(race, winning_actions(GAME, DEAL)[0])
            with pytest.raises(ServerError):
                await ann.join_race("0123456789abcdef")
            text = await asyncio.to_thread(scrape_text, server.port)
            await ann.close()
    finally:
        await store.purge()
        await store.close()
    exported = set()
    for family in text_string_to_metric_families(text):
        exported.add(family.name)
        exported.update(sample.name for sample in family.samples)
    named = {
        name
        for expr in [*(rule["expr"] for rule in rules()), *dashboard_queries()]
        for name in METRIC.findall(expr)
    }
    assert len(named) >= 15
    assert named - exported == set()


def scrape_text(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text: str = answer.read().decode()
    return text


def test_every_alert_and_only_those_has_a_runbook_line_in_the_operations_document() -> None:
    text = (ROOT / "docs" / "operations.md").read_text().split("## Dashboards and alerts")[1]
    documented = {
        match.group(1)
        for row in text.split("\n## ")[0].splitlines()
        if (match := re.match(r"\| `(Solrace\w+)`", row))
    }
    assert documented == alerts()
