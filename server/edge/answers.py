"""Answers to a connection's requests, in the order the requests came.

An ``act`` is answered once its log entry is stored, so a later request's answer waits
behind the connection's actions still being stored (a writer barrier: ``Writer.submit``
with no job). This is the one place that keeps that order; the executor answers through
it and nothing calls back into the gateway.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from protocol.messages import ServerMessage
from server.carry.writer import Writer
from server.edge.client import Client
from server.edge.lines import Lines
from server.metrics import Metrics


@dataclass(frozen=True, slots=True)
class Answer:
    """``message`` to ``client`` in its turn; ``then`` right after it is sent."""

    client: Client
    message: ServerMessage
    then: Callable[[], None] | None = None


class Answers:
    def __init__(self, writer: Writer, lines: Lines, metrics: Metrics) -> None:
        self.writer = writer
        self.lines = lines
        self.metrics = metrics

    def send(self, answer: Answer) -> None:
        """Send ``answer`` after the answers of its connection's actions still waiting to
        be stored."""
        client = answer.client
        if not client.deferred:
            self._answer(answer)
            return
        client.deferred += 1

        def in_turn() -> None:
            client.deferred -= 1
            self._answer(answer)

        self.writer.submit(None, in_turn)

    def act_pending(self, client: Client) -> None:
        """An action of ``client`` is being stored: later answers wait for its answer."""
        client.deferred += 1

    def act_answered(self, client: Client, message: ServerMessage, read_at: float) -> None:
        """The answer to an action ``act_pending`` counted (its turn has come); ``read_at``
        (``time.perf_counter``): when its frame was read, for the act round trip's metric."""
        client.deferred -= 1
        self.metrics.act_seconds.observe(time.perf_counter() - read_at)
        self._deliver(client, message)

    def _answer(self, answer: Answer) -> None:
        self._deliver(answer.client, answer.message)
        if answer.then is not None:
            answer.then()

    def _deliver(self, client: Client, message: ServerMessage) -> None:
        """On the client's line while it carries a session (a line that does not read is
        closed), else straight to the connection."""
        if client.session is not None and not client.line.replaced:
            self.lines.write(client.line, message)
        else:
            self.lines.outbox.send(client.connection, client.encoding, message)
