"""``GET /metrics``: the server's counters in Prometheus's format, read with
prometheus-client's own parser after real traffic."""

from __future__ import annotations

import asyncio
import urllib.request

import pytest
from harness import player, running_server, winning_actions
from prometheus_client.parser import text_string_to_metric_families

from client.api import ServerError

GAME, DEAL = "mount_sunflower", 18


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        assert answer.headers["Content-Type"].startswith("text/plain")
        text = answer.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def test_metrics_count_connections_requests_errors_acts_and_races() -> None:
    async with running_server(countdown_ms=0) as server:
        ann, cy = await player(server, "Ann"), await player(server, "Cy")
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        for action in winning_actions(GAME, DEAL)[:5]:
            await ann.act(race, action)
        with pytest.raises(ServerError):
            await ann.join_race("0123456789abcdef")
        await cy.spectate(race)
        metrics = await asyncio.to_thread(scrape, server.port)
        assert metrics[("solrace_connections", ())] == 2
        assert metrics[("solrace_requests_total", (("type", "create_race"),))] == 1
        errors = (("code", "race_not_found"), ("type", "join_race"))
        assert metrics[("solrace_errors_total", errors)] == 1
        assert metrics[("solrace_act_seconds_count", ())] == 5
        assert metrics[("solrace_hellos_total", (("kind", "new"),))] == 2
        assert metrics[("solrace_live_races", ())] == 1
        assert metrics[("solrace_spectators", ())] == 1
        assert metrics[("solrace_write_backlog", ())] >= 0
        assert metrics[("solrace_writes_total", ())] >= 5
        await ann.close()
        await cy.close()
