"""The spectator feed's way out: what is due in each race goes to its spectators.

A race without a spectator delay sends a new feed item at the end of the loop turn that
made it (``soon``); delayed items, and spectator counts, are sent by the ticker (``flush``,
every 50 ms) once due. Either way a race's due items are written as one prebuilt frame
per spectator, a chunk of spectators per loop turn without pauses, so players' requests
are read in between; items that come while a fan-out is being written wait for it and
then go out together, one write per spectator. A spectator too far behind is dropped and
told so (``watch_ended``, ``too_slow``): the feeds decide who is too slow, from the
spectators' lines (``server/edge/lines.py``), which rooms never see.

Rooms (``server/state/rooms.py``) say what is due and who watches; this is the one part that
writes the feed to sockets (through the ``Outbox``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection

from protocol.messages import Watch, encode_server
from protocol.player_events import WatchEnded
from protocol.race import Now
from protocol.wire import encode
from server.config import Settings
from server.edge.lines import Lines
from server.edge.outbox import frame_bytes
from server.state.rooms import Feeding, Room
from server.state.sessions import Session

log = logging.getLogger("solrace.feeds")


class FanOutStats:
    """What writing feed items to spectators cost on this node: fan-outs, frames written,
    seconds from an item's release to its last spectator's write (wall, and the largest),
    and the server's CPU seconds spent writing them (``/metrics``)."""

    __slots__ = ("count", "cpu_seconds", "frames", "seconds", "seconds_max")

    def __init__(self) -> None:
        self.count = self.frames = 0
        self.seconds = self.seconds_max = self.cpu_seconds = 0.0

    def add(self, frames: int, seconds: float, cpu_seconds: float) -> None:
        self.count += 1
        self.frames += frames
        self.seconds += seconds
        self.seconds_max = max(self.seconds_max, seconds)
        self.cpu_seconds += cpu_seconds


class Feeds:
    def __init__(self, settings: Settings, lines: Lines) -> None:
        self.settings = settings
        self.lines = lines
        self.outbox = lines.outbox
        self.feeding = Feeding(self.soon)  # rooms whose feed has something to send
        self.fan_outs = FanOutStats()

    def flush(self, moment: Now) -> None:
        """Send every race's spectators what is due (called each tick)."""
        for room in list(self.feeding):
            self._feed(room, moment.mono_ms)

    def soon(self, room: Room) -> None:
        """Send ``room``'s new items at the end of this loop turn (once for all of them)."""
        if not room.feed_soon:
            room.feed_soon = True
            asyncio.get_running_loop().call_soon(self._feed_soon, room)

    def _feed_soon(self, room: Room) -> None:
        room.feed_soon = False
        self._feed(room, int(time.monotonic() * 1000))

    def _fanned_out(self, room: Room, frames: int, seconds: float, cpu_seconds: float) -> None:
        """A fan-out is written: count it, and send what came meanwhile."""
        self.fan_outs.add(frames, seconds, cpu_seconds)
        if room.pending and not room.delay_ms:
            self.soon(room)

    def _feed(self, room: Room, mono_ms: int) -> None:
        """Send a race's spectators what is due, and its spectator count when it changed.
        While an earlier fan-out is still being written, wait for it (its end sends what
        came meanwhile in an undelayed race; the next tick, in a delayed one)."""
        if room.sending:
            return
        if len(room.spectators) != room.spectator_count_shown:
            room.spectator_count_shown = len(room.spectators)
            room.post("spectators", {"count": len(room.spectators)}, mono_ms)
        items = room.due_items(mono_ms)
        if items and room.spectators:
            for laggard in self._fan_out(room, items):
                laggard.watching.discard(room.id)
                room.unwatch(laggard)
                self.lines.push(laggard.player, WatchEnded(room.id, "too_slow"))
        if not room.pending and room.spectator_count_shown == len(room.spectators):
            self.feeding.discard(room)

    def _fan_out(self, room: Room, items: list[Watch]) -> list[Session]:
        """Send ``items`` to every spectator as one prebuilt frame (per encoding) each,
        written straight to the sockets a chunk of spectators per loop turn, the next chunk
        in the next turn (after a pause if the settings ask for one). Until the last chunk
        is written the room is ``sending``, and no newer items are released (they would
        overtake these); they wait, and go out together in the next fan-out. Returns the
        spectators too far behind to keep."""
        started = time.perf_counter()
        cpu_started = time.thread_time()
        settings = self.settings
        audience, laggards, encodings = self.audience(room)
        frames = {
            encoding: b"".join(frame_bytes(encode(encode_server(item), encoding)) for item in items)
            for encoding in encodings
        }
        room.sending = True
        fan_out = _FanOut(
            room,
            audience,
            settings.spectator_chunk,
            settings.spectator_pause_ms / 1000,
            frames,
            self.lines,
            lambda written, seconds, cpu: self._fanned_out(room, written, seconds, cpu),
            started,
        )
        fan_out.cpu = time.thread_time() - cpu_started
        fan_out.send()
        return laggards

    def audience(self, room: Room) -> tuple[list[Session], list[Session], set[str]]:
        """The spectators a fan-out of ``room`` goes to, those too far behind to keep
        (their line holds more than ``spectator_write_buffer`` bytes unread), and the
        encodings the first speak. (The feed's hottest loop: no calls but the lookups.)"""
        limit = self.settings.spectator_write_buffer
        by_player = self.lines.by_player
        laggards: list[Session] = []
        audience: list[Session] = []
        encodings: set[str] = set()
        for session in room.spectators:
            line = by_player.get(session.player)
            if line is not None:
                transport = line.connection.transport
                if transport is not None and transport.get_write_buffer_size() > limit:
                    laggards.append(session)
                    continue
                encodings.add(line.encoding)
            audience.append(session)
        return audience, laggards, encodings


class _FanOut:
    """One fan-out of prebuilt frames to a room's spectators, a chunk per loop turn."""

    def __init__(
        self,
        room: Room,
        audience: list[Session],
        chunk: int,
        pause_s: float,
        frames: dict[str, bytes],
        lines: Lines,
        done: Callable[[int, float, float], None],
        started: float,
    ) -> None:
        self.room = room
        self.audience = audience
        self.start = 0
        self.chunk = max(1, chunk)
        self.pause_s = pause_s
        self.frames = frames
        self.lines = lines
        self.done = done
        self.started = started
        self.cpu = 0.0
        self.written = 0

    def send(self) -> None:
        cpu_started = time.thread_time()
        end = self.start + self.chunk
        try:
            self.written += self.lines.outbox.write_at_once(self._frames(self.start, end))
        except Exception:  # never leave the feed stuck with ``sending`` set
            log.exception("writing a feed item to spectators failed", extra={"race": self.room.id})
        self.start = end
        self.cpu += time.thread_time() - cpu_started
        if self.start < len(self.audience):
            loop = asyncio.get_running_loop()
            if self.pause_s > 0:
                loop.call_later(self.pause_s, self.send)
            else:
                loop.call_soon(self.send)
            return
        self.room.sending = False
        self.done(self.written, time.perf_counter() - self.started, self.cpu)

    def _frames(self, start: int, end: int) -> list[tuple[ServerConnection, bytes]]:
        """The frames of this chunk: to each spectator of it who still watches the race, on
        their line here as it is now (in an encoding this fan-out has a frame for): a
        spectator may have come back on another line since the fan-out began."""
        race, by_player, frames = self.room.id, self.lines.by_player, self.frames
        written = []
        for session in self.audience[start:end]:
            line = by_player.get(session.player)
            if line is not None and race in session.watching:
                frame = frames.get(line.encoding)
                if frame is not None:
                    written.append((line.connection, frame))
        return written
