"""No card of today's daily before one's own ranked attempt, by any path (issue 23 §1):
a guest, and an account whose own attempt has not begun, go through every request and
HTTP route that can carry a card or a deal (daily start, resume, snapshot, spectate,
the lists of live races, race logs, profiles, ghosts, boards, metrics and health, errors)
while an account plays today's deal (on their node, or on another); nothing they receive
holds today's deal number, its starting tableau or the tableau it has reached (its cards
in their places: a guest sees cards of other deals, yesterday's, so single cards prove
nothing). Both stores, and two real nodes on one Redis."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from harness import SERVE_QUICKLY, member, password_for, running_server, url, winning_actions
from redis_server import free_port
from serve_process import ServeProcess

from client.api import Client, ServerError
from protocol.daily import day_of
from protocol.wire import decode_from_server
from server.store import Store, open_store

GAME, DEAL = "mount_sunflower", 18


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


async def http(port: int, path: str) -> str:
    def get() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as got:
            return str(got.read().decode())

    return await asyncio.to_thread(get)


async def everything_asked(
    port: int, who: Client, attempt: str, owner: str, guest: bool
) -> list[str]:
    """Every request that could show a card of ``attempt`` (today's, not ``who``'s), each
    answered or refused (a guest also plays its own daily: yesterday's; an account's own
    daily start would be its ranked attempt), and the HTTP routes: what came back."""
    asks: list[tuple[str, dict[str, Any]]] = [("daily_start", {"game": GAME})] if guest else []
    asks += [
        ("snapshot", {"race": attempt}),
        ("spectate", {"race": attempt}),
        ("race_log", {"race": attempt}),
        ("list_live", {}),
        ("list_races", {}),
        ("my_races", {}),
        ("profile", {"player": owner}),
        ("daily_board", {"game": GAME}),
        ("best_board", {"game": GAME}),
        ("daily_start", {"game": GAME, "ghost": True}),  # refused: no ranked run over
    ]
    for kind, fields in asks:
        try:
            answer = await who.request(kind, **fields)
            if kind == "daily_start":
                await who.resign(answer["race"]["race"])
        except ServerError:
            pass  # a refusal is a frame too: recorded
    await who.resume()  # a resume's snapshot
    await asyncio.sleep(0.2)
    return [await http(port, path) for path in ("/metrics", "/healthz", "/signing-keys")]


async def test_nobody_gets_a_card_of_today_s_deal_before_their_own_ranked_attempt(
    store: Store,
) -> None:
    await store.days.set_daily_deal(GAME, day_of(int(time.time() * 1000)), DEAL)
    async with running_server(store) as server:
        await walk_every_path(url(server), url(server), server.port)


async def test_nobody_on_another_node_gets_a_card_of_it_either(
    redis_url: str, tmp_path: Path
) -> None:
    """The account plays on one node, everyone else asks the other (real processes)."""
    prefix = f"leaks-{uuid.uuid4().hex}:"
    store = open_store(redis_url, prefix=prefix)
    await store.days.set_daily_deal(GAME, day_of(int(time.time() * 1000)), DEAL)
    await store.close()
    args = ("--redis", redis_url, "--redis-prefix", prefix, "--rank-new-accounts", *SERVE_QUICKLY)
    with (
        ServeProcess(free_port(), tmp_path / "a", *args) as a,
        ServeProcess(free_port(), tmp_path / "b", *args) as b,
    ):
        await asyncio.to_thread(a.start)
        await asyncio.to_thread(b.start)
        await walk_every_path(a.url, b.url, b.port)


async def walk_every_path(owner_url: str, walker_url: str, walker_port: int) -> None:
    """Ann plays today's deal (on ``owner_url``); a guest, an account before its attempt,
    the guest registered mid-way and one who signs in mid-way walk every path (on
    ``walker_url``): nothing they get holds the deal, its opening or where Ann is."""
    ann = await member(owner_url, "Ann")
    started = await ann.daily_start(GAME)
    attempt = started["race"]["race"]
    opening = json.dumps(started["race"]["you"]["view"]["tableau"])
    for action in winning_actions(GAME, DEAL)[:5]:
        await ann.act(attempt, action)
    reached = json.dumps((await ann.snapshot(attempt))["you"]["view"]["tableau"])
    guest = await Client.connect(walker_url, "Gus", record=True)
    waiting = await member(walker_url, "Wes")  # an account, its own attempt not begun
    waiting.record = True
    pages = await everything_asked(walker_port, guest, attempt, ann.player, guest=True)
    pages += await everything_asked(walker_port, waiting, attempt, ann.player, guest=False)
    await guest.register("Gus", password_for("Gus"))  # mid-way: an account now
    pages += await everything_asked(walker_port, guest, attempt, ann.player, guest=False)
    late = await Client.connect(walker_url, "Lee", record=True)
    await late.sign_in("Wes", password_for("Wes"))  # signs in mid-way, as Wes
    pages += await everything_asked(walker_port, late, attempt, ann.player, guest=False)
    for client in (guest, waiting, late):
        frames = [decode_from_server(frame, client.encoding) for frame in client.received]
        assert len(frames) >= 10  # every request was answered (or refused)
        assert str(DEAL) not in set().union(*(strings_in(frame) for frame in frames))
        texts = [json.dumps(frame) for frame in frames]
        assert not [t for t in texts if opening in t or reached in t]
    for page in pages:  # metrics (text), health and keys (JSON): no deal, no tableau
        assert opening not in page and reached not in page
        assert f'"{DEAL}"' not in page
