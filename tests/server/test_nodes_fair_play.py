"""Fair play through two nodes (real ``solrace serve`` processes on one Redis): a run held
on one node waits for a moderator on the other, whose decision every node's boards and
ratings follow; a rated race whose racers are on two nodes is reviewed once; accounts on
one device or one session are related whichever node saw them (a run held, a race not
rated); a bot is a bot on either node, and a log read on one checks against the other's
key and receipts; an address's registrations a day are counted across the nodes."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from daily_field import field_of, placed_before_the_field, today
from harness import password_for, quick_race_played, winning_actions
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client, ServerError
from protocol.daily import day_of
from protocol.fairplay import FIELD_RUNS, PACE_ACTIONS
from protocol.receipts import receipts
from protocol.signing import signature_problem
from protocol.verify import check_log
from server.store import open_store

GAME, DEAL = "mount_sunflower", 18
TOKEN = "a-moderator-s-token-of-forty-characters!"
HELD = (
    "--no-certify",
    "--fair-play-solver-nodes",
    "0",  # judged on pace: no worker process needed
    "--rank-new-accounts",
    *("--ranked-account-days", "0", "--ranked-account-games", "0"),
    "--admin-token",
    TOKEN,
    "--trusted-proxy",
    "127.0.0.1",  # the players' own addresses, as behind the balancer
    "--countdown-ms",
    "300",
    "--max-race-ms",
    "1500",
    "--rate",
    "10000",
    "--burst",
    "10000",
)


@pytest.fixture
def prefix() -> str:
    """The nodes' keys' prefix on the test's Redis."""
    return f"fair-{uuid.uuid4().hex}:"


@pytest.fixture
async def two_nodes(
    redis_url: str, prefix: str, tmp_path: Path
) -> AsyncIterator[tuple[ServeProcess, ...]]:
    store = open_store(redis_url, prefix=prefix)
    await store.days.set_daily_deal(GAME, day_of(int(time.time() * 1000)), DEAL)
    await store.close()
    args = ("--redis", redis_url, "--redis-prefix", prefix, *HELD)
    with (
        ServeProcess(free_port(), tmp_path / "a", *args) as a,
        ServeProcess(free_port(), tmp_path / "b", *args) as b,
    ):
        await asyncio.to_thread(a.start)
        await asyncio.to_thread(b.start)
        yield a, b


async def member_at(
    node: ServeProcess, name: str, address: str, device: str | None = None
) -> Client:
    client = await Client.connect(
        node.url, name, headers={"X-Forwarded-For": address}, device=device
    )
    await client.register(name, password_for(name))
    return client


async def on_one_device(
    nodes: tuple[ServeProcess, ServeProcess], first: str, second: str
) -> tuple[Client, Client]:
    """Two members, on addresses of their own, one device, each on a node of its own."""
    device = "one-phone-0123456789"
    return (
        await member_at(nodes[0], first, "10.0.0.1", device),
        await member_at(nodes[1], second, "10.0.0.2", device),
    )


async def admin(client: Client, command: str, **fields: Any) -> dict[str, Any]:
    return await client.request("admin", token=TOKEN, command=command, **fields)


async def eventually(check: Any, seconds: float = 10) -> Any:
    deadline = time.monotonic() + seconds
    while not (answer := await check()) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return answer


async def test_a_run_held_on_one_node_is_cleared_on_the_other_and_every_board_follows(
    two_nodes: tuple[ServeProcess, ServeProcess],
) -> None:
    a, b = two_nodes
    fast = await member_at(a, "Fast", "10.0.0.1")
    started = await fast.daily_start(GAME)
    assert started["ranked"]
    for action in winning_actions(GAME, DEAL):  # at a machine's pace
        await fast.act(started["race"]["race"], action)
    assert (await fast.next_event("held")).data["what"] == "daily"
    moderator = await Client.connect(b.url, "Mod")

    async def flagged() -> list[str]:
        return [review["race"] for review in (await admin(moderator, "flagged"))["reviews"]]

    assert await eventually(flagged) == [started["race"]["race"]]
    names_on_a = [entry["name"] for entry in (await fast.daily_board(GAME))["top"]]
    assert names_on_a == []  # held off the board on every node
    await admin(moderator, "clear", race=started["race"]["race"], reason="a fast player")
    board_on_a = (await fast.daily_board(GAME))["top"]
    assert [entry["name"] for entry in board_on_a] == ["Fast"]


async def test_runs_placed_before_the_day_s_field_are_held_once_it_has_one_whichever_node(
    two_nodes: tuple[ServeProcess, ServeProcess], redis_url: str, prefix: str
) -> None:
    a, b = two_nodes  # one of them holds the daily lease: one player is on the other
    on_a, on_b = await member_at(a, "Quick", "10.0.0.1"), await member_at(b, "Rapid", "10.0.0.2")
    store = open_store(redis_url, prefix=prefix)
    try:
        runs = [
            await placed_before_the_field(store, GAME, on_a.player, "Quick", 300_000),
            await placed_before_the_field(store, GAME, on_b.player, "Rapid", 310_000),
        ]
        await field_of(store, GAME, DEAL, range(FIELD_RUNS - 1))  # 20 besides each one's own
        for client, run in zip((on_a, on_b), runs, strict=True):
            held = (await client.next_event("held", timeout=15)).data
            assert held == {"race": run.race, "game": GAME, "what": "daily"}
        assert await store.moderation.awaiting_field(GAME, today()) == []
        board = await store.days.daily_board(GAME, today(), 100)
        assert len(board.top) == FIELD_RUNS - 1  # the field's, the two held off it
    finally:
        await store.close()


async def test_a_rated_race_across_two_nodes_is_reviewed_once_and_rated_once_when_cleared(
    two_nodes: tuple[ServeProcess, ServeProcess],
) -> None:
    a, b = two_nodes
    ann, bob = await member_at(a, "Ann", "10.0.0.1"), await member_at(b, "Bob", "10.0.0.2")
    race = await quick_race_played(ann, bob, "sanibel", actions=PACE_ACTIONS)
    for racer in (ann, bob):
        assert (await racer.next_event("held")).data == {
            "race": race,
            "game": "sanibel",
            "what": "race",
        }
    moderator = await Client.connect(a.url, "Mod")

    async def flagged() -> list[str]:
        return [review["race"] for review in (await admin(moderator, "flagged"))["reviews"]]

    assert await eventually(flagged) == [race]  # both nodes followed it: one review
    await admin(moderator, "clear", race=race, reason="two quick players")
    for client in (ann, bob):
        rating = (await client.request("profile", player=client.player))["ratings"]["sanibel"]
        assert rating["games"] == 1  # rated once, whichever node cleared it


async def test_a_run_by_an_account_on_the_device_of_one_that_started_on_the_other_node_is_held(
    two_nodes: tuple[ServeProcess, ServeProcess],
) -> None:
    a, _ = two_nodes
    throwaway, main = await on_one_device(two_nodes, "Throw", "Main")
    for client in (throwaway, main):  # the throw-away starts first, the main account next
        started = await client.daily_start(GAME)
        assert started["ranked"]
        await client.resign(started["race"]["race"])
    assert (await main.next_event("held")).data == {
        "race": started["race"]["race"],
        "game": GAME,
        "what": "daily",
    }
    moderator = await Client.connect(a.url, "Mod")
    review = (await admin(moderator, "review", race=started["race"]["race"]))["review"]
    evidence = review["players"][main.player]["evidence"]["related_account"]
    assert (evidence["account"], evidence["how"]) == ("Throw", "device")


async def test_a_run_of_an_account_registered_on_a_session_resumed_on_the_other_node_is_held(
    two_nodes: tuple[ServeProcess, ServeProcess],
) -> None:
    """A guest on node A signs in to Throw; the guest's token, presented on node B from
    another address, registers Main: related by their session (token lineage)."""
    a, b = two_nodes
    await member_at(a, "Throw", "10.0.0.1")
    guest = await Client.connect(a.url, "Gus", headers={"X-Forwarded-For": "10.0.0.2"})
    guest_token = guest.token
    await guest.sign_in("Throw", password_for("Throw"))
    main = Client(b.url, "Gus")
    main.headers, main.token = {"X-Forwarded-For": "10.0.0.3"}, guest_token
    await main.resume()
    await main.register("Main", password_for("Main"))
    for client in (guest, main):  # the throw-away starts first, the main account next
        started = await client.daily_start(GAME)
        assert started["ranked"]
        await client.resign(started["race"]["race"])
    assert (await main.next_event("held")).data["race"] == started["race"]["race"]
    moderator = await Client.connect(b.url, "Mod")
    review = (await admin(moderator, "review", race=started["race"]["race"]))["review"]
    evidence = review["players"][main.player]["evidence"]["related_account"]
    assert (evidence["account"], evidence["how"]) == ("Throw", "session")


async def test_accounts_on_one_device_never_rate_each_other_across_two_nodes(
    two_nodes: tuple[ServeProcess, ServeProcess],
) -> None:
    ann, bob = await on_one_device(two_nodes, "Ann", "Bob")
    await quick_race_played(ann, bob, "sanibel")
    for racer in (ann, bob):
        assert (await racer.next_event("unrated", timeout=10)).data["reason"] == "related"


async def test_a_bot_on_one_node_shows_as_a_bot_on_the_other_and_the_log_checks_anywhere(
    two_nodes: tuple[ServeProcess, ServeProcess],
) -> None:
    """Bots, signatures and receipts through two nodes: a bot's race made on node A is
    listed on B with its bot flag; the person on B races it; the log read on B is signed
    with the key A publishes, and holds exactly the actions A told the bot it accepted (B
    ended the race with a replica two actions short when the bot's resignation reached it
    before their "log" messages: it now reads the logs before a record that retires)."""
    a, b = two_nodes
    robo = await Client.connect(a.url, "Robo", bot=True)
    race = (await robo.create_race(GAME, deal=DEAL))["race"]
    person = await Client.connect(b.url, "Pat")

    async def listed() -> list[dict[str, Any]]:
        return [info for info in await person.list_races() if info["race"] == race]

    (info,) = await eventually(listed)
    assert [(p["name"], p.get("bot", False)) for p in info["players"]] == [("Robo", True)]
    await person.join_race(race)
    for client in (robo, person):
        await client.next_event("started")
    told = [(await robo.act(race, act))["receipt"] for act in winning_actions(GAME, DEAL)[:4]]
    for client in (robo, person):
        await client.resign(race)
    await person.next_event("result")
    log = await person.race_log(race)
    keys = await asyncio.to_thread(published_keys, a.port)
    assert signature_problem(log, keys) is None
    (bot_log,) = [racer for racer in log["racers"] if racer["player"] == robo.player]
    assert bot_log["bot"] is True
    assert receipts(race, robo.player, bot_log["actions"]) == told  # all four, read on B
    assert check_log(log) == []  # and B's result agrees with them


def published_keys(port: int) -> dict[str, str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/signing-keys", timeout=5) as got:
        return {row["key"]: row["public_key"] for row in json.loads(got.read())["keys"]}


async def test_one_address_registers_its_three_accounts_a_day_across_both_nodes(
    two_nodes: tuple[ServeProcess, ServeProcess],
) -> None:
    a, b = two_nodes
    for name, node in (("One", a), ("Two", b), ("Three", a)):
        await member_at(node, name, "10.0.9.9")
    with pytest.raises(ServerError) as refused:
        await member_at(b, "Four", "10.0.9.9")  # the other node counts the same day
    assert refused.value.code == "auth_rate_limited"
    await member_at(b, "Five", "10.0.9.10")  # another address may
