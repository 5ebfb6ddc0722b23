"""Every message of the wire protocol as a typed value, with encode and decode.

Requests go from client to server; each carries an ``id`` (an integer or a short string)
that the server echoes in its ``result`` or ``error``. Field types and ranges are declared
once, as ``Annotated`` hints, and checked by ``decode_request``; a message that breaks them
gets a ``ProtocolError`` whose ``code`` says what kind of mistake it is.

Server messages are typed in ``protocol.server_messages`` and named here too, so one import
serves a client or a server. See docs/protocol.md.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Final

from protocol.arena_requests import ArenaResult as ArenaResult
from protocol.arena_requests import ArenaStandings as ArenaStandings
from protocol.arena_requests import ChangeArena as ChangeArena
from protocol.arena_requests import JoinArena as JoinArena
from protocol.arena_requests import ListArenas as ListArenas
from protocol.arena_requests import UnwatchArena as UnwatchArena
from protocol.arena_requests import WatchArena as WatchArena
from protocol.fields import (
    ADMIN_COMMANDS,
    MAX_BOARD_AROUND,
    MAX_BOARD_TOP,
    MAX_COUNTDOWN_MS,
    MAX_PLAYERS,
    MAX_SEQ,
    MAX_SPECTATOR_DELAY_MS,
    ActionText,
    AdminToken,
    Day,
    DealText,
    DeviceId,
    Flag,
    GameName,
    Int,
    Options,
    Password,
    PlayerId,
    PlayerName,
    RaceId,
    Reason,
    RequestIdRule,
    Text,
    Token,
    Username,
)
from protocol.fields import ProtocolError as ProtocolError
from protocol.request_base import Request as Request
from protocol.server_messages import Error as Error
from protocol.server_messages import Event as Event
from protocol.server_messages import Result as Result
from protocol.server_messages import ServerMessage as ServerMessage
from protocol.server_messages import Watch as Watch
from protocol.server_messages import Welcome as Welcome
from protocol.server_messages import decode_server as decode_server
from protocol.server_messages import encode_server as encode_server

# ---------------------------------------------------------------------- requests


@dataclass(slots=True)
class Hello(Request):
    """Open a session: a new player with ``name``, or resume one with ``token``."""

    type: ClassVar[str] = "hello"
    protocol: Annotated[int, Int(1, 1000)]
    name: PlayerName
    token: Token | None = None
    last_event: Annotated[int, Int(0, 2**53 - 1)] | None = None
    bot: Annotated[bool, Flag()] = False  # a program plays: shown as a bot everywhere
    # the device's own id, kept by the client: accounts seen on one are related
    device: DeviceId | None = None


@dataclass(slots=True)
class Register(Request):
    """Make this session's player an account named ``username`` (its races and runs
    stay its own); the answer carries the account's token, which replaces the session's."""

    type: ClassVar[str] = "register"
    attempt: ClassVar[bool] = True
    username: Username
    password: Password = dataclasses.field(repr=False)


@dataclass(slots=True)
class SignIn(Request):
    """Continue on this connection as the account ``username`` (this guest session ends)."""

    type: ClassVar[str] = "sign_in"
    attempt: ClassVar[bool] = True
    username: Username
    password: Password = dataclasses.field(repr=False)


@dataclass(slots=True)
class SignOut(Request):
    """Forget this session's token (``everywhere``: every token of the account), end the
    session and close the connection."""

    type: ClassVar[str] = "sign_out"
    everywhere: Annotated[bool, Flag()] = False


@dataclass(slots=True)
class CreateRace(Request):
    type: ClassVar[str] = "create_race"
    playing: ClassVar[bool] = True
    game: GameName
    options: Options | None = None
    deal: DealText | None = None  # None: the server picks one at random
    max_players: Annotated[int, Int(1, MAX_PLAYERS)] = 2
    public: Annotated[bool, Flag()] = True
    countdown_ms: Annotated[int, Int(0, MAX_COUNTDOWN_MS)] | None = None
    spectator_delay_ms: Annotated[int, Int(0, MAX_SPECTATOR_DELAY_MS)] = 0


@dataclass(slots=True)
class ListRaces(Request):
    """Open public races that can be joined."""

    type: ClassVar[str] = "list_races"


@dataclass(slots=True)
class MyRaces(Request):
    """The races this player is in that are not over yet (a way back into them)."""

    type: ClassVar[str] = "my_races"


@dataclass(slots=True)
class JoinRace(Request):
    type: ClassVar[str] = "join_race"
    playing: ClassVar[bool] = True
    race: RaceId


@dataclass(slots=True)
class StartRace(Request):
    """The host starts the countdown (a full race starts by itself)."""

    type: ClassVar[str] = "start_race"
    race: RaceId


@dataclass(slots=True)
class LeaveRace(Request):
    """Leave a race before it starts (after the start, use ``resign``)."""

    type: ClassVar[str] = "leave_race"
    race: RaceId


@dataclass(slots=True)
class Act(Request):
    """Play ``action`` (notation) in ``race``; ``seq`` numbers the player's actions from 1."""

    type: ClassVar[str] = "act"
    race: RaceId
    seq: Annotated[int, Int(1, MAX_SEQ)]
    action: ActionText
    legal: Annotated[bool, Flag()] = False  # include the legal actions in the result


@dataclass(slots=True)
class Resign(Request):
    type: ClassVar[str] = "resign"
    race: RaceId


@dataclass(slots=True)
class Rematch(Request):
    """A new race with the same settings on a new deal, offered to the other racers."""

    type: ClassVar[str] = "rematch"
    playing: ClassVar[bool] = True
    race: RaceId


@dataclass(slots=True)
class Challenge(Request):
    """A private race for two on ``game`` (a random deal, never rated), its other seat
    offered to ``player``, who is told at once wherever they are connected."""

    type: ClassVar[str] = "challenge"
    playing: ClassVar[bool] = True
    player: PlayerId
    game: GameName
    options: Options | None = None


@dataclass(slots=True)
class DeclineChallenge(Request):
    """The challenged player declines the challenge to ``race``: its host is told."""

    type: ClassVar[str] = "decline_challenge"
    race: RaceId


@dataclass(slots=True)
class Snapshot(Request):
    """The whole picture of a race as this player may see it."""

    type: ClassVar[str] = "snapshot"
    race: RaceId


@dataclass(slots=True)
class RaceLog(Request):
    """A finished race's public log: settings, deal, nonce, commitment, every racer's
    actions with the server's times, and the result (``solrace verify`` checks it)."""

    type: ClassVar[str] = "race_log"
    race: RaceId


@dataclass(slots=True)
class DailyStart(Request):
    """Start an attempt at today's daily challenge of ``game``."""

    type: ClassVar[str] = "daily_start"
    playing: ClassVar[bool] = True
    game: GameName
    ghost: Annotated[bool, Flag()] = False  # practice against the day's best run


@dataclass(slots=True)
class DailyBoard(Request):
    type: ClassVar[str] = "daily_board"
    game: GameName
    day: Day | None = None  # None: today (UTC)
    top: Annotated[int, Int(1, MAX_BOARD_TOP)] = 10
    around: Annotated[int, Int(0, MAX_BOARD_AROUND)] = 3


@dataclass(slots=True)
class BestBoard(Request):
    """The all-time best board of ``game``: each player's best ranked daily run."""

    type: ClassVar[str] = "best_board"
    game: GameName
    top: Annotated[int, Int(1, MAX_BOARD_TOP)] = 10
    around: Annotated[int, Int(0, MAX_BOARD_AROUND)] = 3


@dataclass(slots=True)
class Profile(Request):
    """A player's profile, by their id or their account's username (one of them)."""

    type: ClassVar[str] = "profile"
    player: PlayerId | None = None
    username: Username | None = None


@dataclass(slots=True)
class QuickRace(Request):
    """Wait in ``game``'s pool to be paired with a player of a close rating."""

    type: ClassVar[str] = "quick_race"
    playing: ClassVar[bool] = True
    game: GameName
    bots: Annotated[bool, Flag()] = False  # a person may be paired with a bot: only if asked


@dataclass(slots=True)
class QuickCancel(Request):
    """Stop waiting in a pool."""

    type: ClassVar[str] = "quick_cancel"


@dataclass(slots=True)
class ListLive(Request):
    """Live races and daily attempts that can be spectated."""

    type: ClassVar[str] = "list_live"


@dataclass(slots=True)
class Spectate(Request):
    type: ClassVar[str] = "spectate"
    race: RaceId


@dataclass(slots=True)
class Unspectate(Request):
    type: ClassVar[str] = "unspectate"
    race: RaceId


@dataclass(slots=True)
class Admin(Request):
    """A moderator's request (``solrace admin``): ``token`` is the server's admin token,
    never a player's; ``command`` says what to do (``ADMIN_COMMANDS``). Every change is
    written in the audit log with its ``reason``."""

    type: ClassVar[str] = "admin"
    attempt: ClassVar[bool] = True
    token: AdminToken = dataclasses.field(repr=False)
    command: Annotated[str, Text(16, choices=ADMIN_COMMANDS, code="unknown_command")]
    race: RaceId | None = None
    username: Username | None = None
    new_username: Username | None = None
    reason: Reason | None = None
    limit: Annotated[int, Int(1, 100)] = 20
    # ``arena_create``: loose here, checked by ``protocol.arena_calendar.operator_arena``
    game: GameName | None = None
    key: Annotated[str, Text(32)] | None = None
    title: Annotated[str, Text(200)] | None = None
    start_ms: Annotated[int, Int(0, 2**53 - 1)] | None = None
    minutes: Annotated[int, Int(0, 2**31 - 1)] | None = None
    heat_size: Annotated[int, Int(0, 64)] | None = None
    rating_min: Annotated[int, Int(-(2**31), 2**31 - 1)] | None = None
    rating_max: Annotated[int, Int(-(2**31), 2**31 - 1)] | None = None
    min_rated_games: Annotated[int, Int(-(2**31), 2**31 - 1)] = 0


REQUESTS: Final[dict[str, type[Request]]] = {
    cls.type: cls
    for cls in (
        Hello,
        Register,
        SignIn,
        SignOut,
        CreateRace,
        ListRaces,
        MyRaces,
        JoinRace,
        StartRace,
        LeaveRace,
        Act,
        Resign,
        Rematch,
        Challenge,
        DeclineChallenge,
        Snapshot,
        RaceLog,
        DailyStart,
        DailyBoard,
        BestBoard,
        QuickRace,
        QuickCancel,
        Profile,
        ListLive,
        Spectate,
        Unspectate,
        Admin,
        ListArenas,
        JoinArena,
        ChangeArena,
        ArenaStandings,
        WatchArena,
        UnwatchArena,
        ArenaResult,
    )
}


def _field_rules(cls: type[Request]) -> list[tuple[str, Any, bool, bool]]:
    """(name, rule, optional, required) for each field, from the Annotated hints."""
    hints = typing.get_type_hints(cls, include_extras=True)
    rules = []
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        optional = False
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(hint) if a is not type(None)]
            optional = len(args) < len(typing.get_args(hint))
            hint = args[0]
        rule = typing.get_args(hint)[1]
        required = field.default is dataclasses.MISSING
        rules.append((field.name, rule, optional, required))
    return rules


_RULES: Final = {name: _field_rules(cls) for name, cls in REQUESTS.items()}
_NAMES: Final = {name: {"type"} | {n for n, *_ in rules} for name, rules in _RULES.items()}


def decode_request(message: dict[str, Any]) -> Request:
    """The typed request in a decoded message; ProtocolError if it is not one."""
    request_id = message.get("id")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("a message needs a 'type' string", "bad_request", _safe_id(request_id))
    cls = REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError(
            f"{kind[:32]!r} is not a request type", "unknown_type", _safe_id(request_id)
        )
    values: dict[str, Any] = {}
    try:
        for name, rule, optional, required in _RULES[kind]:
            if name not in message:
                if required:
                    raise ProtocolError(f"{kind} needs the field '{name}'", "missing_field")
                continue
            value = message[name]
            values[name] = None if value is None and optional else rule.check(name, value)
        if len(message) > len(values) + 1:  # more than 'type' and the known fields
            extra = sorted(set(message) - _NAMES[kind])[0]
            raise ProtocolError(f"{kind} has no field '{extra[:32]}'", "unknown_field")
    except ProtocolError as error:
        error.request_id = _safe_id(request_id)
        raise
    return cls(**values)


def _safe_id(value: Any) -> Any:
    """The request id to echo in an error: the id if it is valid, else None."""
    try:
        return RequestIdRule().check("id", value)
    except ProtocolError:
        return None


def encode_request(request: Request) -> dict[str, Any]:
    message: dict[str, Any] = {"type": request.type}
    for field in dataclasses.fields(request):
        value = getattr(request, field.name)
        if value is not None:
            message[field.name] = value
    return message
