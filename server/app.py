"""The race server (one node of a deployment): the composition root that wires the parts
together and runs them.

- ``gateway``: per connection, frames to typed requests and answers back, hello/resume;
- ``race_desk``: the races (``RaceDesk``), ``daily`` (``DailyDesk``) and ``spectating``
  desks: each request's reply plus typed effects;
- ``decider`` (``server/desks/deciding.py``): what a write, a timer or news leaves to decide,
  handed to it as an input, answered with effects;
- ``executor``: carries the effects out and hands inputs to the decider; ``writer``: the
  one ordered path to the store (an action is answered once its log entry is written);
- ``relay``: what nodes tell each other (race changes, new actions, sessions moving);
  ``sweeper``: the timers of lost nodes' players and races' time limits (``timers`` lease);
- ``ticker``: feeds, standings, garbage-collector policy; ``http``: /healthz, /metrics and
  the browser client.

A node is disposable: with a Redis store, identities, live races (records and action
logs), results and boards are there, and any node carries on from them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import secrets
import socket
from collections.abc import Awaitable, Collection
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve

from protocol.pairing import Window
from protocol.player_events import Shutdown
from protocol.race import Now
from protocol.wire import SUBPROTOCOLS
from server.carry.executor import Executor
from server.carry.relay import Relay
from server.carry.retrying import until_the_store_takes_it
from server.carry.store_watch import StoreWatch
from server.carry.sweeper import Sweeper
from server.carry.ticker import Ticker
from server.carry.writer import Writer
from server.config import Settings
from server.desks.account_desk import AccountDesk
from server.desks.admin import AdminDesk
from server.desks.arena_desk import ArenaDesk, calendar_of
from server.desks.arena_feed import ArenaFeed
from server.desks.arena_pairer import ArenaPairer
from server.desks.daily import DailyDeals, DailyDesk
from server.desks.deciding import Deciding
from server.desks.handlers import Handlers
from server.desks.pairing import PairingDesk
from server.desks.profiles import ProfileDesk
from server.desks.session_desk import SessionDesk
from server.desks.signing import Seal
from server.desks.spectating import SpectatingDesk
from server.duties import LEASE_TTL_MS, Duties
from server.edge.addresses import ConnectionCounts
from server.edge.answers import Answers
from server.edge.connection import MessageConnection
from server.edge.feeds import Feeds
from server.edge.gateway import Gateway
from server.edge.http import HttpRoutes
from server.edge.lines import Lines
from server.edge.outbox import Outbox
from server.handover.inputs import GraceOver, LookAfterDue
from server.handover.moment import now
from server.handover.ports import Owed
from server.metrics import Metrics, probe_loop_lag
from server.races.followed import FollowedRaces
from server.races.race_desk import RaceDesk
from server.state.rooms import Room
from server.state.sessions import Sessions
from server.store import MemoryStore, Store

log = logging.getLogger("solrace.server")
# websockets logs every frame at DEBUG, and frames carry passwords (sign_in, register):
# its connections log here, warnings only (as before), whatever the --log-level.
FRAMES_NEVER_LOGGED = logging.getLogger("solrace.websockets")
FRAMES_NEVER_LOGGED.setLevel(logging.WARNING)

STOP_STEP_S = 3.0  # a shutdown step (beyond its own timeouts) gets this long, then is left
CANCEL_AGAIN_S = 0.05  # a task still running this long after a cancel is cancelled again


class RaceServer:
    def __init__(self, settings: Settings, store: Store) -> None:
        if settings.done_race_keep_ms is None:  # memory: a while; Redis: once stored
            keep = 15 * 60_000 if isinstance(store, MemoryStore) else 0
            settings = dataclasses.replace(settings, done_race_keep_ms=keep)
        self.settings = settings
        self.store = store
        host = re.sub(r"[^a-z0-9-]", "", socket.gethostname().lower())[:24] or "node"
        self.node = f"{host}-{secrets.token_hex(3)}"  # this process: one node
        self.metrics = Metrics()
        self.outbox = Outbox(max(settings.max_write_buffer, settings.spectator_write_buffer))
        # who the players are (sessions) apart from their connections (lines: the edge's)
        self.sessions = Sessions(settings.grace_ms, self._expire)
        self.lines = Lines(self.sessions, self.outbox)
        self.feeds = Feeds(settings, self.lines)
        self.writer = Writer(
            store,
            settings.spill_path,
            node=self.node,
            observe=self.metrics.store_trip_seconds.observe,
        )
        # Built in the order they need each other: deciding first (the followed races, the
        # desks, the decider), then what carries out (the executor, handed the decider).
        # What a decision owes whatever becomes of its request is ``owed``: the executor
        # takes it; the relay hands news to the executor, plugged in as it is built.
        self.owed = Owed()
        self.races = FollowedRaces(
            settings, store, self.feeds.feeding, self.owed, here=self.sessions.here
        )
        self.race_desk = RaceDesk(settings, store, self.races)
        self.relay = Relay(
            self.node, store, self.lines, self.races.rooms, self.metrics.pubsub_lag.observe
        )
        # for /metrics: the store up, its replicas, failovers seen, the reviews waiting
        self.store_watch = StoreWatch(store, self.metrics.failovers.inc)
        self.spectating = SpectatingDesk(store, self.races)
        self.answers = Answers(self.writer, self.lines, self.metrics)
        store.node = self.node
        store.hear_own_logs = False  # its racers' actions: it applied them already
        self.daily = DailyDeals(store, settings)
        self.daily_desk = DailyDesk(store, self.daily, self.race_desk)
        self.seal = Seal(store, settings.signing_key_path)
        self.connection_counts = ConnectionCounts(settings.connections_per_address)
        self.session_desk = SessionDesk(
            settings,
            store,
            self.sessions,
            self.races,
            self.spectating,
            self.owed,
            self.metrics,
            self.seal,
            self.node,
        )
        self.account_desk = AccountDesk(store, settings, self.race_desk)
        self.pairing = PairingDesk(
            store,
            self.race_desk,
            settings.countdown_ms,
            Window(unlimited_after_ms=settings.any_rating_after_ms),
        )
        feed = ArenaFeed(store, calendar_of(settings), self.sessions.here)
        self.arena_desk = ArenaDesk(store, settings, feed)
        self.arenas = ArenaPairer(
            store, self.race_desk, self.arena_desk, self.node, settings.arena_repeat_after_ms
        )
        self.decider = Deciding(
            settings,
            store,
            self.node,
            self.sessions,
            self.races,
            self.race_desk,
            self.spectating,
            self.pairing,
            self.session_desk,
            self.arenas,
        )
        self.executor = Executor(
            self.decider, self.lines, self.writer, self.relay, self.answers, self.owed, store
        )
        self.handlers = Handlers(
            settings,
            store,
            self.sessions,
            self.race_desk,
            self.daily_desk,
            self.spectating,
            self.session_desk,
            self.account_desk,
            self.pairing,
            ProfileDesk(store),
            AdminDesk(store, settings),
            self.seal,
            self.arena_desk,
        )
        self.gateway = Gateway(
            settings,
            self.sessions,
            self.spectating,
            self.executor,
            self.answers,
            self.metrics,
            self.session_desk,
            self.handlers,
            self.race_desk,
            self.lines,
        )
        self.ticker = Ticker(
            settings.feed_interval_ms,
            settings.standings_interval_ms // settings.feed_interval_ms,
            self.feeds.flush,
            lambda: self.race_desk.rooms,
            self._look_after,
            now,
            lambda moment, part, parts: self.sessions.let_go_of_events(
                moment.mono_ms / 1000, part, parts
            ),
            observe=self.metrics.tick_seconds.observe,
        )
        self.sweeper = Sweeper(
            self.node, store, settings.grace_ms, settings.max_race_ms, self.executor
        )
        self.duties = Duties(self.node, store, settings, self.daily, self.sweeper, self.executor)
        self.clock = self.duties.clock
        self.http = HttpRoutes(
            self, self.connection_counts, settings.static_dir, settings.trusted_proxies
        )
        self.server: Server | None = None
        self.tasks: list[asyncio.Task[Any]] = []
        self.expiring: set[asyncio.Task[None]] = set()
        self.stopping = False
        self.metrics.watch(
            lambda: _readings(self),
            (
                "writes",
                "writes_refused",
                "store_round_trips",
                "actions_lost",
                "history_losses",
                "feed_fan_outs",
                "feed_frames_written",
                "feed_fan_out_seconds_total",
                "feed_fan_out_cpu_seconds_total",
            ),
        )

    # ================================================================== what HTTP may ask

    async def health(self) -> dict[str, Any]:
        try:
            store_ok = await asyncio.wait_for(self.store.ping(), 2.0)
        except Exception:
            store_ok = False
        writes_ok = self.writer.healthy
        history_lost = self.races.history_lost_live()
        well = (
            store_ok and writes_ok and not history_lost and not self.stopping and not self.clock.off
        )
        return {
            "status": "ok" if well else "degraded",
            "store": "ok" if store_ok else "unavailable",
            "writes": "ok" if writes_ok else "failing or backing up",
            "history": f"lost in {history_lost} live race(s)" if history_lost else "ok",
            "clock": self.clock.state(),
            "stopping": self.stopping,
            "players": self.lines.connected(),
            "races": len(self.race_desk.rooms),
            "write_backlog": self.writer.backlog,
            "node": self.node,
        }

    def clock_trouble(self) -> str | None:
        return self.clock.trouble()

    def signing_keys(self) -> dict[str, Any]:
        return self.seal.keys()

    async def daily_secret(self) -> str:
        return await self.daily.secret_in_use()

    def metrics_text(self) -> bytes:
        return self.metrics.text()

    # ================================================================== lifecycle

    async def start(self) -> None:
        settings = self.settings
        self.ticker.start_gc_policy()
        self.writer.replay_spill()
        await self.seal.start()
        await self.relay.start()
        await self.store.bus.node_alive(self.node, LEASE_TTL_MS)
        await self.clock.measure(self.store.bus)  # before any lease or connection
        await self.store_watch.read()  # /metrics says what the store is from the first scrape
        self.tasks = [
            asyncio.create_task(self.writer.run(), name="writer"),
            asyncio.create_task(self.ticker.run(), name="ticker"),
            asyncio.create_task(self.duties.hold_leases(), name="leases"),
            *(asyncio.create_task(work, name=name) for name, work in self.duties.repeated()),
            asyncio.create_task(self.store_watch.run(), name="store-watch"),
            asyncio.create_task(probe_loop_lag(self.metrics.loop_lag.observe), name="loop-lag"),
        ]
        self.server = await serve(
            self.gateway.handle,
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
            logger=FRAMES_NEVER_LOGGED,
        )
        log.info("serving", extra={"host": settings.host, "port": self.port, "node": self.node})

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def stop(self, reason: str = "the server is shutting down") -> None:
        """Graceful shutdown (a deploy): stop accepting, tell every player to reconnect
        (a new process carries on), finish the writes or spill them to a file, close."""
        if self.server is None or self.stopping:
            return
        # no new players from now (refused 503), but the port stays open while writes
        # drain, so /readyz can say 503 and a load balancer sends them elsewhere
        self.stopping = self.gateway.stopping = True
        for player in list(self.sessions.by_player):
            self.lines.push(player, Shutdown(reason, 1000))
        drained = await self.writer.drain(self.settings.shutdown_grace_s)
        spilled = 0 if drained else self.writer.spill()
        log.info(
            "writes finished" if drained else "writes left undone at shutdown",
            extra={"backlog": self.writer.backlog, "spilled": spilled},
        )
        self.server.close(code=1001, reason="server shutting down")
        closing = self.settings.close_timeout_s + STOP_STEP_S
        await _within("closing connections", self.server.wait_closed(), closing)
        log.info("connections closed")
        for name in list(self.duties.leases):  # the next process takes the work over at once
            with contextlib.suppress(Exception):
                await _within("releasing a lease", self.store.bus.release_lease(name, self.node), 1)
        self.sessions.stop()
        for task in self.expiring:
            task.cancel()
        self.executor.stop()
        self.relay.stop()
        await _within("stopping tasks", _ended([*self.tasks, *self.duties.running()]))
        self.daily.close()
        self.account_desk.close()
        await _within("closing the store", self.store.close())
        self.ticker.stop_gc_policy()
        log.info("stopped")

    def _look_after(self, room: Room, moment: Now) -> None:
        self.executor.hand(LookAfterDue(room, moment))

    def _expire(self, player: str) -> None:
        """A player did not come back within the grace period: handed on (``GraceOver``),
        however long the store is in trouble; unless they went to another node meanwhile,
        their races go on without them."""

        async def expire() -> None:
            await self.executor.hand_reading(GraceOver(player, now()))

        dropping = until_the_store_takes_it(expire, "dropping a player", player=player)
        task = asyncio.create_task(dropping)
        self.expiring.add(task)
        task.add_done_callback(self.expiring.discard)


def _readings(server: RaceServer) -> dict[str, float]:
    """The figures ``/metrics`` reads from the server's parts when it is scraped."""
    writer = server.writer
    return {
        "players_connected": server.lines.connected(),
        "sessions": len(server.sessions.by_player),
        "live_races": sum(1 for _ in server.races.live()),
        "races_in_memory": len(server.race_desk.rooms),
        "spectators": sum(len(room.spectators) for room in server.race_desk.rooms.values()),
        "feed_fan_outs": server.feeds.fan_outs.count,
        "feed_frames_written": server.feeds.fan_outs.frames,
        "feed_fan_out_seconds_total": server.feeds.fan_outs.seconds,
        "feed_fan_out_seconds_max": server.feeds.fan_outs.seconds_max,
        "feed_fan_out_cpu_seconds_total": server.feeds.fan_outs.cpu_seconds,
        "write_backlog": writer.backlog,
        "write_failures": writer.failures,
        "writes": writer.written,
        "writes_refused": writer.refused_count,
        "actions_lost": server.races.actions_lost,
        "history_losses": server.races.history_losses,
        "store_round_trips": sum(server.metrics.store_trip_seconds.counts),
        "store_write_seconds_total": server.metrics.store_trip_seconds.total,
        "daily_deals_certified": sum(1 for v in server.daily.verdicts.values() if v),
        "daily_deals_uncertified": sum(1 for v in server.daily.verdicts.values() if not v),
        "clock_offset_seconds": (server.clock.offset_ms or 0.0) / 1000,
        "clock_off": float(server.clock.off),
        **server.store_watch.readings(),
    }


def _select_subprotocol(connection: ServerConnection, offered: Any) -> Any:
    """The first of our encodings the client offers; JSON when it offers none."""
    for name in offered:
        if name in SUBPROTOCOLS:
            return name
    return None


async def _within(step: str, work: Awaitable[Any], timeout_s: float | None = None) -> None:
    """Wait for a shutdown step at most ``timeout_s`` (``STOP_STEP_S``); past that, log it
    with what is still running and go on without it (a deploy must end; a stuck step is a
    bug to find, and the log says where)."""
    timeout_s = STOP_STEP_S if timeout_s is None else timeout_s
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=timeout_s)
    if done:
        task.result()
        return
    task.add_done_callback(lambda left: left.cancelled() or left.exception())
    task.cancel()
    log.warning(
        "a shutdown step did not finish in time; going on without it",
        extra={"step": step, "after_s": timeout_s, "tasks": _running()[:20]},
    )


async def _ended(tasks: Collection[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` until every one has ended (the caller bounds the wait), again every
    ``CANCEL_AGAIN_S`` for those still running: on Python 3.11 ``asyncio.wait_for`` returns
    its result when the step it awaits completes just as the caller is cancelled, and so
    drops the cancel (CPython issue 86296; 3.12 rewrote it). The store keeps redis-py off
    it (no socket timeout); a library that awaits through it is stopped all the same."""
    tasks = list(tasks)  # the caller's list may grow meanwhile
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=CANCEL_AGAIN_S)
    for task in tasks:  # what one that failed raised is taken here, as a gather would
        if task.done() and not task.cancelled():
            task.exception()


async def tasks_left(timeout_s: float = STOP_STEP_S) -> list[str]:
    """At exit, after ``stop``: cancel every other task (see ``_ended``) and wait for them at
    most ``timeout_s``; the ones still running then (their names and where they wait)."""
    others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    ending = asyncio.ensure_future(_ended(others))
    await asyncio.wait({ending}, timeout=timeout_s)
    ending.cancel()
    await asyncio.wait({ending})
    return _running()


def _running() -> list[str]:
    """The tasks still running but this one: name, and the line each waits at."""
    return [
        f"{other.get_name()} at {frame.f_code.co_qualname}:{frame.f_lineno}"
        for other in asyncio.all_tasks()
        if other is not asyncio.current_task() and not other.done()
        for frame in other.get_stack(limit=1)
    ]
