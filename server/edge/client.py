"""One websocket connection as the gateway sees it: its line (``server/edge/lines.py``: the
connection, its encoding and send buffer), its rate limits and what it has said so far."""

from __future__ import annotations

import asyncio
from collections import deque

from websockets.asyncio.server import ServerConnection

from protocol.wire import JSON
from server.config import Settings
from server.edge.lines import Line
from server.edge.ratelimit import FloodGuard, TokenBucket, attempts_bucket
from server.state.askers import Asker
from server.state.sessions import Session


class Client:
    """One websocket connection and what it has said so far."""

    def __init__(self, connection: ServerConnection, settings: Settings, now_s: float) -> None:
        self.connection = connection
        self.encoding = connection.subprotocol or JSON
        self.line = Line(connection, self.encoding, settings.max_write_buffer)
        self.bucket = TokenBucket(settings.rate_per_s, settings.burst, now_s)
        self.flood = FloodGuard(settings.flood_strikes)
        self.session: Session | None = None
        self.asker = Asker()  # who asks, as it has told (address, device, token lineage)
        self.closing = False  # closing for abuse: frames are read and dropped
        self.waiting: asyncio.Task[None] | None = None  # a request being answered by a task
        # messages read meanwhile, in order (made when first needed: most connections never do)
        self.queued: deque[tuple[str | bytes, float]] | None = None  # (frame, read at)
        self.deferred = 0  # answers waiting behind stored actions, to keep their order
        self.attempts = attempts_bucket(settings)  # register and sign-in attempts

    @property
    def replaced(self) -> bool:
        """Another connection has resumed this one's session."""
        return self.session is not None and self.line.replaced
