"""Every frame the server sends, written at the end of the loop turn that made it.

One turn of the event loop answers every request that arrived together. Writing those
answers one after another once the turn is over, rather than each the moment it is ready,
lets a peer's process wake once for many of them (Redis writes its replies the same way,
just before it polls again). Frames to one connection keep their order, and a frame to a
connection that has begun closing is dropped, as websockets itself would drop it, and so
is a frame to a connection too far behind (it is not reading; its session closes it).
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Iterable

from websockets.asyncio.server import ServerConnection
from websockets.protocol import State

from protocol.messages import ServerMessage, encode_server
from protocol.wire import encode

log = logging.getLogger("solrace.outbox")


class Outbox:
    """``limit``: a connection whose write buffer holds more than this many bytes gets no
    more frames (it does not read; its session closes it)."""

    def __init__(self, limit: int = 1 << 20) -> None:
        self.limit = limit
        self._frames: list[tuple[ServerConnection, bytes]] = []

    def send(self, connection: ServerConnection, encoding: str, message: ServerMessage) -> None:
        """Queue ``message``, encoded as the connection speaks, for the end of this turn."""
        self.write(connection, frame_bytes(encode(encode_server(message), encoding)))

    def write(self, connection: ServerConnection, frame: bytes) -> None:
        """Queue a complete frame (see ``frame_bytes``) for the end of this turn."""
        if not self._frames:
            asyncio.get_running_loop().call_soon(self.flush)
        self._frames.append((connection, frame))

    def flush(self) -> None:
        """Write what is queued (the loop calls this once the turn is over)."""
        frames, self._frames = self._frames, []
        limit = self.limit
        for connection, frame in frames:
            transport = connection.transport
            if (
                connection.protocol.state is State.OPEN
                and transport is not None
                and transport.get_write_buffer_size() <= limit
            ):
                transport.write(frame)

    def write_at_once(self, frames: Iterable[tuple[ServerConnection, bytes]]) -> int:
        """Write complete frames now (a spectator feed's fan-out), after what is queued,
        so every connection's frames keep their order; the same connections are skipped
        as by ``flush``. Returns how many were written."""
        if self._frames:
            self.flush()
        limit = self.limit
        written = 0
        for connection, frame in frames:
            transport = connection.transport
            if (
                connection.protocol.state is State.OPEN
                and transport is not None
                and transport.get_write_buffer_size() <= limit
            ):
                try:
                    transport.write(frame)
                except Exception:  # one broken connection must not cost the others theirs
                    log.exception("writing a frame failed")
                    continue
                written += 1
        return written


_SHORT = struct.Struct("!BB")  # FIN + opcode, then a 7-bit length
_MEDIUM = struct.Struct("!BBH")  # ... 126, then a 16-bit length
_LONG = struct.Struct("!BBQ")  # ... 127, then a 64-bit length


def frame_bytes(payload: bytes | str) -> bytes:
    """A complete server-to-client websocket frame for ``payload``: a text frame for a
    string, a binary frame for bytes. Server frames are not masked and compression is off,
    so the bytes are the same for any connection; writing them to the transport is what
    ``websockets.broadcast`` does, without building the frame again per connection.

    The header is RFC 6455's (section 5.2), built here because websockets' own
    ``Frame.serialize`` costs ten times as much on the server's hottest path; a test
    checks these bytes against ``Frame.serialize`` for every length encoding."""
    if isinstance(payload, str):
        try:
            data, first = payload.encode(), 0x81  # FIN, text
        except UnicodeEncodeError:  # a lone surrogate stored before they were refused
            data, first = payload.encode(errors="replace"), 0x81
    else:
        data, first = payload, 0x82  # FIN, binary
    length = len(data)
    if length < 126:
        return _SHORT.pack(first, length) + data
    if length < 65536:
        return _MEDIUM.pack(first, 126, length) + data
    return _LONG.pack(first, 127, length) + data
