"""Which session a connection speaks for. ``hello`` (and a sign-in, through the gateway)
gets the session a resume token names: resumed, when this process has it; restored from
the store after a restart or from another node, taking over the player's live races (their
logs claimed with the new session's fence, the previous node told); or a new guest's. The
desk promises one session per player on this node; the edge attaches the connection
(``server/edge/lines.py``: one line per session, an older one closed with 4001), and ``let_go``
returns the close of the line when the session has moved to another node. Once attached,
a resumed session gets the events it missed (a snapshot when they are no longer kept) and
a restored one a snapshot of its races: returned as effects, with the welcome. The desk
never sees a connection. What fails is raised; the gateway answers it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from protocol.accounts import is_reserved
from protocol.games import catalog
from protocol.messages import Hello, ProtocolError, Welcome
from protocol.player_events import Snapshot
from protocol.players import is_bot, new_player_id
from protocol.race_views import racer_view
from protocol.wire import PROTOCOL_VERSION
from server.config import Settings
from server.desks.signing import Seal
from server.desks.spectating import SpectatingDesk
from server.handover.effects import Close, Effects, Push, Send, TellTaken, Write, WriteBehind
from server.handover.jobs import SaveIdentity
from server.handover.moment import now
from server.handover.ports import Owed
from server.metrics import Metrics
from server.races.followed import FollowedRaces
from server.races.read_back import read_back
from server.races.standing import told_standing
from server.state.sessions import GENERATION_SHIFT, Session, Sessions, event_keep_s, token_hash
from server.store import Identity, Store, StoreError

log = logging.getLogger("solrace.gateway")  # its lines as before the desk was split out

CLOSE_REPLACED = 4001  # another connection resumed this player's session
GUEST_UNPLAYED_S = 86_400  # a guest who never played is forgotten a day after their last visit


@dataclass(frozen=True, slots=True)
class Opened:
    """A session a hello opened: to be attached to the connection, then ``effects`` (the
    welcome, then what it missed) carried out."""

    session: Session
    effects: Effects
    resumed: bool
    restored: bool


class SessionDesk:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        sessions: Sessions,
        races: FollowedRaces,
        spectating: SpectatingDesk,
        owed: Owed,
        metrics: Metrics,
        seal: Seal,
        node: str,
    ) -> None:
        self.seal = seal
        self.settings = settings
        self.store = store
        self.sessions = sessions
        self.races = races
        self.spectating = spectating
        self.owed = owed  # what a session opened owes whatever becomes of its request
        self.metrics = metrics
        self.durable_identities = settings.keep_identities_days * 86_400
        self.played_guests = settings.keep_guests_days * 86_400
        self.node = node

    async def hello(self, request: Hello, said_hello: bool) -> Opened:
        """Open a session: resume the one this token names (in this process, or restored
        from the store after a restart), or a new player; ``said_hello``: the connection
        speaks for one already (refused)."""
        if request.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                f"this server speaks protocol {PROTOCOL_VERSION}", "unsupported_protocol"
            )
        if said_hello:
            raise ProtocolError("this connection has already said hello", "already_hello")
        if is_reserved(request.name):  # nobody passes for the service, guests neither
            raise ProtocolError(f"the name {request.name!r} is kept for the service", "bad_field")
        session, resumed, restored = await self.session_for(
            request.token, request.name, request.bot
        )
        standing = await told_standing(
            self.store, self.settings, session.player, session.account, now().wall_ms
        )
        welcome = Welcome(
            request.id,
            session.player,
            session.name,
            session.token,
            resumed or restored,
            PROTOCOL_VERSION,
            now().wall_ms,
            self.settings.grace_ms,
            session.last_event,
            self.node,
            session.account,
            self.seal.current(),
            catalog(),
            standing,
        )
        caught_up = self.catch_up(session, resumed, restored, request.last_event)
        return Opened(session, [Send(session.player, welcome), *caught_up], resumed, restored)

    async def opened(self, opened: Opened) -> Effects:
        """The session is attached and welcomed: the races this node followed before it
        came are read back (what a loss tells is returned), and it is counted."""
        session, resumed, restored = opened.session, opened.resumed, opened.restored
        effects = await self.read_back_taken(session.player)
        self.metrics.hellos.labels(
            "resumed" if resumed else "restored" if restored else "new"
        ).inc()
        log.info(
            "hello", extra={"player": session.player, "resumed": resumed, "restored": restored}
        )
        return effects

    async def session_for(
        self, token: str | None, name: str, bot: bool = False, known: Identity | None = None
    ) -> tuple[Session, bool, bool]:
        """The session ``token`` names (resumed: in this process; restored: from the
        store), or a new guest's named ``name`` (a bot's, with ``bot``); and whether it was
        resumed or restored. ``known``: who the token names, when the caller knows it (an
        account's token just made, not yet stored), else read from the store. A bot may
        not continue a person's session (``bot_mismatch``): the label would be lost."""
        session = self.sessions.by_token.get(token_hash(token)) if token else None
        if session is not None:
            _bot_may_be(bot, session.player)
            return session, True, False
        if known is None and token:
            known = await self.store.accounts.identity(token_hash(token))
        if known is not None:
            _bot_may_be(bot, known.player)
        if known is not None and known.player in self.sessions.by_player:  # another device
            return self._resumed_with(self.sessions.by_player[known.player], token), True, False
        session = self.sessions.new(
            known.name if known and known.account else name,
            self.settings.event_buffer,
            known.player if known else new_player_id(bot),
            token if known else None,
            event_keep_s(self.settings),
        )
        session.account = known.account if known else None
        session.has_played = known is not None and known.played
        session.fence = await self.store.bus.next_event_generation(session.player)
        restored = False
        if known is not None:
            session.last_event = session.fence << GENERATION_SHIFT
            restored = await self._take_over(session.player, session.fence)
        if session.player in self.sessions.by_player:  # resumed meanwhile: take it
            return self._resumed_with(self.sessions.by_player[session.player], token), True, False
        self.sessions.add(session)
        self.owed.add([WriteBehind(self._identity(session))])
        previous = await self.store.bus.take_player(session.player, self.node)
        if previous and previous != self.node:
            self.owed.add([TellTaken(session.player, previous)])
        return session, False, restored

    def _identity(self, session: Session) -> SaveIdentity:
        """``session``'s token, kept as long as its kind of player is: an account's for
        ``keep_identities_days``, a guest's who has played for ``keep_guests_days``, a
        guest's who never played for a day (a refresh at each use)."""
        if session.account is not None:
            keep_s = self.durable_identities
        else:
            keep_s = self.played_guests if session.has_played else GUEST_UNPLAYED_S
        return SaveIdentity(
            session.token_hash,
            session.player,
            session.name,
            keep_s,
            session.account or "",
            session.has_played,
        )

    def playing(self, session: Session) -> Effects:
        """``session`` starts to play (a race, a daily attempt, a pool): a guest's token is
        kept for as long as a guest who played is, from now on (written before the answer)."""
        if session.has_played:
            return []
        session.has_played = True
        return [] if session.account is not None else [Write(self._identity(session))]

    def _resumed_with(self, session: Session, token: str | None) -> Session:
        """``session`` resumed by another of its player's devices: named by that device's
        own token from now on, so its welcome and its ``sign_out`` are about that token."""
        if token is not None:
            self.sessions.retoken(session, token)
        return session

    async def read_back_taken(self, player: str) -> Effects:
        """The races this node followed before ``player``'s session came here are read
        back (``server/races/read_back.py``: the store may hold less than this node saw stored);
        what a loss tells (returned) follows the welcome and the snapshot."""
        effects: Effects = []
        for race_id in sorted(self.races.read_back_due.pop(player, ())):
            room = self.races.rooms.get(race_id)
            if room is None:
                continue
            try:
                effects += await read_back(self.races, room, now())
            except StoreError as error:  # a later write or reconnect reads it back then
                log.warning("a race not read back", extra={"race": race_id, "error": str(error)})
        return effects

    def catch_up(
        self, session: Session, resumed: bool, restored: bool, last_event: int | None
    ) -> Effects:
        """A resumed session gets the events it missed (or a snapshot when they are no
        longer kept), a restored one a snapshot of its races."""
        player = session.player
        if resumed:
            missed = session.missed_since(last_event or 0)
            if missed is None or last_event is None:
                return [Push(player, self._snapshot_of(player))]
            return [Send(player, event) for event in missed]
        if restored:
            return [Push(player, self._snapshot_of(player))]
        return []

    async def _take_over(self, player: str, fence: int) -> bool:
        """The player's session continues here (from a node that stopped, or that they
        left): their races are taken over with this session's fence (``FollowedRaces.
        take_over``). True when they race in any."""
        races, rebuilt = await self.races.take_over(player, fence, now())
        self.metrics.races_rebuilt.inc(rebuilt)
        return bool(races)

    def let_go(self, player: str) -> Effects:
        """The player's session moved to another node: forget it at once (no grace period:
        they are not away) and close its line here (4001)."""
        session = self.sessions.get(player)
        if session is None:
            return []
        self.sessions.remove(session)
        for race_id in list(session.watching):
            self.spectating.stop_watching(session, race_id)
        log.info("session moved to another node", extra={"player": player})
        return [Close(player, CLOSE_REPLACED, "replaced by a newer connection")]

    def _snapshot_of(self, player: str) -> Snapshot:
        return Snapshot([racer_view(room.race, player) for room in self.races.racing(player)])


def _bot_may_be(bot: bool, player: str) -> None:
    """A connection that says it is a bot may only be a bot's player."""
    if bot and not is_bot(player):
        raise ProtocolError(
            "a bot cannot continue a person's session: connect without this token",
            "bot_mismatch",
        )
