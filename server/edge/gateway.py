"""The gateway: one ``Client`` per websocket connection. Frames in, typed requests to the
desks; their answers go out through ``Answers`` (``server/edge/answers.py``), in the order the
requests came.

It is the one place that turns bad input into an answer or a close code: over the rate
limit (``rate_limited``, then 1008 for a flood), undecodable or invalid frames (an error
with a stable code, the request's id when it can be read), and a failed ``hello`` (the
session itself is opened, resumed and caught up by the ``SessionDesk``,
``server/desks/session_desk.py``). ``act`` is handed to the executor without a coroutine (the
hot path; the executor answers once it is stored); every
other request runs as a task, and the connection's later messages wait behind it (reading
pauses past ``MAX_QUEUED``), so answers keep their order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable
from typing import Any

from websockets.asyncio.server import ServerConnection

from protocol.errors import SolraceError
from protocol.messages import (
    Act,
    Error,
    Hello,
    ProtocolError,
    Request,
    Result,
    decode_request,
)
from protocol.wire import WireError, decode
from server.carry.executor import Executor
from server.config import Settings
from server.desks.handlers import Handlers
from server.desks.request_table import Asking, request_table
from server.desks.session_desk import SessionDesk
from server.desks.spectating import SpectatingDesk
from server.edge.addresses import client_address, trusted_networks
from server.edge.answers import Answer, Answers
from server.edge.client import Client
from server.edge.connection import MessageConnection, close_soon
from server.edge.lines import Lines
from server.handover.moment import now
from server.metrics import Metrics
from server.races.race_desk import RaceDesk
from server.state.sessions import Session, Sessions, token_hash
from server.store import StoreError
from server.store.base import STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE

log = logging.getLogger("solrace.gateway")

CLOSE_POLICY = 1008  # flooding
MAX_QUEUED = 16  # messages queued behind a waiting request before reading pauses


class Gateway:
    def __init__(
        self,
        settings: Settings,
        sessions: Sessions,
        spectating: SpectatingDesk,
        executor: Executor,
        answers: Answers,
        metrics: Metrics,
        session_desk: SessionDesk,
        handlers: Handlers,
        race_desk: RaceDesk,
        lines: Lines,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.lines = lines
        self.trusted = trusted_networks(settings.trusted_proxies)
        self.spectating = spectating
        self.executor = executor
        self.answers = answers
        self.metrics = metrics
        self.session_desk = session_desk
        self.handlers = handlers
        self.table = request_table(handlers)  # who answers each request but hello and act
        self.race_desk = race_desk

    # ================================================================== connections

    async def handle(self, connection: ServerConnection) -> None:
        """Serve one connection until it closes: each message is answered as it is read
        (``on_message``); the connection's task only waits for the end."""
        assert isinstance(connection, MessageConnection)
        client = Client(connection, self.settings, asyncio.get_running_loop().time())
        peer = connection.remote_address
        host = str(peer[0]) if peer else ""
        client.asker.address = client_address(host, connection.forwarded_for, self.trusted)
        self.metrics.connections.inc()
        try:
            connection.listen(lambda message: self.on_message(client, message))
            await connection.wait_closed()
        finally:
            self.metrics.connections.dec()
            self._detach(client)

    def on_message(self, client: Client, frame: str | bytes) -> None:
        """One message, as it is read: rate-limited, then answered at once, or, while a
        request of this connection is being answered by a task, queued behind it."""
        if client.closing or client.replaced:
            return  # read on, so the closing handshake can finish
        now_s = time.monotonic()
        if not client.bucket.allow(now_s):
            if client.flood.strike(now_s):
                log.warning(
                    "closing a flooding connection",
                    extra={"remote": str(client.connection.remote_address)},
                )
                client.closing = True
                close_soon(client.connection, CLOSE_POLICY, "too many requests")
                return
            self._refuse(client, frame, "rate_limited", "too many requests: slow down")
            return
        if client.waiting is not None:
            if client.queued is None:
                client.queued = deque()
            client.queued.append((frame, now_s))
            if len(client.queued) == MAX_QUEUED and client.connection.transport is not None:
                client.connection.transport.pause_reading()
            return
        answering = self.on_frame(client, frame, now_s)
        if answering is not None:
            client.waiting = asyncio.create_task(self._answer_in_order(client, answering))

    async def _answer_in_order(self, client: Client, answering: Awaitable[None]) -> None:
        """Finish a request answered by a task, then the ones queued behind it."""
        try:
            await answering
            while client.queued:
                if len(client.queued) == MAX_QUEUED and client.connection.transport is not None:
                    client.connection.transport.resume_reading()
                later = self.on_frame(client, *client.queued.popleft())
                if later is not None:
                    await later
        finally:
            client.waiting = None

    def on_frame(
        self, client: Client, frame: str | bytes, read_at: float
    ) -> Awaitable[None] | None:
        """Answer one frame: ``act`` and every refusal at once, anything else by the
        returned coroutine."""
        request_id: Any = None
        kind: str | None = None
        try:
            request = decode_request(decode(frame, client.encoding))
            request_id, kind = request.id, request.type
            session = client.session
            if type(request) is Act:
                if session is None:
                    raise ProtocolError("say hello first", "hello_first")
                self.act(client, session, request)
                return None
            if type(request) is Hello:
                return self._hello(client, request)
            if session is None:
                raise ProtocolError("say hello first", "hello_first")
            if request.attempt:  # counted as it was read, in order
                client.asker.attempts_allowed.append(client.attempts.allow(read_at))
            return self._answer(client, session, request)
        except Exception as error:
            if isinstance(error, ProtocolError) and error.request_id is not None:
                request_id = error.request_id
            self._failure(client, error, request_id, kind or message_type(frame, client))
            return None

    def act(self, client: Client, session: Session, request: Act) -> None:
        """The hot path: decide at once; the executor answers once the action is stored."""
        read_at = time.perf_counter()
        decision = self.race_desk.act(session.player, request, now())
        self.executor.act(decision, client, session.fence, read_at)

    async def _answer(self, client: Client, session: Session, request: Request) -> None:
        self.metrics.requests.labels(request.type).inc()
        try:
            answering = self.table[type(request)]
            data, effects = await answering(Asking(client.asker, session, request, now()))
        except Exception as error:
            self._failure(client, error, request.id, request.type)
            return
        if request.playing:
            effects = [*self.session_desk.playing(session), *effects]
        result = Result(request.id, request.type, data)
        # written first; then answered and told (the next request waits for that)
        told = self.executor.run(effects, Answer(client, result))
        if told is not None:
            await told

    async def _hello(self, client: Client, request: Hello) -> None:
        """The session desk opens the session; it is attached to this connection's line
        here (an older line of its player closed), then welcomed and caught up."""
        try:
            client.asker.device = request.device
            opened = await self.session_desk.hello(request, client.session is not None)
            # the token presented, even one no longer valid (an account's, signed out)
            client.asker.lineage = {token_hash(request.token)} if request.token else set()
            self.lines.attach(client.line, opened.session)
            client.session = opened.session
            self.executor.run(opened.effects)
            self.executor.run(await self.session_desk.opened(opened))
            await self.handlers.seen_at_hello(client.asker, opened.session, now())
        except Exception as error:
            self._failure(client, error, request.id, request.type)

    def _failure(self, client: Client, error: Exception, request_id: Any, kind: str | None) -> None:
        """The error answer to a request that failed with ``error``, after what its
        decisions owe all the same (a race adopted is followed)."""
        self.executor.carry_out_owed()
        if isinstance(error, WireError):
            code, text, request_id, kind = error.code, error.message, None, None
        elif isinstance(error, StoreError):  # its message is for operators, not players
            log.warning("store error answering a request", exc_info=error)
            code, text = STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE
        elif isinstance(error, SolraceError):  # protocol errors, refused races and moves
            code, text = error.code, error.message
        else:
            log.exception("request failed", extra={"request": kind}, exc_info=error)
            code = "internal_error"
            text = (
                "the server failed to answer this request; it has been logged, and "
                "nothing was changed by it"
            )
        self.metrics.errors.labels(kind or "unknown", code).inc()
        self.answers.send(Answer(client, Error(request_id, kind, code, text)))

    def _refuse(self, client: Client, frame: str | bytes, code: str, text: str) -> None:
        request_id = None
        with contextlib.suppress(WireError):
            request_id = decode(frame, client.encoding).get("id")
        if not isinstance(request_id, int | str) or isinstance(request_id, bool):
            request_id = None
        kind = message_type(frame, client)
        self.metrics.errors.labels(kind or "unknown", code).inc()
        self.answers.send(Answer(client, Error(request_id, kind, code, text)))

    def _detach(self, client: Client) -> None:
        """The connection is gone: unless a newer line carries its player, their watching
        ends and their grace period starts."""
        session = client.session
        if session is None or client.line.replaced:
            return
        self.lines.detach(client.line)
        self.spectating.left(session)
        if not self.stopping:
            self.sessions.away(session)

    stopping = False  # set by the server at shutdown: nobody is waited for


def message_type(frame: str | bytes, client: Client) -> str | None:
    """The ``type`` of a frame, if it can be read (for error replies)."""
    try:
        kind = decode(frame, client.encoding).get("type")
    except WireError:
        return None
    return kind[:32] if isinstance(kind, str) else None
