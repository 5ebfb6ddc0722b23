"""Each message is answered as it is read (server/edge/connection.py): whole messages only,
fragments joined, text checked, and one connection's answers always in its own order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from harness import running_server, url
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from client.api import Client
from protocol.wire import JSON
from server.edge.connection import MessageConnection

HELLO = {"type": "hello", "id": 0, "protocol": 1, "name": "raw"}


@asynccontextmanager
async def bare_connection() -> AsyncIterator[ClientConnection]:
    """A running server and a bare JSON websocket to it."""
    async with (
        running_server() as server,
        connect(url(server), subprotocols=[JSON], compression=None) as connection,  # type: ignore[list-item]
    ):
        yield connection


async def replies(connection: ClientConnection, count: int) -> list[dict[str, object]]:
    return [json.loads(await asyncio.wait_for(connection.recv(), 5)) for _ in range(count)]


async def test_a_request_sent_at_once_after_the_handshake_is_answered() -> None:
    async with bare_connection() as connection:
        await connection.send(json.dumps(HELLO))
        await connection.send(json.dumps({"type": "list_races", "id": 1}))
        welcome, listed = await replies(connection, 2)
        assert welcome["type"] == "welcome" and (listed["type"], listed["id"]) == ("result", 1)


async def test_a_request_sent_in_fragments_is_answered_like_a_whole_one() -> None:
    async with bare_connection() as connection:
        text = json.dumps(HELLO)
        await connection.send([text[:7], text[7:20], text[20:]])
        (welcome,) = await replies(connection, 1)
        assert welcome["type"] == "welcome" and welcome["name"] == "raw"


async def test_a_text_frame_that_is_not_utf8_closes_the_connection_with_1007() -> None:
    async with bare_connection() as connection:
        await connection.send(b'{"type": "\xff"}', text=True)
        try:
            await asyncio.wait_for(connection.recv(), 5)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1007
        else:
            raise AssertionError("the connection stayed open")


async def test_answers_keep_the_order_of_requests_even_behind_one_that_waits() -> None:
    async with bare_connection() as connection:
        await connection.send(json.dumps(HELLO))
        await replies(connection, 1)
        # best_board waits on the store; the actions behind it are answered at once
        # when read, unless they are queued behind it as they must be.
        requests = [{"type": "best_board", "id": 1, "game": "sanibel"}] + [
            {"type": "act", "id": n, "race": "nosuchrace", "seq": n, "action": "deal"}
            for n in range(2, 40)
        ]
        for request in requests:
            await connection.send(json.dumps(request))
        answered = await replies(connection, len(requests))
        assert [a["id"] for a in answered] == [r["id"] for r in requests]
        assert answered[0]["type"] == "result" and answered[1]["code"] == "race_not_found"


async def test_an_idle_connection_keeps_no_headers_queues_or_event_buffer_of_its_own() -> None:
    """What an idle player costs (``solrace bench idle``): once open, a connection keeps
    neither its handshake's headers (but X-Forwarded-For) nor a message queue of its own,
    and a session keeps no event buffer until it has an event to keep."""
    async with running_server() as server:
        ann = await Client.connect(url(server), "Ann", headers={"X-Forwarded-For": "192.0.2.7"})
        bob = await Client.connect(url(server), "Bob")
        sessions = [server.sessions.get(ann.player), server.sessions.get(bob.player)]
        assert sessions[0] is not None and sessions[1] is not None
        lines = [server.lines.get(ann.player), server.lines.get(bob.player)]
        connections = [line.connection if line is not None else None for line in lines]
        for connection in connections:
            assert isinstance(connection, MessageConnection)
            assert connection.request is not None and not connection.request.headers
            assert connection.response is not None and not connection.response.headers
            assert "select_subprotocol" not in connection.protocol.__dict__
        first, second = connections
        assert isinstance(first, MessageConnection) and isinstance(second, MessageConnection)
        assert (first.forwarded_for, second.forwarded_for) == ("192.0.2.7", None)
        assert first.recv_messages is second.recv_messages  # one shared, unused queue
        assert sessions[0].events is None and sessions[0].sent_at is None
        race = (await ann.create_race("sanibel"))["race"]
        await bob.join_race(race)
        joined = await ann.next_event("joined")  # numbered, kept and sent as before
        kept = sessions[0].events
        assert kept is not None and kept[0].n == joined.n and kept[0].kind == "joined"
        assert sessions[0].missed_since(0) == list(kept)  # what a resume would replay
        for client in (ann, bob):
            await client.close()
