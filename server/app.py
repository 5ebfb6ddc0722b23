"""The race server: websocket connections in, the pure core decides, results out.

One ``RaceServer`` per process. It accepts connections (``/ws``; ``/healthz`` and the
browser client over plain HTTP on the same port), decodes requests, asks the race state
machine what happens, sends the answers, and hands writes to the store through a queue
that never loses them. Players' replies are sent at once; opponents' standings ride on
those replies or follow on a timer; spectators are served in small slices between
players' requests, so they never slow a racer down.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve

from protocol.daily import day_of, next_day_start_ms, parse_day
from protocol.deals import MAX_DEAL, check_deal_number
from protocol.errors import SolraceError
from protocol.games import rules_for
from protocol.messages import (
    Act,
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
    ProtocolError,
    Rematch,
    Request,
    Resign,
    Result,
    Snapshot,
    Spectate,
    StartRace,
    Unspectate,
    Welcome,
    decode_request,
)
from protocol.race import (
    Ending,
    Now,
    Phase,
    Race,
    RaceError,
    RaceSettings,
    daily_deal_shown,
    run_json,
    view_json,
)
from protocol.wire import JSON, PROTOCOL_VERSION, SUBPROTOCOLS, WireError, decode
from server.config import Settings
from server.connection import MessageConnection
from server.daily import DailyDeals
from server.http import HttpRoutes
from server.outbox import Outbox
from server.persist import Persister
from server.ratelimit import FloodGuard, TokenBucket
from server.rooms import Room
from server.sessions import Session, close_soon
from server.store import Board, Entry, Store, StoreError

log = logging.getLogger("solrace.server")

CLOSE_REPLACED = 4001  # another connection resumed this player's session
CLOSE_POLICY = 1008  # flooding
GC_YOUNG_THRESHOLD = 10_000  # allocations between young collections (see _ticker)
MAX_QUEUED = 16  # messages queued behind a waiting request before reading pauses


def now() -> Now:
    return Now(int(time.monotonic() * 1000), int(time.time() * 1000))


class Client:
    """One websocket connection and what it has said so far."""

    def __init__(self, connection: ServerConnection, settings: Settings, now_s: float) -> None:
        self.connection = connection
        self.encoding = connection.subprotocol or JSON
        self.bucket = TokenBucket(settings.rate_per_s, settings.burst, now_s)
        self.flood = FloodGuard(settings.flood_strikes)
        self.session: Session | None = None
        self.closing = False  # closing for abuse: frames are read and dropped
        self.waiting: asyncio.Task[None] | None = None  # a request waiting on the store
        self.queued: deque[str | bytes] = deque()  # messages read meanwhile, in order

    @property
    def replaced(self) -> bool:
        """Another connection has resumed this one's session."""
        return self.session is not None and self.session.connection is not self.connection


class RaceServer:
    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self.sessions: dict[str, Session] = {}
        self.tokens: dict[str, Session] = {}
        self.identities: dict[str, str] = {}  # token -> player id, kept after sessions end
        self.rooms: dict[str, Room] = {}
        self.feeding: set[Room] = set()  # rooms whose spectator feed has work to do
        self.persister = Persister()
        self.outbox = Outbox()
        self.daily = DailyDeals(store, settings)
        self.http = HttpRoutes(self)
        self.server: Server | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.stopping = False
        self.gc_threshold = gc.get_threshold()
        self.handlers: dict[type[Request], Callable[[Client, Any], Awaitable[dict[str, Any]]]] = {
            CreateRace: self.on_create_race,
            ListRaces: self.on_list_races,
            MyRaces: self.on_my_races,
            JoinRace: self.on_join_race,
            StartRace: self.on_start_race,
            LeaveRace: self.on_leave_race,
            Resign: self.on_resign,
            Rematch: self.on_rematch,
            Snapshot: self.on_snapshot,
            DailyStart: self.on_daily_start,
            DailyBoard: self.on_daily_board,
            BestBoard: self.on_best_board,
            ListLive: self.on_list_live,
            Spectate: self.on_spectate,
            Unspectate: self.on_unspectate,
        }

    # ================================================================== lifecycle

    async def start(self) -> None:
        settings = self.settings
        self.gc_threshold = gc.get_threshold()
        gc.set_threshold(GC_YOUNG_THRESHOLD, *self.gc_threshold[1:])
        self.server = await serve(
            self.handle,
            settings.host,
            settings.port,
            subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]
            select_subprotocol=_select_subprotocol,
            process_request=self.http.process_request,
            origins=list(settings.origins) or None,  # type: ignore[arg-type]
            compression=None,
            max_size=4096,
            create_connection=MessageConnection,
            ping_interval=settings.ping_interval_s,
            ping_timeout=settings.ping_timeout_s,
            close_timeout=settings.close_timeout_s,
            server_header="solrace",
            backlog=1024,
        )
        self.tasks = [
            asyncio.create_task(self.persister.run(), name="persister"),
            asyncio.create_task(self._ticker(), name="ticker"),
            asyncio.create_task(self.daily.prepare_ahead(now().wall_ms), name="daily"),
        ]
        log.info("serving", extra={"host": settings.host, "port": self.port})

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def stop(self, reason: str = "the server is shutting down") -> None:
        """Graceful shutdown: stop accepting, tell every player, finish writes, close."""
        if self.server is None or self.stopping:
            return
        self.stopping = True
        self.server.server.close()  # no new connections
        for session in self.sessions.values():
            session.push("shutdown", {"reason": reason})
        drained = await self.persister.drain(self.settings.shutdown_grace_s)
        log.info(
            "writes finished" if drained else "writes left undone at shutdown",
            extra={"backlog": self.persister.backlog},
        )
        self.server.close(code=1001, reason="server shutting down")
        await self.server.wait_closed()
        for session in self.sessions.values():
            if session.grace is not None:
                session.grace.cancel()  # the process is ending: nobody comes back
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.daily.close()
        await self.store.close()
        gc.unfreeze()
        gc.set_threshold(*self.gc_threshold)

    # ================================================================== connections

    async def handle(self, connection: ServerConnection) -> None:
        """Serve one connection until it closes: each message is answered as it is read
        (``on_message``); the connection's task only waits for the end."""
        assert isinstance(connection, MessageConnection)
        client = Client(connection, self.settings, asyncio.get_running_loop().time())
        try:
            connection.listen(lambda message: self.on_message(client, message))
            await connection.wait_closed()
        finally:
            self._detach(client)

    def on_message(self, client: Client, frame: str | bytes) -> None:
        """One message, as it is read: rate-limited, then answered at once, or, while a
        request of this connection waits on the store, queued behind it (reading pauses
        while too many are queued), so every connection's answers keep its order."""
        if client.closing or client.replaced:
            return  # read on, so the closing handshake can finish
        now_s = time.monotonic()  # the loop's own clock
        if not client.bucket.allow(now_s):
            if client.flood.strike(now_s):
                log.warning(
                    "closing a flooding connection",
                    extra={"remote": str(client.connection.remote_address)},
                )
                client.closing = True
                close_soon(client.connection, CLOSE_POLICY, "too many requests")
                return
            self._refuse(
                client, frame, "rate_limited", "too many requests: slow down and send this again"
            )
            return
        if client.waiting is not None:
            client.queued.append(frame)
            if len(client.queued) == MAX_QUEUED and client.connection.transport is not None:
                client.connection.transport.pause_reading()
            return
        answering = self.on_frame(client, frame)
        if answering is not None:
            client.waiting = asyncio.create_task(self._answer_in_order(client, answering))

    async def _answer_in_order(self, client: Client, answering: Awaitable[None]) -> None:
        """Finish a request that waits on the store, then the ones queued behind it."""
        try:
            await answering
            while client.queued:
                if len(client.queued) == MAX_QUEUED and client.connection.transport is not None:
                    client.connection.transport.resume_reading()
                later = self.on_frame(client, client.queued.popleft())
                if later is not None:
                    await later
        finally:
            client.waiting = None

    def on_frame(self, client: Client, frame: str | bytes) -> Awaitable[None] | None:
        """Answer one frame: at once when nothing needs waiting for (actions, hello, every
        refusal), else by the returned coroutine (``on_message`` runs it, and holds this
        connection's later messages until it is done)."""
        request_id: Any = None
        kind: str | None = None
        try:
            message = decode(frame, client.encoding)
            request = decode_request(message)
            request_id, kind = request.id, request.type
            session = client.session
            if type(request) is Act:
                if session is None:
                    raise ProtocolError("say hello first", "hello_first")
                self.on_act(client, session, request)
                return None
            if type(request) is Hello:
                self.on_hello(client, request)
                return None
            if session is None:
                raise ProtocolError("say hello first", "hello_first")
            return self._answer(client, request)
        except Exception as error:
            if isinstance(error, ProtocolError) and error.request_id is not None:
                request_id = error.request_id
            self._send_failure(client, error, request_id, kind or message_type(frame, client))
            return None

    async def _answer(self, client: Client, request: Request) -> None:
        try:
            data = await self.handlers[type(request)](client, request)
        except Exception as error:
            self._send_failure(client, error, request.id, request.type)
        else:
            self._send(client, Result(request.id, request.type, data))

    def _send_failure(
        self, client: Client, error: Exception, request_id: Any, kind: str | None
    ) -> None:
        """The error answer to a request that failed with ``error``."""
        if isinstance(error, WireError):
            code, text, request_id, kind = error.code, error.message, None, None
        elif isinstance(error, SolraceError):  # protocol errors, refused races and moves
            code, text = error.code, error.message
        elif isinstance(error, StoreError):
            log.warning("store error answering a request", exc_info=error)
            code = "store_unavailable"
            text = "the leaderboard store is not answering; try again shortly"
        else:
            log.exception("request failed", extra={"request": kind}, exc_info=error)
            code = "internal_error"
            text = (
                "the server failed to answer this request; it has been logged, and "
                "nothing was changed by it"
            )
        self._send(client, Error(request_id, kind, code, text))

    def _refuse(self, client: Client, frame: str | bytes, code: str, text: str) -> None:
        request_id = None
        with contextlib.suppress(WireError):
            request_id = decode(frame, client.encoding).get("id")
        if not isinstance(request_id, int | str) or isinstance(request_id, bool):
            request_id = None
        self._send(client, Error(request_id, message_type(frame, client), code, text))

    def _send(self, client: Client, message: Any) -> None:
        session = client.session
        if session is not None and session.connection is client.connection:
            session.send(message)
        else:
            self.outbox.send(client.connection, client.encoding, message)

    def _detach(self, client: Client) -> None:
        session = client.session
        if session is None or session.connection is not client.connection:
            return
        session.connection = None
        for race_id in list(session.watching):
            self._stop_watching(session, race_id)
        if not self.stopping:
            loop = asyncio.get_running_loop()
            session.grace = loop.call_later(self.settings.grace_ms / 1000, self._expire, session)

    def _expire(self, session: Session) -> None:
        """The grace period passed without a resume: the player's races go on without
        them (did not finish), and the session ends."""
        session.grace = None  # the timer refers to the session: no cycle left behind
        if session.connection is not None:
            return
        moment = now()
        for race_id in list(session.racing):
            room = self.rooms.get(race_id)
            if room is not None and room.race.phase is not Phase.DONE:
                self._retire(room, session.player, Ending.DROPPED, moment)
        self.sessions.pop(session.player, None)
        self.tokens.pop(session.token, None)
        self.identities[session.token] = session.player
        log.info("session ended", extra={"player": session.player})

    # ================================================================== hello

    def on_hello(self, client: Client, request: Hello) -> None:
        if request.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                f"this server speaks protocol {PROTOCOL_VERSION}",
                "unsupported_protocol",
                request.id,
            )
        if client.session is not None:
            raise ProtocolError(
                "this connection has already said hello", "already_hello", request.id
            )
        session = self.tokens.get(request.token) if request.token else None
        resumed = session is not None
        if session is None:
            # A token whose session has ended still names the same player (their boards).
            known = self.identities.pop(request.token, None) if request.token else None
            session = Session(
                request.name,
                self.settings.event_buffer,
                self.outbox,
                known,
                known and request.token,
            )
            session.write_limit = self.settings.max_write_buffer
            self.sessions[session.player] = session
            self.tokens[session.token] = session
        else:
            if session.grace is not None:
                session.grace.cancel()
                session.grace = None
            old = session.connection
            if old is not None and old is not client.connection:
                close_soon(old, CLOSE_REPLACED, "replaced by a newer connection")
        session.connection = client.connection
        session.encoding = client.encoding
        client.session = session
        moment = now()
        session.send(
            Welcome(
                request.id,
                session.player,
                session.name,
                session.token,
                resumed,
                PROTOCOL_VERSION,
                moment.wall_ms,
                self.settings.grace_ms,
                session.last_event,
            )
        )
        if resumed:
            missed = session.missed_since(request.last_event or 0)
            if missed is None or request.last_event is None:
                session.push("snapshot", self._session_snapshot(session))
            else:
                for event in missed:
                    session.send(event)
        log.info("hello", extra={"player": session.player, "resumed": resumed})

    def _session_snapshot(self, session: Session) -> dict[str, Any]:
        races = []
        for race_id in sorted(session.racing):
            room = self.rooms.get(race_id)
            if room is not None:
                races.append(room.race.racer_view(session.player))
        return {"races": races}

    # ================================================================== races

    def _room(self, race_id: str) -> Room:
        room = self.rooms.get(race_id)
        if room is None:
            raise RaceError(f"there is no race {race_id}", "race_not_found")
        return room

    def _open_room(self, settings: RaceSettings, host: Session, moment: Now) -> Room:
        rules = rules_for(settings.game, settings.options)
        race = Race(new_id(), settings, rules, host.player)
        race.join(host.player, host.name)
        room = Room(race, moment.mono_ms, self.feeding)
        self.rooms[race.id] = room
        host.racing.add(race.id)
        self._persist("race record", self.store.save_race, race.id, settings.as_dict())
        return room

    async def on_create_race(self, client: Client, request: CreateRace) -> dict[str, Any]:
        session = _session(client)
        rules = rules_for(request.game, request.options)
        if request.deal is not None:
            deal = check_deal_number(int(request.deal))
        else:
            deal = secrets.randbelow(MAX_DEAL) + 1
        settings = RaceSettings(
            game=rules.name,
            options=rules.options,
            deal=deal,
            max_players=request.max_players,
            public=request.public,
            countdown_ms=self.settings.countdown_ms
            if request.countdown_ms is None
            else request.countdown_ms,
            spectator_delay_ms=request.spectator_delay_ms,
            deal_chosen=request.deal is not None,
        )
        room = self._open_room(settings, session, now())
        if room.race.full:  # a race for one: start once the creator has the answer
            asyncio.get_running_loop().call_soon(self._start_full, room)
        return {"race": room.race.public_info()}

    async def on_list_races(self, client: Client, request: ListRaces) -> dict[str, Any]:
        races = [
            room.race.public_info()
            for room in self.rooms.values()
            if room.race.phase is Phase.OPEN
            and room.race.settings.public
            and room.race.settings.mode == "race"
            and not room.race.full
        ]
        return {"races": races}

    async def on_my_races(self, client: Client, request: MyRaces) -> dict[str, Any]:
        session = _session(client)
        races = []
        for race_id in sorted(session.racing):
            room = self.rooms.get(race_id)
            if room is not None and room.race.phase is not Phase.DONE:
                races.append(room.race.racer_view(session.player))
        return {"races": races}

    async def on_join_race(self, client: Client, request: JoinRace) -> dict[str, Any]:
        session = _session(client)
        room = self._room(request.race)
        room.race.join(session.player, session.name)
        session.racing.add(room.id)
        info = room.race.public_info()
        self._push_racers(room, "joined", {"race": info}, except_player=session.player)
        if room.race.full:
            asyncio.get_running_loop().call_soon(self._start_full, room)
        return {"race": info}

    async def on_leave_race(self, client: Client, request: LeaveRace) -> dict[str, Any]:
        session = _session(client)
        room = self._room(request.race)
        room.race.leave(session.player)
        session.racing.discard(room.id)
        self._after_leaving(room)
        return {"race": room.id}

    def _after_leaving(self, room: Room) -> None:
        """Someone left an open race: the others are told (the host may have passed to
        another racer), or, with nobody left, the race closes."""
        if room.race.racers:
            self._push_racers(room, "left", {"race": room.race.public_info()})
        else:
            self._forget(room, "closed")

    async def on_start_race(self, client: Client, request: StartRace) -> dict[str, Any]:
        session = _session(client)
        room = self._room(request.race)
        self._schedule_start(room, session.player, now())
        return {"race": room.race.public_info()}

    def _schedule_start(self, room: Room, by: str | None, moment: Now) -> None:
        start_mono = room.race.schedule_start(by, moment)
        delay_s = max(0, start_mono - moment.mono_ms) / 1000
        room.start_handle = asyncio.get_running_loop().call_later(delay_s, self._begin, room)
        announce = {
            "race": room.id,
            "start_at_ms": room.race.start_wall,
            "starts_in_ms": start_mono - moment.mono_ms,
        }
        self._push_racers(room, "countdown", announce)
        room.post("countdown", announce, moment.mono_ms)

    def _start_full(self, room: Room) -> None:
        """A full race starts by itself (the server sets the countdown)."""
        if room.race.phase is Phase.OPEN and room.race.full:
            self._schedule_start(room, None, now())

    def _begin(self, room: Room) -> None:
        """The start signal: every racer gets the same deal at the same moment."""
        race = room.race
        if race.phase is not Phase.COUNTDOWN:
            return  # everyone left or dropped during the countdown
        race.begin()
        moment = now()
        for player in race.racers:
            session = self.sessions.get(player)
            if session is not None:
                session.push("started", race.racer_view(player))
        first = next(iter(race.racers.values())).state
        assert first is not None
        room.post("started", {"view": view_json(race.rules.view(first))}, moment.mono_ms)

    def on_act(self, client: Client, session: Session, request: Act) -> None:
        """The hot path: validate, apply, answer; everything else is queued."""
        room = self.rooms.get(request.race)
        if room is None:
            raise RaceError(f"there is no race {request.race}", "race_not_found")
        moment = now()
        result = room.race.act(session.player, request.seq, request.action, moment, request.legal)
        if not result.ok:
            session.send(Error(request.id, "act", result.reply["code"], result.reply["message"]))
            return
        data = result.reply
        # Opponents' standings ride on the reply when they changed since this racer last
        # heard of them, at most every ``standings_every_ms``; the racer's own change needs
        # no telling.
        told_version, told_ms = session.standings_sent.get(room.id, (0, 0))
        behind = told_version != room.standings_version
        if not result.repeated:
            assert result.entry is not None
            self.persister.add_action(self.store, room.id, result.entry)
            room.standings_version += 1
            room.post_act(session.player, data, moment.mono_ms)
        session.last_act_ms[room.id] = moment.mono_ms
        if not behind:
            session.standings_sent[room.id] = (room.standings_version, told_ms)
        elif (
            moment.mono_ms - told_ms >= self.settings.standings_every_ms
            and len(room.race.racers) > 1
        ):
            session.standings_sent[room.id] = (room.standings_version, moment.mono_ms)
            data = {**data, "standings": room.race.standings()}
        session.send(Result(request.id, "act", data))
        if result.racer_done:
            self._racer_done(room, session.player, moment)

    def _racer_done(self, room: Room, player: str, moment: Now) -> None:
        if room.race.phase is Phase.DONE:
            self._finish(room, moment)
        else:
            self._push_standings(room, moment, except_player=player)

    def _retire(self, room: Room, player: str, ending: Ending, moment: Now) -> None:
        if not room.race.retire(player, ending, moment):
            return
        if room.race.phase is Phase.OPEN:  # left before the start
            session = self.sessions.get(player)
            if session is not None:
                session.racing.discard(room.id)
            self._after_leaving(room)
            return
        room.standings_version += 1
        room.post(
            "retired", {"player": player, "outcome": ending.value}, moment.mono_ms, racer=player
        )
        self._racer_done(room, player, moment)

    async def on_resign(self, client: Client, request: Resign) -> dict[str, Any]:
        session = _session(client)
        room = self._room(request.race)
        room.race.racer(session.player)
        self._retire(room, session.player, Ending.RESIGNED, now())
        return {"race": room.id, "outcome": Ending.RESIGNED.value}

    def _finish(self, room: Room, moment: Now) -> None:
        """Everyone is done: the ranking is final; store it and tell everyone."""
        race = room.race
        if room.done_mono is not None:
            return
        room.done_mono = moment.mono_ms
        if room.start_handle is not None:
            room.start_handle.cancel()
        result = race.result()
        self._persist(
            "race result",
            self.store.save_result,
            race.id,
            {**result, "settings": race.settings.as_dict()},
        )
        self._push_racers(room, "result", result)
        room.post("result", result, moment.mono_ms)
        settings = race.settings
        if settings.mode == "daily" and settings.ranked and settings.day is not None:
            run = race.runs()[0]
            self._persist("daily result", self.store.record_daily, settings.game, settings.day, run)
        log.info(
            "race finished",
            extra={
                "race": race.id,
                "kind": settings.mode,
                "ranking": [r["player"] for r in result["ranking"]],
            },
        )

    async def on_rematch(self, client: Client, request: Rematch) -> dict[str, Any]:
        session = _session(client)
        room = self._room(request.race)
        room.race.racer(session.player)
        if room.race.phase is not Phase.DONE or room.race.settings.mode != "race":
            raise RaceError("a rematch follows a finished race", "race_not_finished")
        existing = self.rooms.get(room.rematch or "")
        if existing is not None and existing.race.phase is Phase.OPEN:
            existing.race.join(session.player, session.name)
            session.racing.add(existing.id)
            self._push_racers(
                existing,
                "joined",
                {"race": existing.race.public_info()},
                except_player=session.player,
            )
            if existing.race.full:
                asyncio.get_running_loop().call_soon(self._start_full, existing)
            return {"race": existing.race.public_info()}
        old = room.race.settings
        settings = RaceSettings(
            game=old.game,
            options=old.options,
            deal=secrets.randbelow(MAX_DEAL) + 1,
            max_players=max(old.max_players, 1),
            public=old.public,
            countdown_ms=old.countdown_ms,
            spectator_delay_ms=old.spectator_delay_ms,
        )
        new_room = self._open_room(settings, session, now())
        if new_room.race.full:  # a race for one: start once the asker has the answer
            asyncio.get_running_loop().call_soon(self._start_full, new_room)
        room.rematch = new_room.id
        self._push_racers(
            room,
            "rematch",
            {"race": room.id, "rematch": new_room.id, "by": session.player},
            except_player=session.player,
        )
        return {"race": new_room.race.public_info()}

    async def on_snapshot(self, client: Client, request: Snapshot) -> dict[str, Any]:
        session = _session(client)
        room = self._room(request.race)
        if session.player in room.race.racers:
            return {"race": room.race.racer_view(session.player)}
        if room.id in session.watching:
            return {"race": room.spectator_snapshot()}
        return {"race": room.race.public_info()}

    # ================================================================== daily challenge

    async def on_daily_start(self, client: Client, request: DailyStart) -> dict[str, Any]:
        session = _session(client)
        moment = now()
        day = day_of(moment.wall_ms)
        for race_id in session.racing:
            other = self.rooms.get(race_id)
            if (
                other is not None
                and other.race.settings.mode == "daily"
                and other.race.settings.game == request.game
                and other.race.phase is not Phase.DONE
            ):
                raise RaceError(
                    "finish or resign your attempt in progress first", "attempt_in_progress"
                )
        ready = await self.daily.ready(request.game, day)
        if ready is None:
            title = rules_for(request.game).title
            raise RaceError(
                f"today's {title} deal is still being proven winnable: try again in a minute",
                "daily_not_ready",
            )
        deal, certified = ready
        attempt = new_id()
        ranked = await self.store.claim_daily(request.game, day, session.player, attempt)
        settings = RaceSettings(
            game=request.game,
            options=dict(rules_for(request.game).options),
            deal=deal,
            max_players=1,
            public=True,
            countdown_ms=0,
            mode="daily",
            day=day,
            ranked=ranked,
        )
        rules = rules_for(settings.game, settings.options)
        race = Race(attempt, settings, rules, session.player)
        race.join(session.player, session.name)
        room = Room(race, moment.mono_ms, self.feeding)
        self.rooms[attempt] = room
        session.racing.add(attempt)
        self._persist("race record", self.store.save_race, attempt, settings.as_dict())
        race.schedule_start(None, moment)
        self._begin(room)
        return {
            "race": race.racer_view(session.player),
            "day": day,
            "ranked": ranked,
            "certified": certified,
            "next_day_ms": next_day_start_ms(day),
        }

    async def on_daily_board(self, client: Client, request: DailyBoard) -> dict[str, Any]:
        session = _session(client)
        today = day_of(now().wall_ms)
        day = parse_day(request.day) if request.day else today
        board = await self.store.daily_board(
            request.game, day, request.top, session.player, request.around
        )
        deal = await self.store.daily_deal(request.game, day)
        if not daily_deal_shown(day, today):
            deal = None
        return {
            "game": request.game,
            "day": day,
            "today": today,
            "deal": deal and str(deal),
            "next_day_ms": next_day_start_ms(today),
            **board_json(board, daily_deal_shown(day, today)),
        }

    async def on_best_board(self, client: Client, request: BestBoard) -> dict[str, Any]:
        session = _session(client)
        board = await self.store.best_board(
            request.game, request.top, session.player, request.around
        )
        return {"game": request.game, **board_json(board, False)}

    # ================================================================== spectating

    async def on_list_live(self, client: Client, request: ListLive) -> dict[str, Any]:
        live = []
        for room in self.rooms.values():
            race = room.race
            if race.phase in (Phase.COUNTDOWN, Phase.RUNNING) and race.settings.public:
                live.append({**race.public_info(), "spectators": len(room.spectators)})
        return {"races": live}

    async def on_spectate(self, client: Client, request: Spectate) -> dict[str, Any]:
        session = _session(client)
        room = self._room(request.race)
        race = room.race
        if session.player in race.racers and race.phase is not Phase.DONE:
            raise RaceError("you cannot watch a race you are in", "spectate_refused")
        if race.settings.mode == "daily" and race.settings.day is not None:
            await self._check_daily_done(session, race.settings.game, race.settings.day)
        room.watch(session)
        session.watching.add(room.id)
        return {"race": room.spectator_snapshot()}

    async def _check_daily_done(self, session: Session, game: str, day: str) -> None:
        """Only a player who has finished their own ranked attempt at a daily deal may
        watch others play it: watching first would show the deal before their attempt."""
        attempt = await self.store.ranked_attempt(game, day, session.player)
        room = self.rooms.get(attempt or "")
        if attempt is None or (room is not None and room.race.phase is not Phase.DONE):
            raise RaceError(
                "finish your own attempt at this daily challenge before watching others",
                "spectate_refused",
            )

    async def on_unspectate(self, client: Client, request: Unspectate) -> dict[str, Any]:
        session = _session(client)
        self._stop_watching(session, request.race)
        return {"race": request.race}

    def _stop_watching(self, session: Session, race_id: str) -> None:
        session.watching.discard(race_id)
        room = self.rooms.get(race_id)
        if room is not None:
            room.unwatch(session)

    # ================================================================== timers

    async def _ticker(self) -> None:
        """Every tick (50 ms): freeze what the garbage collector has seen, flush the
        spectator feeds that have something to send, and look after a slice of all races
        (standings for idle racers, time limits, forgetting), so each race is visited
        once per standings interval and no tick is one long pause.

        Races keep every earlier position (for undo and replay): millions of long-lived
        objects that a full collection would scan for hundreds of milliseconds while every
        player waits. Freezing them each tick keeps full collections down to what the last
        50 ms made, and reference counting frees a race's objects when the race is
        forgotten. Cyclic garbage made since the last young collection would be frozen too
        and never freed: the server makes none on its paths (young collections under the
        saturation benchmark found 0 objects in 200 ticks), so collecting before each
        freeze, which cost 7% of the saturated server's time, is not done. The young
        generation is collected every ``GC_YOUNG_THRESHOLD`` allocations rather than
        Python's 700: a busy server allocates that many in a few actions."""
        settings = self.settings
        interval = settings.feed_interval_ms / 1000
        slices = max(1, settings.standings_interval_ms // settings.feed_interval_ms)
        tick = 0
        while True:
            await asyncio.sleep(interval)
            tick += 1
            moment = now()
            gc.freeze()
            for room in list(self.feeding):
                self._guarded(self._feed, room, moment)
            for room in list(self.rooms.values())[tick % slices :: slices]:
                self._guarded(self._look_after, room, moment)

    def _guarded(self, work: Callable[[Room, Now], None], room: Room, moment: Now) -> None:
        try:
            work(room, moment)
        except Exception:
            log.exception("ticker failed for a race", extra={"race": room.id})

    def _feed(self, room: Room, moment: Now) -> None:
        """Send a race's spectators what is due, and its spectator count when it changed.
        While an earlier fan-out is still being written, wait for the next tick."""
        settings = self.settings
        if room.sending:
            return
        if len(room.spectators) != room.spectator_count_shown:
            room.spectator_count_shown = len(room.spectators)
            room.post("spectators", {"count": len(room.spectators)}, moment.mono_ms)
        items = room.due_items(moment.mono_ms)
        for laggard in room.fan_out(
            items,
            settings.spectator_chunk,
            settings.spectator_pause_ms / 1000,
            settings.spectator_write_buffer,
            self.outbox,
        ):
            self._stop_watching(laggard, room.id)
            laggard.push("watch_ended", {"race": room.id, "reason": "too_slow"})
        if not room.pending and room.spectator_count_shown == len(room.spectators):
            self.feeding.discard(room)

    def _look_after(self, room: Room, moment: Now) -> None:
        """Standings for idle racers, the race's time limit, forgetting it when old."""
        settings = self.settings
        race = room.race
        if race.phase is Phase.RUNNING and len(race.racers) > 1:
            self._push_standings(
                room, moment, idle_since=moment.mono_ms - settings.standings_interval_ms
            )
        if (
            race.phase is Phase.RUNNING
            and race.start_mono is not None
            and moment.mono_ms - race.start_mono > settings.max_race_ms
        ):
            race.time_out(moment)
            self._finish(room, moment)
        if (
            room.done_mono is not None
            and not room.pending
            and moment.mono_ms - room.done_mono > settings.done_race_keep_ms
        ):
            self._forget(room)

    def _forget(self, room: Room, reason: str = "forgotten") -> None:
        """The server stops keeping ``room``; its spectators are told ``watch_ended``."""
        self.rooms.pop(room.id, None)
        self.feeding.discard(room)
        for player in room.race.racers:
            session = self.sessions.get(player)
            if session is not None:
                session.racing.discard(room.id)
                session.standings_sent.pop(room.id, None)
                session.last_act_ms.pop(room.id, None)
        for spectator in list(room.spectators):
            spectator.watching.discard(room.id)
            spectator.push("watch_ended", {"race": room.id, "reason": reason})

    # ================================================================== helpers

    def _push_racers(
        self, room: Room, kind: str, data: dict[str, Any], except_player: str | None = None
    ) -> None:
        for player in room.race.racers:
            session = self.sessions.get(player)
            if session is not None and player != except_player:
                session.push(kind, data)

    def _push_standings(
        self,
        room: Room,
        moment: Now,
        *,
        idle_since: int | None = None,
        except_player: str | None = None,
    ) -> None:
        """Send every racer (but ``except_player``) the standings. With ``idle_since``, only
        racers who are behind and have not acted since then: the others get them on
        their next ``act`` result."""
        players = room.race.standings()
        for player in room.race.racers:
            session = self.sessions.get(player)
            if session is None or player == except_player:
                continue
            if idle_since is not None and (
                session.standings_sent.get(room.id, (0, 0))[0] == room.standings_version
                or session.last_act_ms.get(room.id, 0) > idle_since
            ):
                continue
            session.standings_sent[room.id] = (room.standings_version, moment.mono_ms)
            session.push("standings", {"race": room.id, "players": players})

    def _persist(self, what: str, method: Callable[..., Awaitable[Any]], *args: Any) -> None:
        self.persister.add(what, lambda: method(*args))


def _session(client: Client) -> Session:
    assert client.session is not None
    return client.session


def _select_subprotocol(connection: ServerConnection, offered: Any) -> Any:
    """The first of our encodings the client offers; JSON when it offers none."""
    for name in offered:
        if name in SUBPROTOCOLS:
            return name
    return None


def new_id() -> str:
    return secrets.token_hex(8)


def message_type(frame: str | bytes, client: Client) -> str | None:
    """The ``type`` of a frame, if it can be read (for error replies)."""
    try:
        kind = decode(frame, client.encoding).get("type")
    except WireError:
        return None
    return kind[:32] if isinstance(kind, str) else None


def board_json(board: Board, show_deals: bool) -> dict[str, Any]:
    def entry(item: Entry | None) -> dict[str, Any] | None:
        if item is None:
            return None
        return {"rank": item.rank, **run_json(item.run, show_deals)}

    return {
        "total": board.total,
        "top": [entry(e) for e in board.top],
        "around": [entry(e) for e in board.around],
        "me": entry(board.me),
    }
