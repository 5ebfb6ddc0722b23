"""The load balancer of docker-compose.yml, for real: Debian's haproxy runs the very file
the compose stack uses (deploy/haproxy.cfg), finds two real solrace nodes by DNS (a stub
in place of Docker's), and a node is killed behind it mid-race: its player comes back
through the balancer to the other node and the race goes on, nothing acknowledged lost."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from dns_stub import DnsStub
from harness import SERVE_QUICKLY, winning_actions
from racers import Racer
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client
from server.store import open_store

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "haproxy.cfg"
GAME, DEAL = "mount_sunflower", 18
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def players_on(node: ServeProcess) -> int:
    status, body = node.get("/healthz")
    assert status == 200, body
    players: int = json.loads(body)["players"]
    return players


@pytest.fixture
def balancer(tmp_path: Path) -> Iterator[tuple[str, int, int]]:
    """HAProxy in front of nodes named ``nodes.test`` at 127.0.0.1 and 127.0.0.2; yields
    (its URL, the nodes' port, its port)."""
    if not Path(HAPROXY).exists():
        pytest.fail("haproxy is not installed: sh .ci/system-packages", pytrace=False)
    node_port, dns_port, listen = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "SOLRACE_LISTEN": f"127.0.0.1:{listen}",
        "SOLRACE_DNS": f"127.0.0.1:{dns_port}",
        "SOLRACE_NODES": f"nodes.test:{node_port}",
    }
    with DnsStub({"nodes.test": ["127.0.0.1", "127.0.0.2"]}, dns_port):
        check = subprocess.run([HAPROXY, "-c", "-f", str(CONFIG)], env=env, capture_output=True)
        assert check.returncode == 0, check.stderr
        log = (tmp_path / "haproxy.log").open("w")
        process = subprocess.Popen(
            [HAPROXY, "-db", "-f", str(CONFIG)], env=env, stdout=log, stderr=log
        )
        try:
            yield f"ws://127.0.0.1:{listen}/ws", node_port, listen
        finally:
            process.terminate()
            process.wait(10)


def through(listen: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{listen}{path}", timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


async def test_a_node_killed_behind_the_balancer_is_carried_on_by_the_other(
    balancer: tuple[str, int, int], redis_url: str, tmp_path: Path
) -> None:
    url, node_port, listen = balancer
    prefix = f"balanced-{uuid.uuid4().hex}:"
    args = ("--redis", redis_url, "--redis-prefix", prefix, *SERVE_QUICKLY, "--countdown-ms", "200")
    args += ("--rate", "10000", "--burst", "10000")
    with (
        ServeProcess(node_port, tmp_path / "a", *args, host="127.0.0.1") as a,
        ServeProcess(node_port, tmp_path / "b", *args, host="127.0.0.2") as b,
    ):
        await asyncio.to_thread(a.start)
        await asyncio.to_thread(b.start)
        seen: set[str] = set()
        deadline = time.monotonic() + 20
        while len(seen) < 2:  # the balancer found both nodes and sends to each
            assert time.monotonic() < deadline, "the balancer never used both nodes"
            status, body = await asyncio.to_thread(through, listen, "/readyz")
            if status == 200:
                seen.add(json.loads(body)["node"])
            await asyncio.sleep(0.1)
        status, page = await asyncio.to_thread(through, listen, "/")
        assert status == 200 and b"<html" in page.lower()  # the page, through the balancer

        ann, bob = await Client.connect(url, "Ann"), await Client.connect(url, "Bob")
        assert (players_on(a), players_on(b)) == (1, 1)  # leastconn: one each
        own_header = {"X-Forwarded-For": "198.51.100.7"}  # the balancer adds a second line
        async with await Client.connect(url, "Cy", headers=own_header) as cy:
            assert cy.welcome is not None and (await cy.request("list_races"))["races"] == []
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        for client in (ann, bob):
            await client.next_event("started")
        ann_racer, bob_racer = Racer(ann, race), Racer(bob, race)
        wins = winning_actions(GAME, DEAL)
        await ann_racer.play(wins[:30])
        await bob_racer.play(wins[:20])
        assert ann.welcome is not None
        lost, kept = (a, b) if ann.welcome.node.startswith(_name_of(a)) else (b, a)
        lost.kill()  # Ann's node, mid-race
        finished = await ann_racer.play(wins[30:])  # she reconnects through the balancer
        assert finished["outcome"] == "finished"
        assert players_on(kept) == 2
        await bob_racer.play(wins[20:25])
        await bob.resign(race)
        result = (await bob.next_event("result")).data
        assert [e["player"] for e in result["ranking"]] == [ann.player, bob.player]
        store = open_store(redis_url, prefix=prefix)
        try:
            for racer in (ann_racer, bob_racer):
                logged = await store.races.racer_log(race, racer.client.player)
                assert [entry.action for entry in logged] == racer.acked
        finally:
            await store.close()
        for client in (ann, bob):
            await client.close()


def _name_of(node: ServeProcess) -> str:
    """The node's name, as its /readyz says."""
    status, body = node.get("/readyz")
    assert status == 200
    name: str = json.loads(body)["node"]
    return name
