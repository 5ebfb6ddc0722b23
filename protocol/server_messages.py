"""The wire protocol's server messages as typed values, with encode and decode:
``welcome`` (the answer to ``hello``), ``result`` and ``error`` (answers to requests),
``event`` (numbered per player, replayed on resume) and ``watch`` (the spectator feed of one
race, numbered per race). See docs/protocol.md; the requests are in ``protocol.messages``,
which names these too."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final

from protocol.fields import ProtocolError


@dataclass(frozen=True, slots=True)
class Welcome:
    """The answer to ``hello``: who you are, your resume token, and the server's clock."""

    id: Any
    player: str
    name: str
    token: str
    resumed: bool
    protocol: int
    server_time_ms: int
    grace_ms: int
    last_event: int  # the number of the last event the server has sent this player
    node: str = ""  # the server node that holds the session (for operators; may change)
    account: str | None = None  # the account's username; None for a guest
    # the key race logs and boards are signed with: {algorithm, key, public_key}
    signing_key: dict[str, str] | None = None
    # the games played here: {game, title, decks, options, variant_of} (``protocol.games``)
    games: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # may this player play ranked (``protocol.standing``): {code, reason}; code None: yes;
    # None: the store could not tell at that moment
    standing: dict[str, Any] | None = None


@dataclass(slots=True)  # not frozen: like a request, it lives only while it is sent
class Result:
    """A request succeeded; ``data`` holds the fields documented for that request."""

    id: Any
    of: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Error:
    """A request (``of``, ``id``) was refused: a stable ``code`` and a sentence."""

    id: Any
    of: str | None
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Event:
    """Something happened that concerns the player; ``n`` numbers events from 1."""

    n: int
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Watch:
    """The spectator feed of ``race``; ``seq`` numbers that race's feed from 1."""

    race: str
    seq: int
    kind: str
    data: dict[str, Any]


ServerMessage = Welcome | Result | Error | Event | Watch


def encode_server(message: ServerMessage) -> dict[str, Any]:
    if isinstance(message, Result):  # the commonest first
        return {**message.data, "type": "result", "id": message.id, "of": message.of}
    if isinstance(message, Welcome):
        return {"type": "welcome", **dataclasses.asdict(message)}
    if isinstance(message, Error):
        return {
            "type": "error",
            "id": message.id,
            "of": message.of,
            "code": message.code,
            "message": message.message,
        }
    if isinstance(message, Event):
        return {**message.data, "type": "event", "n": message.n, "kind": message.kind}
    return {
        **message.data,
        "type": "watch",
        "race": message.race,
        "seq": message.seq,
        "kind": message.kind,
    }


_HEAD: Final = {
    "result": ("id", "of"),
    "error": ("id", "of", "code", "message"),
    "event": ("n", "kind"),
    "watch": ("race", "seq", "kind"),
}


def decode_server(message: dict[str, Any]) -> ServerMessage:
    """The typed server message (used by clients); ProtocolError if it is none."""
    kind = message.get("type")
    body = {k: v for k, v in message.items() if k != "type"}
    try:
        if kind == "welcome":
            return Welcome(**body)
        if kind == "error":
            return Error(**body)
        head = _HEAD.get(kind) if isinstance(kind, str) else None
        if head is None:
            raise ProtocolError(f"{str(kind)[:32]!r} is not a server message", "unknown_type")
        fields = [body.pop(name) for name in head]
    except (TypeError, KeyError) as error:
        raise ProtocolError(f"a {kind} message is malformed: {error}", "bad_request") from None
    if kind == "result":
        return Result(fields[0], fields[1], body)
    if kind == "event":
        return Event(fields[0], fields[1], body)
    return Watch(fields[0], fields[1], fields[2], body)
