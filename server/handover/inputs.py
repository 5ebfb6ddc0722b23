"""What carrying out hands back to the part that decides (``server/desks/deciding.py``), as
typed values: a write done or refused, a timer due, news from another node, a race to let
go, an account's token stored. Each is a fact, stamped with its moment where the decision
needs one; the decider answers each with effects (``server/handover/effects.py``) and never calls
back. Nothing here does I/O or decides.

``NOW``: decided at once (``Decider.decide``); ``READING``: decided after reading the
store (``Decider.decide_reading``), so they may fail with a ``StoreError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.player_events import Paired
from protocol.race import LogEntry, Now
from server.handover.node_news import CarriedEntries

if TYPE_CHECKING:
    from server.state.rooms import Room


# ---------------------------------------------------------------------- decided at once


@dataclass(frozen=True, slots=True)
class ActStored:
    """``entry`` of ``room``'s log is written."""

    room: Room
    entry: LogEntry


@dataclass(frozen=True, slots=True)
class ActRefused:
    """The store refused to write ``entry`` (``fenced``: another node holds its player
    now; ``gap``: it was decided on top of the player's actions the store lost)."""

    room: Room
    entry: LogEntry
    fenced: bool
    gap: bool
    moment: Now


@dataclass(frozen=True, slots=True)
class StartDue:
    """``room``'s start signal is due."""

    room: Room


@dataclass(frozen=True, slots=True)
class EndWritten:
    """``room``'s end (record and result) is written."""

    room: Room


@dataclass(frozen=True, slots=True)
class Forgotten:
    """``room`` is let go (``reason``: what its spectators are told)."""

    room: Room
    reason: str


@dataclass(frozen=True, slots=True)
class Rewatched:
    """``room``'s spectators saw what its race no longer holds (``reason``)."""

    room: Room
    reason: str


@dataclass(frozen=True, slots=True)
class LetGo:
    """``player``'s session moved to another node (its write was fenced, or that node
    said so)."""

    player: str


@dataclass(frozen=True, slots=True)
class LogCarried:
    """Another node says ``player``'s log in ``room`` moved on, carrying the entries."""

    room: Room
    player: str
    carried: CarriedEntries
    moment: Now


@dataclass(frozen=True, slots=True)
class LookAfterDue:
    """The ticker's turn for ``room``: idle racers' standings, letting it go once done."""

    room: Room
    moment: Now


@dataclass(frozen=True, slots=True)
class TokenStored:
    """``account``'s new resume ``token`` is stored for ``player`` (a guest registering):
    their tokens ``revoked`` may go, and the session be named by the new one."""

    player: str
    token: str
    account: str
    revoked: tuple[str, ...]


# ---------------------------------------------------------------------- decided after reading


@dataclass(frozen=True, slots=True)
class RateDue:
    """``room``'s finished race may be rated."""

    room: Room
    moment: Now


@dataclass(frozen=True, slots=True)
class HeatOverDue:
    """``room``'s arena heat is over, its end written: it may be scored here."""

    room: Room
    moment: Now


@dataclass(frozen=True, slots=True)
class ReconcileDue:
    """A write of ``room``'s log failed and the writes before it are settled: read the
    race back from the store."""

    room: Room
    moment: Now


@dataclass(frozen=True, slots=True)
class ReadBackDue:
    """The store may hold less of ``room``'s race than this node saw stored."""

    room: Room
    moment: Now


@dataclass(frozen=True, slots=True)
class CaughtUpDue:
    """``room``'s record may have a newer version in the store."""

    room: Room
    moment: Now


@dataclass(frozen=True, slots=True)
class PullDue:
    """``player``'s log in ``room`` may hold entries this replica lacks."""

    room: Room
    player: str
    moment: Now


@dataclass(frozen=True, slots=True)
class PairedHere:
    """``player``, whose session is here, was paired by another node (``paired``)."""

    player: str
    paired: Paired
    moment: Now


@dataclass(frozen=True, slots=True)
class GraceOver:
    """``player`` did not come back within the grace period."""

    player: str
    moment: Now


@dataclass(frozen=True, slots=True)
class LostWithNode:
    """``player``'s node died and they did not come back anywhere within the grace."""

    player: str
    moment: Now


@dataclass(frozen=True, slots=True)
class TimeLimitDue:
    """Race ``race`` may have run past its longest allowed duration."""

    race: str
    moment: Now


@dataclass(frozen=True, slots=True)
class PairingDue:
    """The quick-race pools may be paired."""

    moment: Now


@dataclass(frozen=True, slots=True)
class ArenaPairingDue:
    """The arenas may be run: heats scored, idle players paired, ended arenas closed."""

    moment: Now


@dataclass(frozen=True, slots=True)
class FieldJudgeDue:
    """The day's ranked daily runs listed as waiting for the day's field may be judged."""

    moment: Now


@dataclass(frozen=True, slots=True)
class ArenaFeedDue:
    """The arenas watched here may have new standings to tell."""

    moment: Now


NOW = (
    ActStored,
    ActRefused,
    StartDue,
    EndWritten,
    Forgotten,
    Rewatched,
    LetGo,
    LogCarried,
    LookAfterDue,
    TokenStored,
)
READING = (
    RateDue,
    HeatOverDue,
    ReconcileDue,
    ReadBackDue,
    CaughtUpDue,
    PullDue,
    PairedHere,
    GraceOver,
    LostWithNode,
    TimeLimitDue,
    PairingDue,
    ArenaPairingDue,
    ArenaFeedDue,
    FieldJudgeDue,
)
Input = (
    ActStored
    | ActRefused
    | StartDue
    | EndWritten
    | Forgotten
    | Rewatched
    | LetGo
    | LogCarried
    | LookAfterDue
    | TokenStored
)
ReadingInput = (
    RateDue
    | HeatOverDue
    | ReconcileDue
    | ReadBackDue
    | CaughtUpDue
    | PullDue
    | PairedHere
    | GraceOver
    | LostWithNode
    | TimeLimitDue
    | PairingDue
    | ArenaPairingDue
    | ArenaFeedDue
    | FieldJudgeDue
)
