"""What docs/protocol.md tells someone writing a client, held to the server over a bare
websocket and the client library: exactly which fields each signed answer's signature
covers, the refusal of a profile asked by a name no account can have, and a guest's
practice at yesterday's revealed deal showing that deal from the start."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from harness import player, race_alone_resigned, running_server, url
from websockets.asyncio.client import ClientConnection, connect

from client.api import ServerError
from protocol.daily import DAY_MS, day_of
from protocol.signing import signature_problem
from protocol.wire import JSON, PROTOCOL_VERSION
from server.store import MemoryStore

GAME, DEAL = "mount_sunflower", 18
ENVELOPE = ("type", "id", "of")


async def ask(connection: ClientConnection, request: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer to ``request``, as it came (the events before it skipped)."""
    await connection.send(json.dumps(request))
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(connection.recv(), 5))
        if frame.get("id") == request["id"]:
            return frame


async def test_a_daily_board_is_signed_without_its_envelope_and_a_race_log_as_its_log() -> None:
    async with running_server(countdown_ms=0) as server:
        ann = await player(server, "Ann")
        race = await race_alone_resigned(ann, GAME, DEAL)
        await ann.next_event("result")
        async with connect(url(server), subprotocols=[JSON]) as connection:  # type: ignore[list-item]
            hello = {"type": "hello", "id": 1, "protocol": PROTOCOL_VERSION, "name": "Writer"}
            welcome = await ask(connection, hello)
            key = welcome["signing_key"]
            keys = {key["key"]: key["public_key"]}
            board = await ask(connection, {"type": "daily_board", "id": 2, "game": GAME})
            log = await ask(connection, {"type": "race_log", "id": 3, "race": race})

    assert [board[field] for field in ENVELOPE] == ["result", 2, "daily_board"]
    signed = {k: v for k, v in board.items() if k not in ENVELOPE}
    assert signature_problem(signed, keys) is None
    assert signature_problem(board, keys) is not None  # the envelope is not signed
    assert set(log) == {*ENVELOPE, "log"}
    assert signature_problem(log["log"], keys) is None


async def test_a_profile_asked_by_a_name_no_account_can_have_is_refused_as_bad_username() -> None:
    async with running_server() as server, await player(server, "Ann") as ann:
        with pytest.raises(ServerError) as refused:
            await ann.request("profile", username="no such name!")
        assert refused.value.code == "bad_username"
        with pytest.raises(ServerError) as unknown:
            await ann.request("profile", username="nobody_here")
        assert unknown.value.code == "player_not_found"
        with pytest.raises(ServerError) as not_an_id:
            await ann.request("profile", player="someone")
        assert not_an_id.value.code == "bad_field"


async def test_a_guest_s_practice_at_yesterday_s_revealed_deal_shows_that_deal_from_the_start() -> (
    None
):
    store = MemoryStore()
    yesterday = day_of(int(time.time() * 1000) - DAY_MS)
    await store.days.set_daily_deal(GAME, yesterday, DEAL)
    async with running_server(store) as server, await player(server, "Gus") as guest:
        started = await guest.daily_start(GAME)
        assert started["day"] == yesterday and not started["ranked"]
        assert started["race"]["deal"] == str(DEAL)  # on yesterday's board already
        assert started["race"]["deal_chosen"] is True
        board = await guest.daily_board(GAME, day=yesterday)
        assert board["deal"] == str(DEAL)
