"""The rules a request's fields keep (``Text``, ``Int``, ``Flag``, the request id, a race's
options), declared once as ``Annotated`` hints that ``protocol/messages.py`` checks; the
named field types and the limits of every input size."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Annotated, Any, Final

from protocol.accounts import MAX_PASSWORD, MAX_USERNAME, MIN_PASSWORD, USERNAME_PATTERN
from protocol.errors import SolraceError
from protocol.games import GAMES


class ProtocolError(SolraceError):
    """A message that is not a valid request; ``request_id`` is its id when it had one."""

    code = "bad_request"

    def __init__(self, message: str, code: str | None = None, request_id: Any = None) -> None:
        super().__init__(message, code)
        self.request_id = request_id


@dataclass(frozen=True, slots=True)
class Text:
    """A string of ``min_len``..``max_len`` characters matching ``pattern`` (if given)."""

    max_len: int
    min_len: int = 1
    pattern: str | None = None
    choices: Collection[str] = dataclasses.field(default=(), compare=False)  # read when checked
    hint: str = ""
    code: str = "bad_field"  # the error code of a string of the wrong length or characters
    matches: Any = dataclasses.field(init=False, repr=False, compare=False)  # the compiled pattern

    def __post_init__(self) -> None:
        object.__setattr__(self, "matches", self.pattern and re.compile(self.pattern).fullmatch)

    def check(self, name: str, value: Any) -> Any:
        if type(value) is not str:  # decoded values are never subclasses
            raise ProtocolError(f"'{name}' must be a string", "bad_field")
        if self.choices and value not in self.choices:
            raise ProtocolError(f"'{name}' must be one of {', '.join(self.choices)}", self.code)
        if not self.min_len <= len(value) <= self.max_len:
            raise ProtocolError(
                f"'{name}' must be {self.min_len} to {self.max_len} characters long", self.code
            )
        if self.matches and not self.matches(value):
            raise ProtocolError(f"'{name}' {self.hint or 'has characters not allowed'}", self.code)
        return value


@dataclass(frozen=True, slots=True)
class Int:
    """A whole number from ``lo`` to ``hi``."""

    lo: int
    hi: int

    def check(self, name: str, value: Any) -> Any:
        if type(value) is not int:  # not bool either
            raise ProtocolError(f"'{name}' must be a whole number", "bad_field")
        if not self.lo <= value <= self.hi:
            raise ProtocolError(f"'{name}' must be from {self.lo} to {self.hi}", "bad_field")
        return value


@dataclass(frozen=True, slots=True)
class Flag:
    def check(self, name: str, value: Any) -> Any:
        if not isinstance(value, bool):
            raise ProtocolError(f"'{name}' must be true or false", "bad_field")
        return value


@dataclass(frozen=True, slots=True)
class RequestIdRule:
    def check(self, name: str, value: Any) -> Any:
        kind = type(value)
        if kind is int:
            if not 0 <= value < 2**53:
                raise ProtocolError("'id' must be from 0 to 2**53-1", "bad_field")
        elif kind is str:
            if len(value) > 64:
                raise ProtocolError("'id' is at most 64 characters", "bad_field")
        else:
            raise ProtocolError("'id' must be an integer or a string", "bad_field")
        return value


@dataclass(frozen=True, slots=True)
class OptionsRule:
    """Game options: a small map of short names to booleans or whole numbers (the game
    checks the names and values themselves)."""

    def check(self, name: str, value: Any) -> Any:
        if not isinstance(value, dict) or len(value) > 8:
            raise ProtocolError(f"'{name}' must be a map of at most 8 options", "bad_field")
        for key, item in value.items():
            if len(key) > 16 or isinstance(item, float) or not isinstance(item, bool | int):
                raise ProtocolError(
                    f"'{name}' maps short names to true, false or whole numbers", "bad_field"
                )
        return dict(value)


RequestId = Annotated[int | str, RequestIdRule()]
RaceId = Annotated[str, Text(24, pattern=r"[a-z0-9]+", hint="is not a race id")]
ArenaId = Annotated[
    str, Text(64, pattern=r"[a-z_]{1,32}-[a-z0-9]{1,16}-\d{8}T\d{4}", hint="is not an arena id")
]
ARENA_CHANGES: Final = ("pause", "resume", "withdraw", "risk_on", "risk_off")
GameName = Annotated[str, Text(32, choices=GAMES, code="unknown_game")]
PlayerName = Annotated[
    str, Text(24, pattern=r"[^\x00-\x1f\x7f]+", hint="may not hold control characters")
]
Token = Annotated[str, Text(64, pattern=r"[A-Za-z0-9_-]+", hint="is not a resume token")]
# a device's own id (the browser's localStorage, the terminal's config file): 16 to 64
DeviceId = Annotated[
    str,
    Text(64, 16, r"[A-Za-z0-9_-]+", hint="is not a device id (A-Z a-z 0-9 _ -)", code="bad_device"),
]
Username = Annotated[
    str,
    Text(
        MAX_USERNAME,
        pattern=USERNAME_PATTERN,
        hint="may hold only letters a-z, digits, _ and -",
        code="bad_username",
    ),
]
Password = Annotated[str, Text(MAX_PASSWORD, min_len=MIN_PASSWORD)]
PlayerId = Annotated[str, Text(24, pattern=r"[pb][0-9a-f]+", hint="is not a player id")]
DealText = Annotated[str, Text(20, pattern=r"[1-9][0-9]*", hint="is a deal number in decimal")]
Day = Annotated[str, Text(10, pattern=r"\d{4}-\d{2}-\d{2}", hint="is a day written YYYY-MM-DD")]
ActionText = Annotated[str, Text(32)]
Options = Annotated[dict[str, Any], OptionsRule()]

MAX_SEQ: Final = 2**31 - 1
MAX_PLAYERS: Final = 8
MAX_COUNTDOWN_MS: Final = 30_000
MAX_SPECTATOR_DELAY_MS: Final = 600_000
MAX_BOARD_TOP: Final = 100
MAX_BOARD_AROUND: Final = 25


ADMIN_COMMANDS: Final = (
    "flagged",  # the reviews waiting for a moderator
    "review",  # one race's review (``race``)
    "clear",  # a flagged run or race goes on the boards or is rated (``race``, ``reason``)
    "void",  # a run or race result taken off the boards and out of the ratings
    "close_account",  # ``username``: it can no longer sign in (``reason``)
    "rename_account",  # ``username`` becomes ``new_username`` (``reason``)
    "audit",  # the moderators' latest actions
    "arena_create",  # an operator's arena (``game``, ``key``, ``title``, ``start_ms``, ...)
)
AdminToken = Annotated[str, Text(256, pattern=r"[\x21-\x7e]+", hint="is not an admin token")]
Reason = Annotated[
    str, Text(500, pattern=r"[^\x00-\x1f\x7f]+", hint="may not hold control characters")
]
