"""Players' sessions: who they are, their resume token, their numbered events, and the one
live connection that carries them.

Every event a player is sent is numbered from 1 and kept (the last ``buffer`` of them), so
a player who reconnects with the number of the last event they saw gets exactly what they
missed, or a full snapshot when that is too far back.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from typing import Any

from websockets.asyncio.server import ServerConnection

from protocol.messages import Event, ServerMessage
from server.outbox import Outbox

log = logging.getLogger("solrace.sessions")
_closing: set[asyncio.Future[None]] = set()  # keeps close tasks alive until they finish


def close_soon(connection: ServerConnection, code: int, reason: str) -> None:
    """Start closing ``connection`` without waiting for it."""
    task = asyncio.ensure_future(connection.close(code, reason))
    _closing.add(task)
    task.add_done_callback(_closing.discard)


class Session:
    def __init__(
        self,
        name: str,
        buffer: int,
        outbox: Outbox,
        player: str | None = None,
        token: str | None = None,
    ) -> None:
        self.outbox = outbox
        self.player = player or "p" + secrets.token_hex(6)
        self.token = token or secrets.token_urlsafe(24)
        self.name = name
        self.connection: ServerConnection | None = None
        self.encoding = ""
        self.events: deque[Event] = deque(maxlen=buffer)
        self.last_event = 0
        self.racing: set[str] = set()  # race ids this player races in
        self.watching: set[str] = set()  # race ids this player spectates
        # race id -> (the standings version last sent, when it was sent on the mono clock)
        self.standings_sent: dict[str, tuple[int, int]] = {}
        self.last_act_ms: dict[str, int] = {}  # race id -> when this player last acted
        self.grace: asyncio.TimerHandle | None = None
        self.write_limit = 1 << 20

    @property
    def connected(self) -> bool:
        return self.connection is not None

    def send(self, message: ServerMessage) -> None:
        """Send without waiting (at the end of this loop turn); a connection too far behind
        is closed (the player resumes and catches up from the numbered events)."""
        connection = self.connection
        if connection is None:
            return
        transport = connection.transport
        if transport is not None and transport.get_write_buffer_size() > self.write_limit:
            log.warning("closing a connection that does not read", extra={"player": self.player})
            close_soon(connection, 1008, "not reading its messages")
            return
        self.outbox.send(connection, self.encoding, message)

    def push(self, kind: str, data: dict[str, Any]) -> None:
        """Number, keep and send an event."""
        self.last_event += 1
        event = Event(self.last_event, kind, data)
        self.events.append(event)
        self.send(event)

    def missed_since(self, last_seen: int) -> list[Event] | None:
        """The events after ``last_seen``, or None if some of them are no longer kept."""
        if last_seen >= self.last_event:
            return []
        if not self.events or self.events[0].n > last_seen + 1:
            return None
        return [event for event in self.events if event.n > last_seen]
