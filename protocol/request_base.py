"""The base of every request of the wire protocol (``protocol/messages.py`` lists them all,
``protocol/arena_requests.py`` holds the arenas'): its ``id``, echoed in the answer, and
the gateway's policy for its type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.fields import RequestId


@dataclass(slots=True)
class Request:
    """Not frozen: a request lives only while it is answered, and building a frozen one
    cost a third of decoding it."""

    type: ClassVar[str]
    # the gateway's policy for each request type (server/edge/gateway.py reads it):
    # by it a player starts to play (a guest's token is kept longer from then on)
    playing: ClassVar[bool] = False
    # a guess at a secret: counted against the connection's attempts as it is read, in order
    # (its handler takes its turn's verdict: server/desks/handlers.py)
    attempt: ClassVar[bool] = False
    id: RequestId
