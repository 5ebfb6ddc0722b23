"""The daily challenge: the deal per game and day (chosen once, stored, served to everyone)
and the daily requests (``DailyDesk``).

The candidates come from ``protocol.daily.candidate_deals`` (with the deployment's secret).
With certification on, the day's deal is the candidate that ``protocol/daily_choice.py``
(the choice anyone can re-run) proves winnable by iterative widening (every candidate gets
8,000 positions, then 4 times more per round up to the node budget per candidate; the first
win in the order of rounds, the same on every node), within a time budget for the whole
search (in one worker process, so the server keeps serving and certification never takes
more than one core); otherwise, or when the time budget runs out, the first candidate,
served with ``certified: false``. The choice is stored with first-writer-wins, so every
server process sharing the store serves the same deal; a process that finds a deal already
stored checks it once with the same solver and budget before calling it certified. The
solution is never stored or sent (the fair-play review keeps the solver's line for a deal
in this process only: a ranked run starts once it is known)."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import itertools
import logging
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any, TypeVar

from protocol.daily import (
    CHAIN_FIRST_DAY,
    DAY_MS,
    candidate_deals,
    chain_anchor,
    chain_index,
    day_of,
    day_seed,
    next_day_start_ms,
    parse_day,
    previous_day,
)
from protocol.daily_choice import certified_choice, max_candidates, solve_deal, solver_line
from protocol.fairness import commitment, daily_scope
from protocol.games import GAMES, rules_for
from protocol.messages import BestBoard, DailyBoard, DailyStart
from protocol.notation import parse_action
from protocol.players import is_bot
from protocol.race import Now, Phase, RaceError, RaceSettings, daily_deal_shown
from protocol.race_views import racer_view, run_json
from protocol.solver import UNKNOWN, WON, Solution
from protocol.solver.certify import Certified, Uncertified
from server.config import Settings
from server.handover.effects import Effects
from server.races.fairplay import earlier_reveals, field_times, history_times, record_before
from server.races.race_desk import RaceDesk, new_id
from server.races.standing import RankedGate
from server.store import Board, Entry, Store

log = logging.getLogger("solrace.daily")

WORKER_NICE = 10  # the certification worker yields to the event loop when cores are short
PR_SET_PDEATHSIG = 1  # Linux prctl: a signal for this process when its parent dies
SHORT_SECRET = 16  # characters: an operator's secret shorter than this is warned about

# (game, deal number, node budget, deadline on time.monotonic) -> True when proven winnable
Certifier = Callable[[str, int, int, float], bool]
Answer = TypeVar("Answer")


def start_worker(server: int) -> None:
    """In the certification worker, first: run only on CPU nobody else wants (Linux's
    SCHED_IDLE; ``WORKER_NICE`` below the server where that is refused), as the password
    hashing thread does: the two share what the racers leave, so a sign-in never waits
    behind certification (it did when the worker was only niced); and end with the server
    (process ``server``), even when it is killed -9 (then nothing else would stop this
    process, which would keep a core and the solver's memory for good)."""
    os.nice(WORKER_NICE)
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        told = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL) == 0
    except (OSError, AttributeError):  # not Linux
        told = False
    if os.getppid() != server:  # the server died before it could be asked
        os._exit(1)
    if not told:
        threading.Thread(target=_end_with, args=(server,), daemon=True).start()


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(1.0)
    os._exit(1)


def prove_winnable(game: str, number: int, nodes: int, deadline: float) -> bool:
    """The solver's verdict on deal ``number`` of ``game`` (standard options) is "won",
    reached within ``nodes`` positions and before ``deadline`` (on time.monotonic)."""
    return solve_deal(game, number, nodes, lambda: time.monotonic() > deadline).verdict == WON


def certify_candidates(
    certifier: Certifier,
    game: str,
    candidates: list[int],
    nodes: int,
    budget_s: float,
    clock: Callable[[], float] = time.monotonic,
) -> Certified | Uncertified:
    """Run in the worker: ``protocol.daily_choice.certified_choice`` over ``candidates``
    (up to ``nodes`` positions each), within ``budget_s`` seconds of ``clock`` for them
    all (the server's: wall time; ``solrace study --dailies`` passes its CPU time, to stand
    for a core of its own). The solver is ``certifier``'s (the real one unless a test gives
    another)."""
    deadline = clock() + budget_s

    def out_of_time() -> bool:
        return clock() >= deadline

    def stand_in(number: int, budget: int, stop: Callable[[], bool] | None) -> Solution:
        proven = certifier(game, number, budget, time.monotonic() + deadline - clock())
        return Solution(WON if proven else UNKNOWN, (), budget)

    real = certifier is prove_winnable
    return certified_choice(game, candidates, nodes, out_of_time, None if real else stand_in)


def first_proven(
    certifier: Certifier, game: str, candidates: list[int], nodes: int, budget_s: float
) -> tuple[int, bool]:
    """Run in the worker: the deal ``certify_candidates`` proves winnable, and True; else
    the first candidate and False."""
    result = certify_candidates(certifier, game, candidates, nodes, budget_s)
    if isinstance(result, Certified):
        return result.number, True
    return candidates[0], False


def to_ask(task: asyncio.Future[Any] | None, what: str, game: str, of: object) -> bool:
    """``task`` is to be started: there is none, or it ended (a failure is logged, retried)."""
    if task is not None and task.done() and not task.cancelled() and task.exception():
        problem = task.exception()
        log.error(f"{what} failed; trying again", exc_info=problem, extra={"game": game, "of": of})
    return task is None or task.done()


class DailyDeals:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        certifier: Certifier | None = prove_winnable,
        executor: Executor | None = None,
    ) -> None:
        self.store = store
        self.secret = settings.daily_secret or None  # None: the store's, made on first use
        if self.secret is not None and len(self.secret) < SHORT_SECRET:
            log.warning(
                "the daily secret is short: a guessed secret reveals every day's deal",
                extra={"length": len(self.secret), "advised": f">= {SHORT_SECRET}"},
            )
        self.nodes = settings.daily_solver_nodes
        self.budget_s = settings.daily_certify_budget_s
        self.certifier = certifier if settings.daily_certify else None
        self.locks: dict[tuple[str, str], asyncio.Lock] = {}
        self.verdicts: dict[tuple[str, int], bool] = {}  # (game, deal) -> proven winnable
        self.executor = executor  # None: a worker process, made when first needed
        self.preparing: dict[tuple[str, str], asyncio.Task[tuple[int, bool]]] = {}
        self.line_nodes = settings.fair_play_solver_nodes
        self.lines: dict[tuple[str, int], tuple[str, ...] | None] = {}  # (game, deal) -> line
        self.asking: dict[tuple[str, int], asyncio.Future[Any]] = {}  # lines being found
        self.in_worker: set[Future[Any]] = set()  # what the worker has still to finish

    async def ready(self, game: str, day: str, ranked: bool = True) -> tuple[int, bool] | None:
        """The day's deal and whether it is proven winnable, once that is settled and, for a
        run that may be ``ranked``, the solver's line for it is known (fair play reviews
        every ranked run against it); None while the worker is still at work (it is set to
        work if it was not). A player is never kept waiting: they are told to come back."""
        settled = await self._settled(game, day)
        if settled is None or (ranked and not self.line_known(game, settled[0])):
            return None
        return settled

    async def _settled(self, game: str, day: str) -> tuple[int, bool] | None:
        if self.certifier is None:
            return await self.deal_for(game, day)
        stored = await self.store.days.daily_deal(game, day)
        if stored is not None and (game, stored) in self.verdicts:
            return stored, self.verdicts[(game, stored)]
        if to_ask(self.preparing.get((game, day)), "preparing a daily deal", game, day):
            self.preparing[(game, day)] = asyncio.create_task(self.deal_for(game, day))
        return None

    async def deal_for(self, game: str, day: str) -> tuple[int, bool]:
        """The day's deal of ``game`` and whether it is certified winnable."""
        async with self.locks.setdefault((game, day), asyncio.Lock()):
            stored = await self.store.days.daily_deal(game, day)
            if stored is None:
                chosen = await self._choose(game, day)
                nonce = secrets.token_hex(16)  # its commitment's secret half
                stored = await self.store.days.set_daily_deal(game, day, chosen, nonce)
            return stored, await self._proven(game, stored)

    async def certify(self, game: str, candidates: list[int]) -> tuple[int, bool]:
        """The first of ``candidates`` proven winnable within the time budget (True), or
        the first candidate (False), decided in the worker process. Remembered."""
        assert self.certifier is not None
        work = functools.partial(
            first_proven, self.certifier, game, candidates, self.nodes, self.budget_s
        )
        number, proven = await self._in_worker(work)
        self.verdicts[(game, number)] = proven
        return number, proven

    async def line(self, game: str, number: int) -> tuple[str, ...] | None:
        """The solver's winning line for deal ``number`` of ``game`` (None: none within
        ``fair_play_solver_nodes``, or that is 0), found in the worker once per process.
        It stays in this process: only fair-play signals compare runs with it."""
        if not self.line_nodes:
            return None
        if (game, number) not in self.lines:
            work = functools.partial(solver_line, game, number, self.line_nodes)
            self.lines[(game, number)] = await self._in_worker(work)
        return self.lines[(game, number)]

    def line_known(self, game: str, number: int) -> bool:
        """The solver's line for the deal is known (found, or none within the nodes), or
        none is looked for; asked in the background once per process if it is not."""
        if not self.line_nodes or (game, number) in self.lines:
            return True
        if to_ask(self.asking.get((game, number)), "finding the solver's line", game, number):
            self.asking[(game, number)] = asyncio.ensure_future(self.line(game, number))
        return False

    async def _in_worker(self, work: Callable[[], Answer]) -> Answer:
        """``work``'s answer, worked out in the worker process (kept in ``in_worker`` until
        the worker is done with it, even when whoever awaited it gave up)."""
        future = self.worker().submit(work)
        self.in_worker.add(future)
        future.add_done_callback(self.in_worker.discard)
        return await asyncio.wrap_future(future)

    def worker(self) -> Executor:
        """The worker process the solver runs in (made when first needed)."""
        if self.executor is None:
            self.executor = ProcessPoolExecutor(
                max_workers=1, initializer=start_worker, initargs=(os.getpid(),)
            )
        return self.executor

    async def _proven(self, game: str, number: int) -> bool:
        """The solver proved deal ``number`` winnable (asked once per process)."""
        if self.certifier is None:
            return False
        if (game, number) not in self.verdicts:
            await self.certify(game, [number])
        return self.verdicts[(game, number)]

    async def secret_in_use(self) -> str:
        """The operator's secret, or else the deployment's random one from the store."""
        if self.secret is None:
            self.secret = await self.store.daily_secret(secrets.token_urlsafe(32))
        return self.secret

    async def _choose(self, game: str, day: str) -> int:
        candidates = list(
            itertools.islice(
                candidate_deals(game, day, day_seed(await self.secret_in_use(), day)),
                max_candidates(game),
            )
        )
        if self.certifier is None:
            return candidates[0]
        number, proven = await self.certify(game, candidates)
        if proven:
            log.info("daily deal certified", extra={"game": game, "day": day})
        else:
            log.error(
                "no candidate proven winnable within the certification budget; the day's "
                "deal is served with certified: false",
                extra={"game": game, "day": day, "budget_s": self.budget_s},
            )
        return number

    async def prepare_ahead(self, now_wall_ms: int) -> None:
        """Choose today's, yesterday's (the guests' daily) and tomorrow's deals in the
        background, so nobody waits: today's first, the games the solver proves quickly
        first (Shady Lanes, whose certification starts higher, can take minutes on a fresh
        start); each of today's and tomorrow's with the solver's line, which ranked runs
        wait for, handed to the worker before the next certification (the yield below)."""
        quick_first = sorted(GAMES, key=lambda game: GAMES[game].profile.certify_first_nodes)
        for offset in (0, -DAY_MS, DAY_MS):  # today's, yesterday's (guests'), tomorrow's
            day = day_of(now_wall_ms + offset)
            for game in quick_first:
                try:
                    deal, _ = await self.deal_for(game, day)
                    if offset >= 0:
                        self.line_known(game, deal)  # asks for it
                        await asyncio.sleep(0)  # the memory store would never yield
                except Exception:
                    log.warning(
                        "could not prepare a daily deal",
                        exc_info=True,
                        extra={"game": game, "day": day},
                    )

    def close(self) -> None:
        """Stop at once: cancel what waits, and kill the worker process, whatever it is
        solving (it may be starved of CPU for minutes: the process must not wait for it at
        exit). Nothing half-chosen was stored."""
        for task in [*self.preparing.values(), *self.asking.values()]:
            task.cancel()
        if self.executor is None:
            return
        busy = any(not future.done() for future in self.in_worker)
        processes = list(getattr(self.executor, "_processes", None) or {})
        self.executor.shutdown(wait=False, cancel_futures=True)
        for pid in processes:  # private to concurrent.futures (3.14: kill_workers())
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if busy:
            detail = "its unfinished solving is dropped; a later start solves it again"
            log.warning("certification abandoned at shutdown", extra={"detail": detail})


class DailyDesk:
    """The daily challenge's requests: ``daily_start`` (an attempt is a race for one that
    starts at once), ``daily_board`` and ``best_board``."""

    def __init__(self, store: Store, deals: DailyDeals, race_desk: RaceDesk) -> None:
        self.store = store
        self.deals = deals
        self.race_desk = race_desk

    async def daily_start(
        self,
        player: str,
        name: str,
        account: bool,
        request: DailyStart,
        moment: Now,
        gate: RankedGate | None = None,
    ) -> tuple[dict[str, Any], Effects]:
        """An attempt at the daily challenge: an account's at today's deal, ranked when it
        is its first of the day; a guest's at yesterday's (revealed, its day over), never
        ranked: no card of today's deal reaches anyone before their own ranked attempt."""
        day = day_of(moment.wall_ms) if account else previous_day(day_of(moment.wall_ms))
        for room in self.race_desk.races.racing(player):
            settings = room.race.settings
            if (
                settings.mode == "daily"
                and settings.game == request.game
                and room.race.phase is not Phase.DONE
            ):
                raise RaceError(
                    "finish or resign your attempt in progress first", "attempt_in_progress"
                )
        ready = await self.deals.ready(request.game, day, ranked=account)  # guests: never
        if ready is None:
            title = rules_for(request.game).title
            raise RaceError(
                f"today's {title} deal is still being proven winnable: try again in a minute",
                "daily_not_ready",
            )
        deal, certified = ready
        nonce = await self.store.days.daily_nonce(request.game, day) or ""
        ghost = await self.ghost(player, request.game, day, deal) if request.ghost else None
        attempt = new_id()
        first = (
            account
            and ghost is None
            and await self.store.days.claim_daily(request.game, day, player, attempt)
        )
        # never a bot on the boards, nor an account not in good standing (``gate``)
        ranked = first and account and not is_bot(player) and (gate is None or gate.allowed)
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
            deal_chosen=day < day_of(moment.wall_ms),  # a guest's: its day over, deal public
            nonce=nonce,
        )
        history = await self.store.accounts.history(player) if ranked else None
        room, effects = await self.race_desk.open_room(
            settings, player, name, moment, attempt, account=account
        )
        if history is not None:  # its fair-play context (server/races/fairplay.py)
            room.histories = {player: history_times(history, request.game, attempt)}
            room.solver_line = self.deals.lines.get((request.game, deal))  # ``ready``: known
            room.related = gate.related if gate else ()
            room.field_ms = await field_times(self.store, request.game, day)
            room.earlier_reveals = {player: await earlier_reveals(self.store, history, attempt)}
            room.records = {player: record_before(history, request.game, attempt)}
        return {
            "race": racer_view(room.race, player),
            "day": day,
            "ranked": ranked,
            "claimable": False,  # guests play yesterday's: nothing to claim (older clients)
            "certified": certified,
            "commitment": room.race.commitment,
            "next_day_ms": next_day_start_ms(day),
            "ghost": ghost,
        }, effects

    async def ghost(self, player: str, game: str, day: str, deal: int) -> dict[str, Any]:
        """The day's best run as a ghost to practise against: its player's name, outcome
        and time, and its progress over time (``[t_ms, progress, actions]`` at each change
        of progress, and at its end); never its actions or cards. Only for a player whose
        own ranked run of the day is over (it would show how the deal goes)."""
        board = await self.store.days.daily_board(game, day, 1, player, 0)
        if board.me is None:
            raise RaceError(
                "race the day's best once your ranked attempt of the day is over",
                "ghost_refused",
            )
        best = board.top[0].run
        rules = rules_for(game)
        state = rules.start(deal)
        progress, actions = state.position.progress(), 0
        timeline = [[0, progress, 0]]
        for entry in await self.store.races.actions(best.race):
            if entry.player != best.player:
                continue
            outcome = rules.apply(state, parse_action(entry.action))
            state, actions = outcome.state, actions + outcome.counted
            if state.position.progress() != progress:
                progress = state.position.progress()
                timeline.append([entry.t_ms, progress, actions])
        return {
            "name": best.name,
            "player": best.player,
            "finished": best.finished,
            "time_ms": best.time_ms,
            "actions": best.actions,
            "progress": timeline,
        }

    async def daily_board(self, player: str, request: DailyBoard, moment: Now) -> dict[str, Any]:
        """The day's board, its deal's commitment once the deal is fixed, and, once the
        day is over, the deal and its nonce (anyone can then check the commitment)."""
        today = day_of(moment.wall_ms)
        day = parse_day(request.day) if request.day else today
        board = await self.store.days.daily_board(
            request.game, day, request.top, player, request.around
        )
        deal = await self.store.days.daily_deal(request.game, day)
        nonce = await self.store.days.daily_nonce(request.game, day) if deal is not None else None
        shown = daily_deal_shown(day, today) and deal is not None
        options = dict(rules_for(request.game).options)
        secret = await self.deals.secret_in_use()
        over = daily_deal_shown(day, today) and chain_index(day) is not None
        chain = {
            "anchor": chain_anchor(secret),
            "first_day": CHAIN_FIRST_DAY,
            "seed": day_seed(secret, day) if over else None,  # once the day is over
        }
        return {
            "game": request.game,
            "day": day,
            "today": today,
            "commitment": commitment(request.game, daily_scope(day), options, deal, nonce or "")
            if deal is not None
            else None,
            "deal": str(deal) if shown else None,
            "nonce": nonce if shown else None,
            "next_day_ms": next_day_start_ms(today),
            "chain": chain,
            **board_json(board, shown),
        }

    async def best_board(self, player: str, request: BestBoard) -> dict[str, Any]:
        board = await self.store.days.best_board(request.game, request.top, player, request.around)
        return {"game": request.game, **board_json(board, False)}


def board_json(board: Board, show_deals: bool) -> dict[str, Any]:
    """A board on the wire: its entries' deal numbers only when they may be shown."""

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
