"""What nodes tell each other on the store's channels: one closed set of frozen types and
their one wire form (a JSON object: ``"k"`` the kind, ``"n"`` the node that sent it, ``"p"``
the player it concerns). A race's channel carries ``RecordChanged`` and ``Logged``; a node's
own channel ``Pushed`` and ``TakenOver``; ``Resync`` comes from this node's store when its
subscription was lost and messages may have been missed. The keys are short and stay as
they are: nodes of two versions talk during a rolling restart, and the Redis script that
appends a log writes ``Logged`` itself (``server/store/redis_batch.py``). A message may
also carry ``"t"``, the sender's wall clock in ms when it sent it (``stamped``), which the
hearer reads (``sent_ms``) for the pub/sub delivery lag; a node that does not know it
ignores it, and a message without it is heard all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.player_events import PlayerEvent, player_event
from protocol.race import LogEntry

CARRIED_MAX = 64  # a racer's log entries carried in one "log" message (more: read the log)


@dataclass(frozen=True, slots=True)
class RecordChanged:
    """A race's record has version ``version`` now (read and absorb it)."""

    version: int
    node: str


@dataclass(frozen=True, slots=True)
class Logged:
    """``player``'s log grew by one stored batch: its entries as ``(seq, t_ms, action)``
    when carried (at most ``CARRIED_MAX``), else None (read the log)."""

    player: str
    node: str
    entries: tuple[tuple[int, int, str], ...] | None = None  # CarriedEntries


@dataclass(frozen=True, slots=True)
class Pushed:
    """An event for ``player``, whose session is on the node this is sent to."""

    player: str
    event: PlayerEvent
    node: str


@dataclass(frozen=True, slots=True)
class TakenOver:
    """``player``'s session moved to ``node``: the node this is sent to lets it go."""

    player: str
    node: str


@dataclass(frozen=True, slots=True)
class Resync:
    """Messages may have been missed (the subscription was lost): read every race again."""


NodeNews = RecordChanged | Logged | Pushed | TakenOver | Resync
CarriedEntries = tuple[tuple[int, int, str], ...]  # (seq, t_ms, action), in order


def logged(node: str, player: str, entries: tuple[LogEntry, ...] | list[LogEntry]) -> Logged:
    """The news that ``player``'s log holds ``entries`` now (carried if few enough)."""
    carried = None
    if entries and len(entries) <= CARRIED_MAX:
        carried = tuple((entry.seq, entry.t_ms, entry.action) for entry in entries)
    return Logged(player, node, carried)


def encode(news: NodeNews) -> dict[str, Any]:
    """The wire form of ``news`` (keys in this order: the log script relies on it)."""
    if isinstance(news, RecordChanged):
        return {"k": "record", "v": news.version, "n": news.node}
    if isinstance(news, Logged):
        message: dict[str, Any] = {"k": "log", "p": news.player, "n": news.node}
        if news.entries is not None:
            message["e"] = [list(entry) for entry in news.entries]
        return message
    if isinstance(news, Pushed):
        event = news.event
        return {
            "k": "push",
            "p": news.player,
            "kind": event.kind,
            "data": event.data(),
            "n": news.node,
        }
    if isinstance(news, TakenOver):
        return {"k": "taken", "p": news.player, "n": news.node}
    return {"k": "resync"}


def stamped(message: dict[str, Any], wall_ms: int) -> dict[str, Any]:
    """``message`` with its sending time (``wall_ms``, the sender's wall clock) added."""
    return {**message, "t": wall_ms}


def sent_ms(message: Any) -> int | None:
    """The wall-clock ms a message heard says it was sent at, or None when it does not."""
    if not isinstance(message, dict):
        return None
    sent = message.get("t")
    return sent if isinstance(sent, int) and not isinstance(sent, bool) else None


def decode(message: Any) -> NodeNews | None:
    """The news in a message heard, or None when it is none of ours (or malformed: a
    message between nodes is never trusted to be well formed)."""
    if not isinstance(message, dict):
        return None
    kind, node, player = message.get("k"), message.get("n"), message.get("p")
    if kind == "resync":
        return Resync()
    if not isinstance(node, str):
        return None
    if kind == "record" and isinstance(message.get("v"), int):
        return RecordChanged(message["v"], node)
    if not isinstance(player, str):
        return None
    if kind == "log":
        return Logged(player, node, _entries(message.get("e")))
    if kind == "push" and isinstance(message.get("kind"), str):
        data = message.get("data")
        try:
            event = player_event(message["kind"], data if isinstance(data, dict) else {})
        except (ValueError, KeyError, TypeError):
            return None
        return Pushed(player, event, node)
    if kind == "taken":
        return TakenOver(player, node)
    return None


def _entries(carried: Any) -> tuple[tuple[int, int, str], ...] | None:
    """Carried entries, or None when there are none or any is malformed (read the log)."""
    if not isinstance(carried, list) or not carried:
        return None
    entries = []
    for entry in carried:
        if not (
            isinstance(entry, list)
            and len(entry) == 3
            and isinstance(entry[0], int)
            and isinstance(entry[1], int)
            and isinstance(entry[2], str)
        ):
            return None
        entries.append((entry[0], entry[1], entry[2]))
    return tuple(entries)
