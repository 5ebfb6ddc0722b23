"""A player's line: the websocket connection that carries their session on this node, the
encoding it speaks and its send buffer. Only the edge holds lines (the gateway, the
answers, the feeds, the executor); desks and rooms hold who a player is
(``server/state/sessions.py``) and say what to send as effects.

``Lines`` keeps this node's lines by player: a line is attached to a player at hello (or a
sign-in), an older line of theirs closed with 4001; what is pushed to a player is numbered
and kept by their session and written on their line, if it is here. A line whose buffer
holds more than its limit is not reading: it is closed (the player resumes and catches up
from the numbered events).
"""

from __future__ import annotations

import logging

from websockets.asyncio.server import ServerConnection

from protocol.messages import ServerMessage
from protocol.player_events import PlayerEvent
from protocol.server_messages import Event, encode_server
from protocol.wire import encode, with_number
from server.edge.connection import close_soon
from server.edge.outbox import Outbox, frame_bytes
from server.state.sessions import Session, Sessions

log = logging.getLogger("solrace.sessions")  # its lines as before the line was split out
CLOSE_REPLACED = 4001  # another connection resumed this player's session
CLOSE_NOT_READING = 1008


class Line:
    """One connection as a player's line: its encoding, the most its send buffer may hold,
    the player it carries (None before hello) and whether a newer line took them over."""

    __slots__ = ("connection", "encoding", "limit", "player", "replaced", "slow")

    def __init__(self, connection: ServerConnection, encoding: str, limit: int) -> None:
        self.connection = connection
        self.encoding = encoding
        self.limit = limit
        self.player: str | None = None
        self.replaced = False  # another connection carries its player now
        self.slow = False  # closed for not reading (logged once)

    def buffered(self) -> int:
        """Bytes written to the socket and not yet taken by the peer."""
        transport = self.connection.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def close(self, code: int, reason: str) -> None:
        close_soon(self.connection, code, reason)


class Lines:
    """This node's lines by player; what is pushed or sent to a player goes out on theirs."""

    def __init__(self, sessions: Sessions, outbox: Outbox) -> None:
        self.sessions = sessions
        self.outbox = outbox
        self.by_player: dict[str, Line] = {}
        self.told: PlayerEvent | None = None  # the event pushed last, and its fields encoded
        self.bodies: dict[str, bytes | str] = {}

    def get(self, player: str) -> Line | None:
        return self.by_player.get(player)

    def push(self, player: str, told: PlayerEvent) -> None:
        """Number and keep ``told`` in ``player``'s session, if it is here, and send it on
        their line, if they have one."""
        session = self.sessions.get(player)
        if session is None:
            return
        event = session.numbered(told)
        line = self.by_player.get(player)
        if line is not None and self.reading(line):
            payload = self.payload(told, event, line.encoding)
            self.outbox.write(line.connection, frame_bytes(payload))

    def payload(self, told: PlayerEvent, event: Event, encoding: str) -> bytes | str:
        """``event`` (``told``, numbered) encoded: its fields once per encoding while one
        event is pushed to player after player (an arena's standings to its watchers),
        each player's number added (``with_number``)."""
        if told is not self.told:
            self.told, self.bodies = told, {}
        body = self.bodies.get(encoding)
        if body is None:
            fields = encode_server(event)
            del fields["n"]
            body = self.bodies[encoding] = encode(fields, encoding)
        return with_number(body, event.n, encoding)

    def send(self, player: str, message: ServerMessage) -> None:
        """Send ``message`` (unnumbered, or numbered already) on ``player``'s line, if any."""
        line = self.by_player.get(player)
        if line is not None:
            self.write(line, message)

    def write(self, line: Line, message: ServerMessage) -> None:
        """Send without waiting (at the end of this loop turn); a line too far behind is
        closed instead. (On every answer's path: the buffer is read inline.)"""
        if self.reading(line):
            self.outbox.send(line.connection, line.encoding, message)

    def reading(self, line: Line) -> bool:
        """Whether ``line`` reads what it is sent; one too far behind is closed."""
        transport = line.connection.transport
        buffered = transport.get_write_buffer_size() if transport is not None else 0
        if buffered > line.limit:
            if not line.slow:
                line.slow = True
                log.warning(
                    "closing a connection that does not read",
                    extra={"player": line.player, "buffered": buffered},
                )
                line.close(CLOSE_NOT_READING, "not reading its messages")
            return False
        return True

    def attach(self, line: Line, session: Session) -> None:
        """``line`` carries ``session`` from now on: its grace period ends, and an older
        line of its player is closed (4001). The caller's client speaks for it now."""
        self.sessions.back(session)
        player = session.player
        old = self.by_player.get(player)
        if old is not None and old is not line:
            old.replaced = True
            old.close(CLOSE_REPLACED, "replaced by a newer connection")
        self.detach(line)  # a sign-in: the line carried the guest until now
        line.player = player
        self.by_player[player] = line

    def detach(self, line: Line) -> None:
        """``line`` carries its player no more (it closed, or carries another)."""
        if line.player is not None and self.by_player.get(line.player) is line:
            del self.by_player[line.player]

    def close(self, player: str, code: int, reason: str) -> None:
        """Close ``player``'s line here, if there is one, and let it go."""
        line = self.by_player.pop(player, None)
        if line is not None:
            line.close(code, reason)

    def connected(self) -> int:
        """Players whose session is here with a line."""
        sessions = self.sessions.by_player
        return sum(1 for player in self.by_player if player in sessions)
