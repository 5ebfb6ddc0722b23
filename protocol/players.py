"""Player ids, pure: what kind of player an id names.

A player id is ``p`` (a person) or ``b`` (a bot, a program that said so in ``hello``)
followed by 12 lowercase hex digits. The kind is part of the id, so it can never be lost
or shed: every race, run, board entry, profile and log that names a bot's id shows it as a
bot, on every node and after any restart, and an account a bot registered stays a bot's.
"""

from __future__ import annotations

import re
import secrets
from typing import Final

PERSON: Final = "p"
BOT: Final = "b"
PLAYER_ID_PATTERN: Final = r"[pb][0-9a-f]{12}"
_BOT_ID: Final = re.compile(BOT + r"[0-9a-f]{12}")


def new_player_id(bot: bool = False) -> str:
    """A fresh random player id of a bot or a person."""
    return (BOT if bot else PERSON) + secrets.token_hex(6)


def is_bot(player: str) -> bool:
    """Whether ``player`` is a bot's id."""
    return _BOT_ID.fullmatch(player) is not None
