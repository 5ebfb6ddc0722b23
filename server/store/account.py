"""An account as the store keeps it (shared by the store's roles)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Account:
    """An account: its player id, its username as written at registration, and the
    password's hash (never the password)."""

    player: str
    username: str
    password_hash: str = dataclasses.field(repr=False)
    created_ms: int = 0  # when it was registered (epoch ms); 0: before this was kept
    closed: bool = False  # closed by a moderator: it can no longer sign in
