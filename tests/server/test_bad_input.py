"""Bad input gets a clear error (code, sentence, request id) or, for abuse, a close with the
right code; nothing is corrupted and everyone else is served as before."""

from __future__ import annotations

import asyncio
import contextlib
import json

import msgpack
import pytest
from harness import player, running_server, url
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from client.api import ServerError
from protocol.wire import JSON, MSGPACK
from server.store import MemoryStore


async def raw(server, encoding=JSON):  # type: ignore[no-untyped-def]
    """A bare websocket that has said hello, for sending frames the client never would."""
    connection = await connect(url(server), subprotocols=[encoding], compression=None)
    hello = {"type": "hello", "id": 0, "protocol": 1, "name": "raw"}
    await connection.send(json.dumps(hello) if encoding == JSON else msgpack.packb(hello))
    await connection.recv()
    return connection


async def answer(connection, frame):  # type: ignore[no-untyped-def]
    await connection.send(frame)
    reply = await asyncio.wait_for(connection.recv(), 5)
    return json.loads(reply) if isinstance(reply, str) else msgpack.unpackb(reply)


async def test_malformed_msgpack_gets_an_error_and_the_connection_goes_on() -> None:
    async with running_server() as server:
        connection = await raw(server, MSGPACK)
        error = await answer(connection, b"\xc1\xff\x00")
        assert (error["type"], error["code"], error["id"]) == ("error", "malformed_message", None)
        assert "MessagePack" in error["message"]
        ok = await answer(connection, msgpack.packb({"type": "list_races", "id": 7}))
        assert (ok["type"], ok["id"], ok["races"]) == ("result", 7, [])
        await connection.close()


async def test_malformed_json_gets_an_error() -> None:
    async with running_server() as server:
        connection = await raw(server)
        error = await answer(connection, '{"type": "list_races", "id": ')
        assert error["code"] == "malformed_message" and "JSON" in error["message"]
        await connection.close()


async def test_a_message_that_is_not_a_map_is_refused() -> None:
    async with running_server() as server:
        connection = await raw(server)
        error = await answer(connection, "[1, 2, 3]")
        assert error["code"] == "malformed_message"
        await connection.close()


async def test_binary_frame_on_a_json_connection_is_refused() -> None:
    async with running_server() as server:
        connection = await raw(server)
        error = await answer(connection, msgpack.packb({"type": "list_races", "id": 1}))
        assert error["code"] == "malformed_message" and "text frames" in error["message"]
        await connection.close()


async def test_unknown_message_type_is_answered_with_its_id() -> None:
    async with running_server() as server:
        connection = await raw(server)
        error = await answer(connection, json.dumps({"type": "teleport", "id": 42}))
        assert (error["code"], error["id"], error["of"]) == ("unknown_type", 42, "teleport")
        await connection.close()


@pytest.mark.parametrize(
    ("fields", "code", "words"),
    [
        ({"game": 7}, "bad_field", "'game' must be a string"),
        ({"game": "klondike"}, "unknown_game", "must be one of"),
        ({"game": "sanibel", "max_players": 0}, "bad_field", "'max_players' must be from 1"),
        ({"game": "sanibel", "max_players": True}, "bad_field", "whole number"),
        ({"game": "sanibel", "deal": "0"}, "bad_field", "deal number"),
        ({"game": "sanibel", "deal": "123456789012345678901"}, "bad_field", "1 to 20"),
        ({"game": "sanibel", "countdown_ms": 10**9}, "bad_field", "'countdown_ms'"),
        ({"game": "sanibel", "options": {"down": 11}}, "bad_options", "at most 10"),
        ({"game": "sanibel", "options": {"colour": 1}}, "bad_options", "no option"),
        ({"game": "sanibel", "color": 1}, "unknown_field", "no field 'color'"),
        ({}, "missing_field", "needs the field 'game'"),
    ],
)
async def test_wrong_fields_get_a_clear_error_with_the_request_id(
    fields: dict[str, object], code: str, words: str
) -> None:
    async with running_server() as server, await player(server, "Ann") as ann:
        with pytest.raises(ServerError) as refused:
            await ann.request("create_race", **fields)
        assert refused.value.code == code
        assert words in refused.value.message
        assert refused.value.of == "create_race"
        assert server.race_desk.rooms == {}


async def test_requests_before_hello_are_refused() -> None:
    async with running_server() as server:
        connection = await connect(url(server), subprotocols=[JSON])
        error = await answer(connection, json.dumps({"type": "list_races", "id": 3}))
        assert (error["code"], error["id"]) == ("hello_first", 3)
        await connection.close()


async def test_wrong_protocol_version_is_refused() -> None:
    async with running_server() as server:
        connection = await connect(url(server), subprotocols=[JSON])
        hello = {"type": "hello", "id": 1, "protocol": 99, "name": "Old"}
        error = await answer(connection, json.dumps(hello))
        assert error["code"] == "unsupported_protocol"
        await connection.close()


async def test_deep_nesting_and_long_strings_are_refused() -> None:
    async with running_server() as server:
        connection = await raw(server)
        deep = json.dumps({"type": "list_races", "id": 1, "x": [[[[[1]]]]]})
        assert (await answer(connection, deep))["code"] == "malformed_message"
        long = json.dumps({"type": "hello", "id": 2, "protocol": 1, "name": "x" * 300})
        assert (await answer(connection, long))["code"] == "malformed_message"
        await connection.close()


async def test_an_oversize_frame_closes_the_connection_with_1009() -> None:
    async with running_server() as server:
        connection = await raw(server)
        await connection.send(json.dumps({"type": "list_races", "id": 1, "pad": "x" * 5000}))
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(connection.recv(), 5)
        assert connection.close_code == 1009


async def test_a_flood_is_refused_then_closed_with_1008_and_others_are_served() -> None:
    async with running_server(rate_per_s=5, burst=5, flood_strikes=20) as server:
        bystander = await player(server, "Bea")
        connection = await raw(server)
        frame = json.dumps({"type": "list_races", "id": 1})
        for _ in range(40):
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                await connection.send(frame)
        codes = []
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            while True:
                codes.append(json.loads(await asyncio.wait_for(connection.recv(), 5)).get("code"))
        assert "rate_limited" in codes
        assert connection.close_code == 1008
        assert await bystander.list_races() == []
        await bystander.close()


async def test_origins_outside_the_allowlist_are_refused() -> None:
    async with running_server(origins=("https://cards.example",)) as server:
        with pytest.raises(InvalidStatus) as refused:
            await connect(url(server), origin="https://evil.example")  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403
        allowed = await connect(url(server), origin="https://cards.example")  # type: ignore[arg-type]
        await allowed.close()


async def test_actions_in_the_wrong_state_are_refused_and_change_nothing() -> None:
    async with running_server(countdown_ms=300) as server:
        ann, bob, cy = [await player(server, n) for n in ("Ann", "Bob", "Cy")]
        with pytest.raises(ServerError) as refused:
            await ann.act("0123456789abcdef", "deal")
        assert refused.value.code == "race_not_found"
        race = (await ann.create_race("sanibel", deal=1))["race"]
        with pytest.raises(ServerError) as refused:
            await ann.act(race, "deal")
        assert refused.value.code == "race_not_started"
        await bob.join_race(race)
        with pytest.raises(ServerError) as refused:
            await cy.act(race, "deal")
        assert refused.value.code == "not_in_race"
        with pytest.raises(ServerError) as refused:
            await cy.join_race(race)
        assert refused.value.code in ("race_full", "race_started")
        await ann.next_event("started")
        before = await ann.snapshot(race)
        with pytest.raises(ServerError) as refused:
            await ann.act(race, "t0 1 t0")
        assert refused.value.code == "same_pile"
        with pytest.raises(ServerError) as refused:
            await ann.act(race, "fly away")
        assert refused.value.code == "malformed_action"
        assert (await ann.snapshot(race))["you"]["view"] == before["you"]["view"]
        await ann.resign(race)
        with pytest.raises(ServerError) as refused:
            await ann.act(race, "deal")
        assert refused.value.code == "already_finished"
        for client in (ann, bob, cy):
            await client.close()


@pytest.mark.parametrize("encoding", [JSON, MSGPACK])
async def test_a_hello_with_a_lone_surrogate_is_refused_and_opens_no_session(
    encoding: str,
) -> None:
    hello = {"type": "hello", "id": 1, "protocol": 1, "name": "\ud800"}
    frame = (
        json.dumps(hello)
        if encoding == JSON
        else msgpack.packb(hello, unicode_errors="surrogatepass")
    )
    async with running_server() as server:
        connection = await connect(url(server), subprotocols=[encoding], compression=None)
        error = await answer(connection, frame)
        assert error["code"] == "malformed_message"
        after = await answer(
            connection,
            json.dumps({"type": "list_races", "id": 2})
            if encoding == JSON
            else msgpack.packb({"type": "list_races", "id": 2}),
        )
        assert after["code"] == "hello_first"
        bystander = await player(server, "Bob")
        assert await bystander.list_races() == []
        await connection.close()


async def test_a_client_that_never_reads_is_closed_once_with_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running_server(rate_per_s=1e9, burst=10**9, countdown_ms=0) as server:
        ann, bob, cy = [await player(server, name) for name in ("Ann", "Bob", "Cy")]
        race = (await ann.create_race("sanibel", max_players=3))["race"]
        await bob.join_race(race)
        await cy.join_race(race)
        await ann.next_event("started")
        connection = await raw(server, MSGPACK)
        await connection.send(msgpack.packb({"type": "spectate", "id": 0, "race": race}))
        connection.transport.pause_reading()  # type: ignore[attr-defined]  # never reads
        ask = msgpack.packb({"type": "snapshot", "id": 1, "race": race})  # a few KiB each
        for _ in range(10_000):
            await connection.send(ask)
            if connection.state.name != "OPEN":
                break
        for _ in range(100):
            closing = [r for r in caplog.records if "does not read" in r.getMessage()]
            if closing:
                break
            await asyncio.sleep(0.05)
        assert len(closing) == 1
        assert await ann.list_live() != []  # everyone else is served as before
        for line in server.lines.by_player.values():
            assert line.buffered() <= 300 << 10


async def test_a_request_the_server_fails_on_is_answered_internal_error_and_changes_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = MemoryStore()
    saving = store.races.save_race_if

    async def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug while saving the race")

    def create(request_id: int) -> str:
        return json.dumps({"type": "create_race", "id": request_id, "game": "sanibel"})

    async with (
        running_server(store) as server,
        await player(server, "ann") as ann,
        await player(server, "bob") as bob,
    ):
        store.races.save_race_if = broken  # type: ignore[method-assign]
        connection = await raw(server)
        error = await answer(connection, create(7))
        assert (error["code"], error["id"], error["of"]) == ("internal_error", 7, "create_race")
        assert "nothing was changed" in error["message"]
        assert "a bug while saving the race" in caplog.text  # logged for the operator
        assert await ann.list_races() == [] and await bob.list_live() == []
        mine = await answer(connection, json.dumps({"type": "my_races", "id": 9}))
        assert mine["races"] == []
        store.races.save_race_if = saving  # type: ignore[method-assign]
        again = await answer(connection, create(8))
        assert again["type"] == "result" and again["id"] == 8  # the connection goes on
        assert [r["race"] for r in await ann.list_races()] == [again["race"]["race"]]


async def test_only_rate_limited_refusals_count_toward_the_flood_close() -> None:
    async with running_server(flood_strikes=5) as server:
        connection = await raw(server)
        for n in range(50):  # ten times the strikes, each refused for what it is
            refused = await answer(connection, json.dumps({"type": "no_such", "id": n}))
            assert (refused["code"], refused["id"]) == ("unknown_type", n)
        listed = await answer(connection, json.dumps({"type": "list_races", "id": 99}))
        assert listed["type"] == "result" and connection.close_code is None


async def test_a_connection_that_said_hello_may_send_59_more_at_once_and_the_60th_waits() -> None:
    async with running_server(rate_per_s=0.01, burst=60) as server:  # no refill meanwhile
        connection = await raw(server)  # the hello took one token
        frames = [json.dumps({"type": "list_races", "id": n}) for n in range(60)]
        await asyncio.gather(*(connection.send(frame) for frame in frames))
        answers = [json.loads(await asyncio.wait_for(connection.recv(), 5)) for _ in frames]
        answers.sort(key=lambda a: a["id"])  # a refusal is sent at once, before queued answers
        assert [a["type"] for a in answers] == ["result"] * 59 + ["error"]
        assert (answers[-1]["code"], answers[-1]["id"]) == ("rate_limited", 59)
