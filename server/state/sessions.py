"""Players' sessions: who they are, their resume token and their numbered events. A
session is the player, not their socket: the connection that carries it on this node, its
encoding and its send buffer are its *line*, held by the edge only (``server/edge/lines.py``);
desks and rooms hold sessions and never see a connection.

Every event a player is sent is numbered and kept (the last ``buffer`` of them, and only
as long as a resume could need them: see ``event_keep_s``), so a player who reconnects
with the number of the last event they saw gets exactly what they missed, or a full
snapshot when that is too far back. A session restored by another
process (after a restart) numbers its events from a new *generation* taken from the
store, ``generation << 32``, so numbers keep growing and are never reused.

Identities live in the store: a resume token (kept there only as its SHA-256) names the
same player in every process and after every restart.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections import deque
from collections.abc import Callable

from protocol.messages import Event
from protocol.player_events import PlayerEvent
from protocol.players import new_player_id
from server.config import Settings
from server.store.records import token_hash as token_hash  # kept here for its users

log = logging.getLogger("solrace.sessions")
GENERATION_SHIFT = 32  # event numbers of a restored session start at generation << 32
EVENT_SLACK_S = 5.0  # events are kept this much longer than a resume could need them


def event_keep_s(settings: Settings) -> float:
    """How long an event may be needed for a resume. An event sent on a live connection
    has reached the client once the next keepalive ping is answered (the pong comes after
    everything sent before the ping), or the connection is closed by then: at most the
    ping interval and timeout, and the close timeout. Then the player has the grace period
    to resume. After that (and some slack), the event was seen or the session is over.
    Without keepalive pings, for as long as the buffer keeps it."""
    if not settings.ping_interval_s or not settings.ping_timeout_s:
        return math.inf
    keepalive = settings.ping_interval_s + settings.ping_timeout_s + settings.close_timeout_s
    return keepalive + settings.grace_ms / 1000 + EVENT_SLACK_S


def new_token() -> str:
    """A fresh resume token (192 random bits)."""
    return secrets.token_urlsafe(24)


class Session:
    """Who a player is on this node: their id, name, account, resume token, the races they
    watch, the fence of their writes and the numbered events kept for a resume. It holds
    no connection: the edge sends what is numbered here (``server/edge/lines.py``)."""

    def __init__(
        self,
        name: str,
        buffer: int,
        player: str | None = None,
        token: str | None = None,
        keep_s: float = math.inf,
    ) -> None:
        self.player = player or new_player_id()
        self.token = token or new_token()
        self.token_hash = token_hash(self.token)
        self.name = name
        self.account: str | None = None  # the account's username; None for a guest
        self.has_played = False  # raced, or started a daily attempt or a pool (``playing``)
        self.buffer = buffer
        self.keep_s = keep_s  # how long an event is kept (see ``event_keep_s``)
        # the numbered events kept, and when each was sent (monotonic s); made at the
        # first, let go when the last is too old: an idle player has none to keep
        self.events: deque[Event] | None = None
        self.sent_at: deque[float] | None = None
        self.last_event = 0
        self.watching: set[str] = set()  # race ids this player spectates
        self.fence = 1  # this session's writes to its racers' logs (higher: a newer session)
        self.grace: asyncio.TimerHandle | None = None

    def numbered(self, told: PlayerEvent) -> Event:
        """``told`` as the player's next numbered event, kept for a resume (the edge sends
        it if their line is here)."""
        self.last_event += 1
        event = Event(self.last_event, told.kind, told.data())
        if self.events is None or self.sent_at is None:
            self.events = deque(maxlen=self.buffer)
            self.sent_at = deque(maxlen=self.buffer)
        sent_at = time.monotonic()
        self.events.append(event)
        self.sent_at.append(sent_at)
        self.let_go_of_events(sent_at)
        return event

    def let_go_of_events(self, mono_s: float) -> None:
        """Stop keeping the events that no resume at ``mono_s`` (monotonic) could need."""
        events, sent_at, oldest = self.events, self.sent_at, mono_s - self.keep_s
        if events is None or sent_at is None or sent_at[0] >= oldest:
            return
        while sent_at and sent_at[0] < oldest:
            sent_at.popleft()
            events.popleft()
        if not events:
            self.events = self.sent_at = None

    def missed_since(self, last_seen: int) -> list[Event] | None:
        """The events after ``last_seen``, or None if some of them are no longer kept."""
        if last_seen >= self.last_event:
            return [] if last_seen == self.last_event else None
        if not self.events or self.events[0].n > last_seen + 1:
            return None
        return [event for event in self.events if event.n > last_seen]


class Sessions:
    """Every session of this node, by player and by token hash, and the grace timers of
    players who went away: ``expire`` is called for a player who did not come back."""

    def __init__(self, grace_ms: int, expire: Callable[[str], None]) -> None:
        self.grace_s = grace_ms / 1000
        self.expire = expire
        self.by_player: dict[str, Session] = {}
        self.by_token: dict[str, Session] = {}
        self.round: list[Session] = []  # the sessions of this round of let_go_of_events

    def get(self, player: str) -> Session | None:
        return self.by_player.get(player)

    def here(self, player: str) -> bool:
        """Whether ``player``'s session is on this node."""
        return player in self.by_player

    def new(self, name: str, buffer: int, player: str, token: str | None, keep_s: float) -> Session:
        """A session (not yet added)."""
        return Session(name, buffer, player, token, keep_s)

    def add(self, session: Session) -> None:
        self.by_player[session.player] = session
        self.by_token[session.token_hash] = session

    def retoken(self, session: Session, token: str) -> None:
        """``session`` is named by ``token`` from now on (its old token no longer)."""
        self.by_token.pop(session.token_hash, None)
        session.token, session.token_hash = token, token_hash(token)
        self.by_token[session.token_hash] = session

    def became_account(self, player: str, token: str, account: str) -> None:
        """``player``'s guest session is ``account``'s from now on, named by ``token``."""
        session = self.by_player.get(player)
        if session is not None:
            self.retoken(session, token)
            session.account = session.name = account

    def back(self, session: Session) -> None:
        """The player is connected again: their grace period ends."""
        if session.grace is not None:
            session.grace.cancel()
            session.grace = None

    def away(self, session: Session) -> None:
        """The player's line is gone: the grace period starts (``back`` ends it)."""
        loop = asyncio.get_running_loop()
        session.grace = loop.call_later(self.grace_s, self._grace_over, session)

    def _grace_over(self, session: Session) -> None:
        session.grace = None  # the timer refers to the session: no cycle left behind
        if self.by_player.get(session.player) is not session:
            return  # a newer session of the player's holds its place (back: no timer)
        self._forget(session)
        log.info("session ended", extra={"player": session.player})
        self.expire(session.player)

    def remove(self, session: Session) -> None:
        """Forget ``session`` at once (it continues on another node)."""
        if session.grace is not None:
            session.grace.cancel()
            session.grace = None
        self._forget(session)

    def _forget(self, session: Session) -> None:
        """Drop ``session`` from the maps, where it is the one they hold (not a newer one)."""
        if self.by_player.get(session.player) is session:
            del self.by_player[session.player]
        if self.by_token.get(session.token_hash) is session:
            del self.by_token[session.token_hash]

    def let_go_of_events(self, mono_s: float, part: int, parts: int) -> None:
        """Part ``part`` of ``parts`` of the sessions stop keeping the events no resume at
        ``mono_s`` could need (a player who gets no more events keeps none for long). The
        sessions are listed once a round of parts (at part 0): a session that begins
        meanwhile is looked after in the next round."""
        if part == 0 or not self.round:
            self.round = list(self.by_player.values())
        for session in self.round[part::parts]:
            if session.events is not None:
                session.let_go_of_events(mono_s)

    def stop(self) -> None:
        """The process is ending: nobody comes back to it."""
        for session in self.by_player.values():
            if session.grace is not None:
                session.grace.cancel()
                session.grace = None
