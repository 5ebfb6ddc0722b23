"""Receipts for a racer's own actions, pure: a running hash of their log.

Each accepted action's answer carries the racer's receipt after it: SHA-256 over the
previous receipt and the action as the log keeps it. The first receipt of a racer is the
hash of ``solrace-receipt-v1``, the race id and the player id (lines joined by ``\\n``);
after action ``(seq, action, t_ms)`` the receipt is the hash of the previous receipt's 32
bytes followed by ``"{seq}\\n{action}\\n{t_ms}"`` in UTF-8. A client that keeps its last
receipt can later check that a race log holds exactly the actions it was told were
accepted, in order, with their times (``solrace verify race --receipt``): the log's actions
of that racer, hashed the same way, must reach that receipt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

VERSION = b"solrace-receipt-v1"


def first_receipt(race: str, player: str) -> bytes:
    """The receipt before ``player``'s first action in ``race``."""
    return hashlib.sha256(b"\n".join([VERSION, race.encode(), player.encode()])).digest()


def next_receipt(previous: bytes, seq: int, action: str, t_ms: int) -> bytes:
    """The receipt after one more accepted action."""
    return hashlib.sha256(previous + f"{seq}\n{action}\n{t_ms}".encode()).digest()


def receipts(race: str, player: str, actions: Iterable[Sequence[object]]) -> list[str]:
    """The receipt (hex) after each of ``actions`` (``[seq, action, t_ms]``, as a race
    log lists them), in order."""
    receipt = first_receipt(race, player)
    told = []
    for seq, action, t_ms in actions:
        receipt = next_receipt(receipt, int(str(seq)), str(action), int(str(t_ms)))
        told.append(receipt.hex())
    return told
