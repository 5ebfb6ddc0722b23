"""``solrace bench redis-clients`` runs end to end on a tiny load: both clients (the store's
own hiredis connections and redis-py) send every batch size and hear every message
published."""

from __future__ import annotations

import json
import subprocess
import sys

CLIENTS = {"hiredis (own)", "redis-py"}


def test_the_redis_clients_benchmark_measures_both_clients_at_every_batch_size() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "redis-clients", "--json"]
    command += ["--batches", "20", "--messages", "300"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    assert set(result["batches"]) == {"1", "3", "70"}
    for clients in result["batches"].values():
        assert set(clients) == CLIENTS
        for figures in clients.values():
            assert 0 < figures["p50_ms"] <= figures["p99_ms"]
            assert figures["cpu_us_per_action"] > 0
    assert set(result["pubsub"]) == CLIENTS
    for figures in result["pubsub"].values():
        assert figures["heard"] == 300 and figures["messages_per_s"] > 0


def test_the_redis_clients_benchmark_refuses_too_few_batches() -> None:
    command = [sys.executable, "-m", "solrace.cli", "bench", "redis-clients", "--batches", "2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "--batches must be at least 10" in done.stderr
