"""What a decision asks to happen, as typed values: the handlers of the race desk, the
daily desk and the spectating desk decide and return these; the executor
(``server/carry/executor.py``) carries them out. Locally an effect is a write to a socket or a
queued store job; nothing here does I/O.

Whatever a decision writes is stored before it is told: the executor queues a list's
``Write`` effects first and carries out the rest (and sends the request's answer) once
they are written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocol.messages import ServerMessage
from protocol.player_events import PlayerEvent
from protocol.race import LogEntry
from server.handover.inputs import Input
from server.handover.jobs import Job

if TYPE_CHECKING:
    from server.state.rooms import Room
    from server.state.sessions import Session


@dataclass(slots=True)
class Push:
    """A numbered event for ``player`` (kept for resume, sent if they are connected)."""

    player: str
    event: PlayerEvent


@dataclass(slots=True)
class Send:
    """``message`` as it is (not numbered again: an event missed, a welcome) on
    ``player``'s line, if they have one here."""

    player: str
    message: ServerMessage


@dataclass(slots=True)
class Close:
    """Close ``player``'s line here, if they have one (``code``, ``reason``)."""

    player: str
    code: int
    reason: str


@dataclass(slots=True)
class HangUp:
    """Close the connection that asked (``code``, ``reason``), right after the request's
    answer is sent on it: a request's effect (a sign-out's)."""

    code: int
    reason: str


@dataclass(slots=True)
class Attach:
    """The connection that asked speaks for ``session`` from now on (an older line of its
    player is closed, 4001): a request's effect, carried out before anything else of it."""

    session: Session


@dataclass(slots=True)
class Retoken:
    """``player``'s session is ``account``'s from now on, named by ``token``."""

    player: str
    token: str
    account: str


@dataclass(slots=True)
class Revoke:
    """``player``'s resume tokens ``token_hashes`` name nobody any more; stored (however
    long the store takes) before the effects after it in its list are carried out, as a
    ``Write`` is."""

    player: str
    token_hashes: tuple[str, ...]


@dataclass(slots=True)
class Post:
    """A spectator feed item of ``room``'s race (``racer``: the racer it is about)."""

    room: Room
    kind: str
    data: dict[str, Any]
    racer: str | None = None


@dataclass(slots=True)
class PostAct:
    """``racer``'s accepted action for ``room``'s spectators, given as the answer they got."""

    room: Room
    racer: str
    reply: dict[str, Any]


@dataclass(slots=True)
class Write:
    """A store job: queued in order and retried until it is written (never dropped);
    ``then``, once it is, is handed to the decider (a fact such as ``EndWritten``)."""

    job: Job
    then: Input | None = None


@dataclass(slots=True)
class WriteBehind:
    """A store job queued (in order, retried, never dropped) that nothing waits for: a
    session's identity, which its welcome does not wait for."""

    job: Job


@dataclass(slots=True)
class TellTaken:
    """Tell node ``previous`` that ``player``'s session came here: it lets them go."""

    player: str
    previous: str


@dataclass(slots=True)
class StartAt:
    """Give ``room``'s race its start signal at ``mono_ms`` (this process's monotonic
    clock, in milliseconds)."""

    room: Room
    mono_ms: int


@dataclass(slots=True)
class Forget:
    """Stop following ``room`` (its spectators are told ``watch_ended``)."""

    room: Room
    reason: str


@dataclass(slots=True)
class Rewatch:
    """``room``'s spectators saw what its race no longer holds: their watch ends
    (``watch_ended`` with ``reason``), so they spectate it again from the race as it is."""

    room: Room
    reason: str


@dataclass(slots=True)
class Follow:
    """Hear what other nodes do in ``room``'s race (record changes, new actions)."""

    room: Room


@dataclass(slots=True)
class PushAnywhere:
    """A numbered event for ``player`` on whatever node holds their session."""

    player: str
    event: PlayerEvent


@dataclass(slots=True)
class Rate:
    """Rate ``room``'s finished race (once, by whichever node gets there first) and tell
    its racers."""

    room: Room


@dataclass(slots=True)
class ScoreHeat:
    """Score ``room``'s ended arena heat here, if this node holds its first racer's
    session (``server/desks/arena_scoring.py``): its result goes into the arena's log at
    once, not on the pairer's next tick."""

    room: Room


@dataclass(slots=True)
class Reconcile:
    """A write of ``room``'s log failed: once the writes before it are settled, read the
    race back from the store (however long the store takes) and decide on what it holds."""

    room: Room


@dataclass(slots=True)
class Pull:
    """Read ``player``'s new entries of ``room``'s log from the store (once at a time;
    asked again meanwhile, once more after) and decide on them."""

    room: Room
    player: str


@dataclass(slots=True)
class AfterAnswer:
    """``run`` right after the request's answer is sent on its connection (so after its
    writes, as the answer is), and what it returns carried out: what must not come before
    the answer, such as a signed-in session's missed events, or closing the connection on
    ``sign_out``."""

    run: Callable[[], Effects]


Effect = (
    Push
    | Send
    | Close
    | HangUp
    | Attach
    | Retoken
    | Revoke
    | Post
    | PostAct
    | Write
    | WriteBehind
    | TellTaken
    | StartAt
    | Forget
    | Rewatch
    | Follow
    | PushAnywhere
    | Rate
    | ScoreHeat
    | Reconcile
    | Pull
    | AfterAnswer
)
Effects = list[Effect]


@dataclass(slots=True)
class ActDecision:
    """The answer to one ``act``: the reply, what follows once it is stored, and the log
    entry to store first (None: nothing to store; a refusal or a resend)."""

    reply: ServerMessage
    effects: Effects
    room: Room | None
    entry: LogEntry | None
