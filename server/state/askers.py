"""Who is asking, as their connection has told it, apart from the connection itself: the
address (by a trusted proxy's word), the device id its hello gave, the token lineage (the
hashes of every token it presented or held since: the accounts it speaks for are related,
``server/races/standing.py``), and whether each register or sign-in waiting its turn was
let in by the connection's attempts bucket. The edge fills it in; desks read it."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass(slots=True)
class Asker:
    address: str = ""
    device: str | None = None
    lineage: set[str] = field(default_factory=set)
    # each register or sign-in waiting its turn: whether the bucket let it in on arrival
    attempts_allowed: deque[bool] = field(default_factory=deque)
