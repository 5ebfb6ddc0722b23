"""The spectator feed's fan-out, on rooms with stand-in sockets: an undelayed item goes out
at the end of the loop turn that made it, a chunk of spectators per loop turn with no
pauses, one frame per spectator; items that come during a fan-out wait and then go out
together, in order; a spectator too far behind is dropped; a delayed feed keeps its delay."""

from __future__ import annotations

import asyncio
import dataclasses
from types import SimpleNamespace
from typing import Any

import msgpack
from websockets.protocol import State

from protocol.games import rules_for
from protocol.race import Race, RaceSettings
from protocol.wire import MSGPACK
from server.config import Settings
from server.edge.feeds import Feeds
from server.edge.lines import Line, Lines
from server.edge.outbox import Outbox
from server.state.rooms import Feeding, Room
from server.state.sessions import Session, Sessions

GAME = "mount_sunflower"


class Transport:
    """Keeps what is written; ``backlog`` stands for bytes the peer has not read."""

    def __init__(self, backlog: int = 0) -> None:
        self.written: list[bytes] = []
        self.backlog = backlog

    def get_write_buffer_size(self) -> int:
        return self.backlog

    def write(self, data: bytes) -> None:
        self.written.append(data)


def frames_in(data: bytes) -> list[dict[str, Any]]:
    """The messages in a run of unmasked binary frames with a 7- or 16-bit length."""
    messages = []
    while data:
        length, start = data[1] & 0x7F, 2
        if length == 126:
            length, start = int.from_bytes(data[2:4], "big"), 4
        messages.append(msgpack.unpackb(data[start : start + length], raw=False))
        data = data[start + length :]
    return messages


def spectator(room: Room, lines: Lines, backlog: int = 0) -> tuple[Session, Transport]:
    """A spectator of ``room`` whose line here writes to a stand-in transport."""
    session = Session("fan", 64)
    transport = Transport(backlog)
    connection = SimpleNamespace(transport=transport, protocol=SimpleNamespace(state=State.OPEN))
    line = Line(connection, MSGPACK, 1 << 20)  # type: ignore[arg-type]
    lines.sessions.add(session)
    line.player = session.player
    lines.by_player[session.player] = line
    session.watching.add(room.id)
    room.watch(session)
    return session, transport


def a_room(feeding: Feeding, delay_ms: int) -> Room:
    rules = rules_for(GAME)
    # a lobby race (a ranked one's spectators see progress only: test_watching_rated_races)
    settings = RaceSettings(
        GAME, dict(rules.options), 18, spectator_delay_ms=delay_ms, ranked=False
    )
    return Room(Race("r1", settings, rules, "ann"), 0, feeding)


def feeds_and_room(delay_ms: int = 0, **changes: Any) -> tuple[Feeds, Lines, Room]:
    """A node's feeds (with ``changes`` to the settings), its lines, and a room fed by them."""
    lines = Lines(Sessions(1000, lambda player: None), Outbox())
    feeds = Feeds(dataclasses.replace(Settings(), **changes), lines)
    return feeds, lines, a_room(feeds.feeding, delay_ms)


async def turns(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_an_item_is_written_to_a_chunk_of_spectators_per_loop_turn_without_waiting() -> None:
    feeds, lines, room = feeds_and_room(spectator_chunk=4, feed_interval_ms=60_000)
    fans = [spectator(room, lines) for _ in range(10)]
    room.post("act", {"player": "ann", "action": "t0 1 t1"}, 0, racer="ann")
    await turns(1)  # the end of the turn that posted it: the first chunk
    assert sum(1 for _, transport in fans if transport.written) == 4 and room.sending
    await turns(2)  # two more turns: 4 + 4 + 2
    assert not room.sending and feeds.fan_outs.count == 1 and feeds.fan_outs.frames == 10
    for _, transport in fans:
        [frame] = transport.written  # one write, holding the spectator count and the item
        items = frames_in(frame)
        assert [item["kind"] for item in items] == ["act", "spectators"]
        assert items[0]["seq"] + 1 == items[1]["seq"] and items[1]["count"] == 10


async def test_items_that_come_during_a_fan_out_go_out_together_after_it_in_order() -> None:
    _, lines, room = feeds_and_room(spectator_chunk=3, feed_interval_ms=60_000)
    fans = [spectator(room, lines) for _ in range(9)]
    room.post("act", {"player": "ann", "action": "a1"}, 0, racer="ann")
    await turns(1)
    assert room.sending
    for action in ("a2", "a3", "a4"):  # while the first is being written
        room.post("act", {"player": "ann", "action": action}, 0, racer="ann")
    await turns(10)
    assert not room.sending and not room.pending
    for _, transport in fans:
        assert len(transport.written) == 2  # the first item; then the three that queued
        items = [item for frame in transport.written for item in frames_in(frame)]
        acts = [item["action"] for item in items if item["kind"] == "act"]
        assert acts == ["a1", "a2", "a3", "a4"]
        seqs = [item["seq"] for item in items]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


async def test_a_spectator_too_far_behind_is_dropped_and_told_why() -> None:
    _, lines, room = feeds_and_room(spectator_write_buffer=1000, feed_interval_ms=60_000)
    keeping, kept = spectator(room, lines)
    slow, behind = spectator(room, lines, backlog=1001)
    room.post("act", {"player": "ann", "action": "a1"}, 0, racer="ann")
    await turns(3)
    items = frames_in(b"".join(kept.written))
    assert [item["kind"] for item in items][:2] == ["act", "spectators"]
    assert items[-1]["kind"] == "spectators" and items[-1]["count"] == 1  # the count drops
    assert slow not in room.spectators and room.id not in slow.watching
    assert keeping in room.spectators
    # the laggard gets no feed item, only its watch_ended
    told = frames_in(b"".join(behind.written))
    assert [(m["type"], m["kind"], m["reason"]) for m in told] == [
        ("event", "watch_ended", "too_slow")
    ]


async def test_a_delayed_feed_waits_for_its_delay_and_the_tick() -> None:
    feeds, lines, room = feeds_and_room(delay_ms=400, feed_interval_ms=60_000)
    _, transport = spectator(room, lines)
    room.post("act", {"player": "ann", "action": "a1"}, 1000, racer="ann")
    await turns(5)
    assert transport.written == [] and room.released_seq == 0
    feeds.flush(SimpleNamespace(mono_ms=1399))  # type: ignore[arg-type]
    await turns(2)
    assert transport.written == []  # (the spectator count, posted now, is delayed too)
    feeds.flush(SimpleNamespace(mono_ms=1400))  # type: ignore[arg-type]
    await turns(2)
    items = frames_in(b"".join(transport.written))
    assert [(item["kind"], item["action"]) for item in items] == [("act", "a1")]
    feeds.flush(SimpleNamespace(mono_ms=1799))  # type: ignore[arg-type]
    await turns(2)
    assert [item["kind"] for item in frames_in(b"".join(transport.written))] == [
        "act",
        "spectators",
    ]


class Broken(Transport):
    def write(self, data: bytes) -> None:
        raise RuntimeError("Cannot call write() after write_eof()")


async def test_a_connection_whose_write_fails_costs_no_other_spectator_its_items() -> None:
    _, lines, room = feeds_and_room(spectator_chunk=2, feed_interval_ms=60_000)
    fans = [spectator(room, lines) for _ in range(5)]
    broken = lines.get(fans[0][0].player)
    assert broken is not None
    broken.connection.transport = Broken()  # type: ignore[assignment]
    for action in ("a1", "a2"):
        room.post("act", {"player": "ann", "action": action}, 0, racer="ann")
        await turns(6)
    assert not room.sending
    for index, (_, transport) in enumerate(fans):
        if index != 0:  # the one after it, in the same chunk, included
            items = [item for frame in transport.written for item in frames_in(frame)]
            assert [item["action"] for item in items if item["kind"] == "act"] == ["a1", "a2"]
