"""``GET /metrics``: the server's counters in Prometheus's format, read with
prometheus-client's own parser after real traffic."""

from __future__ import annotations

import asyncio
import urllib.request
import uuid

import pytest
from harness import player, running_server, url, winning_actions
from prometheus_client.parser import text_string_to_metric_families

from client.api import ServerError
from server.store import open_store

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
        for _ in range(100):  # the ticker's first tick (50 ms)
            if metrics[("solrace_tick_seconds_count", ())] > 0:
                break
            await asyncio.sleep(0.02)
            metrics = await asyncio.to_thread(scrape, server.port)
        assert metrics[("solrace_tick_seconds_count", ())] > 0
        await ann.close()
        await cy.close()


async def test_metrics_count_sessions_restored_races_rebuilt_and_store_writes(
    redis_url: str,
) -> None:
    prefix = f"test:{uuid.uuid4().hex}:"
    before, after = open_store(redis_url, prefix=prefix), open_store(redis_url, prefix=prefix)
    try:
        async with running_server(before, countdown_ms=0) as first:
            ann = await player(first, "Ann")
            race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
            await ann.next_event("started")
            for action in winning_actions(GAME, DEAL)[:3]:
                await ann.act(race, action)
            await ann.close()
        async with running_server(after, countdown_ms=0) as second:
            ann.url = url(second)  # the same token, on the process that carries on
            await ann.resume()
            await ann.act(race, winning_actions(GAME, DEAL)[3])
            metrics = await asyncio.to_thread(scrape, second.port)
            assert metrics[("solrace_hellos_total", (("kind", "restored"),))] == 1
            assert metrics[("solrace_races_rebuilt_total", ())] == 1
            assert metrics[("solrace_write_failures", ())] == 0
            assert metrics[("solrace_store_round_trips_total", ())] >= 1
            assert metrics[("solrace_store_write_seconds_total", ())] > 0
            trips = metrics[("solrace_store_round_trip_seconds_count", ())]
            assert trips == metrics[("solrace_store_round_trips_total", ())]  # one count, two names
            assert metrics[("solrace_store_round_trip_seconds_bucket", (("le", "+Inf"),))] == trips
            for family in ("daily_deals_certified", "daily_deals_uncertified"):
                assert (f"solrace_{family}", ()) in metrics  # counted in test_once_per_deployment
            await ann.close()
    finally:
        await before.purge()
        await before.close()
        await after.close()
