"""The gateway: one ``Client`` per websocket connection. Frames in, typed requests to the
desks, answers out, in the order the requests came.

It is the one place that turns bad input into an answer or a close code: over the rate
limit (``rate_limited``, then 1008 for a flood), undecodable or invalid frames (an error
with a stable code, the request's id when it can be read), and a failed ``hello`` (the
session itself is opened, resumed and caught up by the ``SessionDesk``,
``server/session_desk.py``). ``act`` is answered without a coroutine (the hot path); every
other request runs as a task, and the connection's later messages wait behind it (reading
pauses past ``MAX_QUEUED``), so answers keep their order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from websockets.asyncio.server import ServerConnection

from protocol.daily import day_of
from protocol.errors import SolraceError
from protocol.messages import (
    Act,
    Admin,
    BestBoard,
    CreateRace,
    DailyBoard,
    DailyStart,
    Error,
    Hello,
    JoinRace,
    LeaveRace,
    ListLive,
    ListRaces,
    MyRaces,
    Profile,
    ProtocolError,
    QuickCancel,
    QuickRace,
    RaceLog,
    Register,
    Rematch,
    Request,
    Resign,
    Result,
    ServerMessage,
    SignIn,
    SignOut,
    Snapshot,
    Spectate,
    StartRace,
    Unspectate,
    decode_request,
)
from protocol.race import Now
from protocol.wire import WireError, decode
from server.account_desk import AccountDesk, signed_in_answer
from server.addresses import client_address, trusted_networks
from server.admin import AdminDesk, AdminError
from server.client import Client
from server.config import Settings
from server.connection import MessageConnection
from server.daily import DailyDesk
from server.director import RaceDirector
from server.effects import Effects
from server.executor import Executor, now
from server.metrics import Metrics
from server.outbox import Outbox
from server.pairing import PairingDesk
from server.profiles import ProfileDesk
from server.session_desk import SessionDesk
from server.sessions import Session, Sessions, close_soon
from server.signing import Seal
from server.spectating import SpectatingDesk
from server.store import Store, StoreError
from server.store.base import STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE
from server.writer import Writer

log = logging.getLogger("solrace.gateway")

CLOSE_POLICY = 1008  # flooding
CLOSE_SIGNED_OUT = 4003  # the player signed out
MAX_QUEUED = 16  # messages queued behind a waiting request before reading pauses
# requests by which a player starts to play (a guest's token is kept longer from then on)
PLAYING: frozenset[type[Request]] = frozenset(
    {CreateRace, JoinRace, Rematch, DailyStart, QuickRace}
)

Handler = Callable[[Client, Session, Any, Now], Awaitable[tuple[dict[str, Any], Effects]]]


class Gateway:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        sessions: Sessions,
        director: RaceDirector,
        daily: DailyDesk,
        spectating: SpectatingDesk,
        executor: Executor,
        writer: Writer,
        outbox: Outbox,
        metrics: Metrics,
        seal: Seal,
    ) -> None:
        self.settings = settings
        self.seal = seal
        self.store = store
        self.sessions = sessions
        self.director = director
        self.daily = daily
        self.spectating = spectating
        self.executor = executor
        self.writer = writer
        self.outbox = outbox
        self.metrics = metrics
        self.session_desk = SessionDesk(
            settings, store, sessions, director, spectating, executor, writer, outbox, metrics, seal
        )
        self.accounts = AccountDesk(store, settings, sessions, director, writer)
        self.pairing = PairingDesk(store, director, settings.countdown_ms)
        self.profiles = ProfileDesk(store)
        self.admin_desk = AdminDesk(store, settings)
        self.trusted = trusted_networks(settings.trusted_proxies)
        self.handlers: dict[type[Request], Handler] = {
            Register: self.register,
            SignIn: self.sign_in,
            SignOut: self.sign_out,
            CreateRace: self.create_race,
            ListRaces: self.list_races,
            MyRaces: self.my_races,
            JoinRace: self.join_race,
            StartRace: self.start_race,
            LeaveRace: self.leave_race,
            Resign: self.resign,
            Rematch: self.rematch,
            Snapshot: self.snapshot,
            RaceLog: self.race_log,
            DailyStart: self.daily_start,
            DailyBoard: self.daily_board,
            BestBoard: self.best_board,
            QuickRace: self.quick_race,
            QuickCancel: self.quick_cancel,
            Profile: self.profile,
            ListLive: self.list_live,
            Spectate: self.spectate,
            Unspectate: self.unspectate,
            Admin: self.admin,
        }

    # ================================================================== connections

    async def handle(self, connection: ServerConnection) -> None:
        """Serve one connection until it closes: each message is answered as it is read
        (``on_message``); the connection's task only waits for the end."""
        assert isinstance(connection, MessageConnection)
        client = Client(connection, self.settings, asyncio.get_running_loop().time())
        self.metrics.connections.inc()
        try:
            connection.listen(lambda message: self.on_message(client, message))
            await connection.wait_closed()
        finally:
            self.metrics.connections.dec()
            self._detach(client)

    def on_message(self, client: Client, frame: str | bytes) -> None:
        """One message, as it is read: rate-limited, then answered at once, or, while a
        request of this connection is being answered by a task, queued behind it."""
        if client.closing or client.replaced:
            return  # read on, so the closing handshake can finish
        now_s = time.monotonic()
        if not client.bucket.allow(now_s):
            if client.flood.strike(now_s):
                log.warning(
                    "closing a flooding connection",
                    extra={"remote": str(client.connection.remote_address)},
                )
                client.closing = True
                close_soon(client.connection, CLOSE_POLICY, "too many requests")
                return
            self._refuse(client, frame, "rate_limited", "too many requests: slow down")
            return
        if client.waiting is not None:
            if client.queued is None:
                client.queued = deque()
            client.queued.append((frame, now_s))
            if len(client.queued) == MAX_QUEUED and client.connection.transport is not None:
                client.connection.transport.pause_reading()
            return
        answering = self.on_frame(client, frame, now_s)
        if answering is not None:
            client.waiting = asyncio.create_task(self._answer_in_order(client, answering))

    async def _answer_in_order(self, client: Client, answering: Awaitable[None]) -> None:
        """Finish a request answered by a task, then the ones queued behind it."""
        try:
            await answering
            while client.queued:
                if len(client.queued) == MAX_QUEUED and client.connection.transport is not None:
                    client.connection.transport.resume_reading()
                later = self.on_frame(client, *client.queued.popleft())
                if later is not None:
                    await later
        finally:
            client.waiting = None

    def on_frame(
        self, client: Client, frame: str | bytes, read_at: float
    ) -> Awaitable[None] | None:
        """Answer one frame: ``act`` and every refusal at once, anything else by the
        returned coroutine."""
        request_id: Any = None
        kind: str | None = None
        try:
            request = decode_request(decode(frame, client.encoding))
            request_id, kind = request.id, request.type
            session = client.session
            if type(request) is Act:
                if session is None:
                    raise ProtocolError("say hello first", "hello_first")
                self.act(client, session, request)
                return None
            if type(request) is Hello:
                return self._hello(client, request)
            if session is None:
                raise ProtocolError("say hello first", "hello_first")
            if type(request) in (Register, SignIn, Admin):  # counted as it was read, in order
                client.attempts_allowed.append(client.attempts.allow(read_at))
            return self._answer(client, session, request)
        except Exception as error:
            if isinstance(error, ProtocolError) and error.request_id is not None:
                request_id = error.request_id
            self._failure(client, error, request_id, kind or message_type(frame, client))
            return None

    def act(self, client: Client, session: Session, request: Act) -> None:
        """The hot path: decide at once; the answer follows once the action is stored."""
        decision = self.director.act(session.player, request, now())
        player = session.player
        client.deferred += 1
        started = time.perf_counter()

        def send(message: ServerMessage) -> None:
            client.deferred -= 1
            self.metrics.act_seconds.observe(time.perf_counter() - started)
            self._send(client, message)

        self.executor.act(decision, send, session.fence, lambda: self.session_desk.let_go(player))

    async def _answer(self, client: Client, session: Session, request: Request) -> None:
        self.metrics.requests.labels(request.type).inc()
        try:
            data, effects = await self.handlers[type(request)](client, session, request, now())
        except Exception as error:
            self._failure(client, error, request.id, request.type)
            return
        if type(request) in PLAYING:
            effects = [*self.session_desk.playing(session), *effects]
        result = Result(request.id, request.type, data)
        then, client.after_answer = client.after_answer, None
        # written first; then answered and told (the next request waits for that)
        told = self.executor.run(effects, lambda: self.answer(client, result, then))
        if told is not None:
            await told

    async def _hello(self, client: Client, request: Hello) -> None:
        try:
            await self.session_desk.hello(client, request)
            await self._seen(client)
        except Exception as error:
            self._failure(client, error, request.id, request.type)

    async def _seen(self, client: Client) -> None:
        """An account's address is noted for the day: two accounts seen on one address
        are never rated against each other that day (``protocol/rated.py``). Best effort:
        the store being down loses a note, never the request's answer."""
        session = client.session
        if session is None or session.account is None:
            return
        try:  # after the answer's work is done: a failure here must not answer again
            await self.store.accounts.note_address(
                day_of(now().wall_ms), session.player, self.address(client)
            )
        except StoreError:
            log.warning("could not note an account's address", extra={"player": session.player})

    def _failure(self, client: Client, error: Exception, request_id: Any, kind: str | None) -> None:
        """The error answer to a request that failed with ``error``."""
        if isinstance(error, WireError):
            code, text, request_id, kind = error.code, error.message, None, None
        elif isinstance(error, StoreError):  # its message is for operators, not players
            log.warning("store error answering a request", exc_info=error)
            code, text = STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE
        elif isinstance(error, SolraceError):  # protocol errors, refused races and moves
            code, text = error.code, error.message
        else:
            log.exception("request failed", extra={"request": kind}, exc_info=error)
            code = "internal_error"
            text = (
                "the server failed to answer this request; it has been logged, and "
                "nothing was changed by it"
            )
        self.metrics.errors.labels(kind or "unknown", code).inc()
        self.answer(client, Error(request_id, kind, code, text))

    def _refuse(self, client: Client, frame: str | bytes, code: str, text: str) -> None:
        request_id = None
        with contextlib.suppress(WireError):
            request_id = decode(frame, client.encoding).get("id")
        if not isinstance(request_id, int | str) or isinstance(request_id, bool):
            request_id = None
        kind = message_type(frame, client)
        self.metrics.errors.labels(kind or "unknown", code).inc()
        self.answer(client, Error(request_id, kind, code, text))

    def answer(
        self, client: Client, message: ServerMessage, then: Callable[[], None] | None = None
    ) -> None:
        """Send an answer, after the answers of this connection's actions still waiting
        to be stored (answers keep the order of the requests); ``then`` right after it."""
        if not client.deferred:
            self._send(client, message)
            if then is not None:
                then()
            return
        client.deferred += 1

        def deliver() -> None:
            client.deferred -= 1
            self._send(client, message)
            if then is not None:
                then()

        self.writer.submit(None, deliver)

    def _send(self, client: Client, message: ServerMessage) -> None:
        session = client.session
        if session is not None and session.connection is client.connection:
            session.send(message)
        else:
            self.outbox.send(client.connection, client.encoding, message)

    def _detach(self, client: Client) -> None:
        session = client.session
        if session is None or session.connection is not client.connection:
            return
        self.spectating.left(session)
        if not self.stopping:
            self.sessions.away(session)

    stopping = False  # set by the server at shutdown: nobody is waited for

    # ================================================================== accounts

    async def register(
        self, client: Client, session: Session, request: Register, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        answer = await self.accounts.register(
            session, request, client.attempts_allowed.popleft(), self.address(client)
        )
        await self._seen(client)
        return answer

    async def sign_in(
        self, client: Client, session: Session, request: SignIn, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        """This connection continues as the account (resuming its session, wherever it
        was); the guest session ends, so a guest who is racing must finish first."""
        account, token = await self.accounts.sign_in(
            session, request, client.attempts_allowed.popleft(), self.address(client)
        )
        signed_in, resumed, restored = await self.session_desk.session_for(token, account.username)
        self._end(session)  # only once the account's session is there: a failure keeps it
        self.session_desk.attach(client, signed_in)
        await self._seen(client)
        client.after_answer = lambda: self.session_desk.catch_up(signed_in, resumed, restored, None)
        return signed_in_answer(signed_in, token), []

    async def sign_out(
        self, client: Client, session: Session, request: SignOut, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        """Forget this token (or all the account's), then end the session and close."""
        answer = await self.accounts.sign_out(session, request)

        def close() -> None:
            self._end(session)
            self.sessions.expire(session.player)
            close_soon(client.connection, CLOSE_SIGNED_OUT, "signed out")

        client.after_answer = close
        return answer, []

    def _end(self, session: Session) -> None:
        """Forget ``session`` here and stop its watching (its player is not coming back
        on it)."""
        self.spectating.left(session)
        self.sessions.remove(session)

    def address(self, client: Client) -> str:
        """The client's address, by the trusted proxy's word if it came through one."""
        connection = client.connection
        peer = connection.remote_address
        forwarded = connection.forwarded_for if isinstance(connection, MessageConnection) else None
        return client_address(str(peer[0]) if peer else "", forwarded, self.trusted)

    # ================================================================== requests

    async def create_race(
        self, client: Client, session: Session, request: CreateRace, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.director.create_race(
            session.player, session.name, request, moment, session.account is not None
        )

    async def list_races(
        self, client: Client, session: Session, request: ListRaces, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.director.list_races(moment), []

    async def my_races(
        self, client: Client, session: Session, request: MyRaces, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return self.director.my_races(session.player), []

    async def join_race(
        self, client: Client, session: Session, request: JoinRace, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.director.join_race(
            session.player, session.name, request.race, moment, session.account is not None
        )

    async def start_race(
        self, client: Client, session: Session, request: StartRace, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.director.start_race(session.player, request.race, moment)

    async def leave_race(
        self, client: Client, session: Session, request: LeaveRace, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.director.leave_race(session.player, request.race, moment)

    async def resign(
        self, client: Client, session: Session, request: Resign, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.director.resign(session.player, request.race, moment)

    async def rematch(
        self, client: Client, session: Session, request: Rematch, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.director.rematch(
            session.player, session.name, request.race, moment, session.account is not None
        )

    async def snapshot(
        self, client: Client, session: Session, request: Snapshot, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        room = await self.director.find(request.race, moment)
        return self.director.snapshot(session.player, room, room.id in session.watching), []

    async def race_log(
        self, client: Client, session: Session, request: RaceLog, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        log = await self.director.race_log(session.player, request.race, moment)
        return {"log": self.seal.sign(log)}, []

    async def daily_start(
        self, client: Client, session: Session, request: DailyStart, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        data, effects = await self.daily.daily_start(
            session.player,
            session.name,
            session.account is not None,
            request,
            moment,
            await self.accounts.registered_today(session, moment),
        )
        return data, effects

    async def daily_board(
        self, client: Client, session: Session, request: DailyBoard, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return self.seal.sign(await self.daily.daily_board(session.player, request, moment)), []

    async def best_board(
        self, client: Client, session: Session, request: BestBoard, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.daily.best_board(session.player, request), []

    async def quick_race(
        self, client: Client, session: Session, request: QuickRace, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        account = session.account is not None
        return await self.pairing.join(
            session.player, session.name, account, request.game, moment, request.bots
        ), []

    async def quick_cancel(
        self, client: Client, session: Session, request: QuickCancel, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.pairing.cancel(session.player), []

    async def profile(
        self, client: Client, session: Session, request: Profile, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        if (request.player is None) == (request.username is None):
            raise ProtocolError("profile needs a 'player' or a 'username' (one)", "missing_field")
        return await self.profiles.profile(request.player, request.username, moment), []

    async def admin(
        self, client: Client, session: Session, request: Admin, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        """A moderator's request (``server/admin.py``); its tries share the connection's
        budget of sign-in attempts, so the admin token cannot be guessed quickly."""
        if not client.attempts_allowed.popleft():
            raise AdminError("too many attempts: wait a minute", "rate_limited")
        return await self.admin_desk.answer(request, moment, self.address(client)), []

    async def list_live(
        self, client: Client, session: Session, request: ListLive, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return await self.spectating.list_live(moment), []

    async def spectate(
        self, client: Client, session: Session, request: Spectate, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        answer = await self.spectating.spectate(session, request, moment)
        if answer["race"]["phase"] == "done":  # no feed: said once the answer is out
            ended = {"race": request.race, "reason": "over"}
            client.after_answer = lambda: session.push("watch_ended", ended)
        return answer, []

    async def unspectate(
        self, client: Client, session: Session, request: Unspectate, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return self.spectating.unspectate(session, request), []


def message_type(frame: str | bytes, client: Client) -> str | None:
    """The ``type`` of a frame, if it can be read (for error replies)."""
    try:
        kind = decode(frame, client.encoding).get("type")
    except WireError:
        return None
    return kind[:32] if isinstance(kind, str) else None
