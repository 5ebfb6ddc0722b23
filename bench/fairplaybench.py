"""``solrace bench fairplay``: how many of a simulated population's ranked daily runs the
fair-play rule flags (docs/fairness.md, "Fair-play signals"), per kind of player.

A real ``solrace serve`` on a redis-server of the command's own, holding flagged runs, with
its solver's line for each day's deal (``--fair-play-solver-nodes`` 200,000). The command
chooses today's deal of each game (one the solver wins, so the server has a line to
compare with) and writes it in the store, as the cheaters' knowledge of the deal. The
population (``bench/fairplaypeople.py``) is worked out first, in worker processes; then
every player connects from an address of its own, registers, starts its ranked daily
attempt and plays its actions, really waiting its think time before each (the server
times the run on its own clock), all players at once, and resigns unless it won. Each
run's review is then read as a moderator reads it (``admin review``): flagged or not, why,
with what evidence. The review's cost is the rule's work on the run's log (signals,
reasons and evidence against the solver's line), timed on one core (process CPU time).
A request the server leaves unanswered for ``ANSWER_S``, or still refuses as busy after
``REFUSED_S``, counts against the server: the bench names the player and the request and
goes on without that run (it does not wait forever).
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from bench.benchprocess import free_port, own_redis, serve_command, spawn
from bench.fairplaypeople import (
    BOT,
    CHEATER,
    CHEATER_MEDIANS_MS,
    DETOURS,
    HONEST,
    KNOWER,
    LUCKY,
    Plan,
)
from bench.fairplaypeople import bot as bot_plan
from bench.fairplaypeople import cheater as cheater_plan
from bench.fairplaypeople import honest as honest_plan
from bench.fairplaypeople import knower as knower_plan
from bench.fairplaypeople import lucky as lucky_plan
from client.api import Client, ServerError
from protocol.daily import day_of
from protocol.daily_choice import solver_line
from protocol.errors import SolraceError
from protocol.fairplay import evidence, reasons, signals_of
from protocol.fairplay_order import line_order
from protocol.fairplay_reveals import reveals_of
from protocol.games import rules_for
from server.store import open_store

Answer = TypeVar("Answer")

GAMES = ("mount_sunflower_easy", "mount_sunflower")
LINE_NODES = 200_000  # the server's own default budget for its line
TOKEN = "the-fair-play-bench-s-moderator-token-of-forty-characters"
KINDS = (HONEST, CHEATER, BOT, KNOWER, LUCKY)
TARGETS = {CHEATER: 0.9, BOT: 0.9, KNOWER: 0.9}  # shares flagged at least
HONEST_MOST = 0.01  # share of honest runs flagged at most
REVIEW_P95_S = 1.0  # a ranked run's review, one core, at p95
BOTS_PER_GAME = 8
LUCKY_PER_GAME = 8
QUICK_SCALE = 0.02  # --quick: think times are this share of a person's (figures mean nothing)
ANSWER_S = 120.0  # a request the server has not answered in this long is not served
REFUSED_S = 900.0  # nor one it still refuses as busy after this long


class NotServed(SolraceError):
    """The server did not answer a request within ``ANSWER_S``, or refused it as busy for
    ``REFUSED_S`` (the request, or why: the message)."""


async def answered(what: str, call: Awaitable[Answer]) -> Answer:
    """``call``'s answer, or ``NotServed(what)`` once ``ANSWER_S`` have passed."""
    try:
        async with asyncio.timeout(ANSWER_S):
            return await call
    except TimeoutError:
        raise NotServed(f"{what} not answered in {ANSWER_S:g} s") from None


def solvable_deal(game: str, rng: random.Random) -> tuple[int, tuple[str, ...]]:
    """A deal of ``game`` the solver wins within the server's budget, and its line."""
    while True:
        number = rng.randrange(1, 1_000_000)
        line = solver_line(game, number, LINE_NODES)
        if line is not None:
            return number, line


def plan_of(
    kind: str, game: str, number: int, line: tuple[str, ...], seed: int, how: dict[str, int]
) -> Plan:
    """One player's plan (run in a worker process); ``how``: a cheater's median think
    time, detours and whether it trades its moves that commute (a knower's: its median)."""
    rules, rng = rules_for(game), random.Random(seed)
    start = rules.deal(number)
    if kind == HONEST:
        return honest_plan(rules, start, rng)
    if kind == BOT:
        return bot_plan(rules, start, rng)
    if kind == LUCKY:
        return lucky_plan(rules, start, rng)
    if kind == KNOWER:
        return knower_plan(rules, start, list(line), rng, how["median"])
    trades = bool(how.get("trades"))
    return cheater_plan(rules, start, list(line), rng, how["median"], how["detours"], trades)


def population(
    deals: dict[str, tuple[int, tuple[str, ...]]], honest: int, quick: bool, seed: int
) -> list[tuple[str, Plan]]:
    """(game, plan) for everyone: ``honest`` honest players over the games, each cheater
    speed with each number of detours, a knower at each speed, ``BOTS_PER_GAME`` bots and
    ``LUCKY_PER_GAME`` lucky players, per game (``quick``: fewer of each)."""
    jobs: list[tuple[str, str, dict[str, int]]] = []
    for index, game in enumerate(deals):
        share = honest // len(deals) + (index < honest % len(deals))
        jobs += [(game, HONEST, {})] * share
        speeds = CHEATER_MEDIANS_MS[::3] if quick else CHEATER_MEDIANS_MS
        detours = DETOURS[:2] if quick else DETOURS
        jobs += [  # every other one also trades its moves that commute
            (game, CHEATER, {"median": m, "detours": d, "trades": (i + j) % 2})
            for i, m in enumerate(speeds)
            for j, d in enumerate(detours)
        ]
        jobs += [(game, BOT, {})] * (1 if quick else BOTS_PER_GAME)
        jobs += [(game, KNOWER, {"median": m}) for m in speeds]
        jobs += [(game, LUCKY, {})] * (1 if quick else LUCKY_PER_GAME)
    with ProcessPoolExecutor(max_workers=2) as workers:
        futures = [
            workers.submit(plan_of, kind, game, *deals[game], seed * 100_003 + i, how)
            for i, (game, kind, how) in enumerate(jobs)
        ]
        return [(game, future.result()) for (game, _, _), future in zip(jobs, futures, strict=True)]


@contextmanager
def fairplay_server(redis_url: str, prefix: str) -> Iterator[str]:
    """A ``solrace serve`` on the store at ``redis_url``: its websocket URL."""
    port = free_port()
    options = ["--redis", redis_url, "--redis-prefix", prefix, "--rank-new-accounts"]
    # its players' accounts are made for the run: good standing is a rule of its own
    options += ["--ranked-account-days", "0", "--ranked-account-games", "0"]
    options += ["--fair-play-solver-nodes", str(LINE_NODES), "--admin-token", TOKEN]
    options += ["--trusted-proxy", "127.0.0.1", "--rate", "100000", "--burst", "100000"]
    with open(os.devnull, "w") as quiet:  # the server's warnings: each held run
        process = spawn(serve_command(port, *options), "serving on", quiet)
        try:
            yield f"ws://127.0.0.1:{port}/ws"
        finally:
            process.terminate()
            process.wait(30)


async def set_deals(redis_url: str, prefix: str, deals: dict[str, tuple[int, Any]]) -> None:
    store = open_store(redis_url, prefix=prefix)
    today = day_of(int(time.time() * 1000))
    for game, (number, _) in deals.items():
        await store.days.set_daily_deal(game, today, number)
    await store.close()


async def when_served(call: Callable[[], Awaitable[Answer]], busy: str) -> Answer:
    """``call()``'s answer, asked again while the server answers ``busy`` (all arrive at
    once: signing in is rate-limited, and a ranked run waits for the server's solver
    line, ``daily_not_ready``), waiting longer each time as a polite client does (0.5 s
    doubling to 30 s, drawn at random up to that); ``NotServed`` after ``REFUSED_S``."""
    began, pause = time.monotonic(), 0.5
    while True:
        try:
            return await call()
        except ServerError as error:
            if error.code != busy:
                raise
            if time.monotonic() - began > REFUSED_S:
                raise NotServed(f"still {busy} after {REFUSED_S:g} s") from None
            await asyncio.sleep(random.uniform(pause / 2, pause))
            pause = min(2 * pause, 30.0)


async def play_one(url: str, index: int, game: str, plan: Plan, scale: float) -> dict[str, Any]:
    """Play ``plan`` as a new account from an address of its own: its race and how it went."""
    name = f"fp{index:05d}"
    address = f"10.{index >> 16 & 255}.{index >> 8 & 255}.{index & 255}"
    client = await answered(
        "connect", Client.connect(url, name, headers={"X-Forwarded-For": address})
    )
    try:
        await when_served(
            lambda: answered("register", client.register(name, f"{name}'s password")),
            "auth_rate_limited",
        )
        started = await when_served(
            lambda: answered("daily_start", client.daily_start(game)), "daily_not_ready"
        )
        race: str = started["race"]["race"]
        start_at_ms = started["race"].get("start_at_ms") or 0
        await asyncio.sleep(max(0.0, start_at_ms / 1000 - time.time()))
        for seq, (action, think_ms) in enumerate(plan.steps, 1):
            await asyncio.sleep(think_ms * scale / 1000)
            await answered(f"act {seq} of {len(plan.steps)}", client.act(race, action))
        if not plan.won:
            await answered("resign", client.resign(race))
        log = await answered("race_log", client.race_log(race))
    finally:
        await client.close()
    return {"race": race, "ranked": bool(started["ranked"]), "log": log}


async def review_of_run(url: str, race: str) -> dict[str, Any]:
    """The run's review as a moderator reads it (waiting for it to be written)."""
    moderator = await answered("connect", Client.connect(url, "moderator"))
    try:
        for _ in range(200):
            answer = await answered(
                "admin review",
                moderator.request("admin", token=TOKEN, command="review", race=race),
            )
            if answer.get("review"):
                return dict(answer["review"])
            await asyncio.sleep(0.1)
    finally:
        await moderator.close()
    raise RuntimeError(f"no review of {race}")


def review_cost_s(
    log: dict[str, Any], seen: dict[str, Any], game: str, deal: tuple[int, tuple[str, ...]]
) -> float:
    """The rule's work on one run's log (signals, reveals, reasons, evidence) of ``deal``
    (its number and line) of ``game``, in CPU seconds."""
    entries = [(action, t_ms) for _, action, t_ms in log["racers"][0]["actions"]]
    rules, (number, line) = rules_for(game), deal
    began = time.process_time()
    shown = reveals_of(rules, rules.deal(number), [action for action, _ in entries])
    order = line_order(rules, rules.start(number), line)
    signals = signals_of(
        entries, seen["finished"], seen["time_ms"], line, [], reveals=shown, order=order
    )
    evidence(signals)
    reasons(signals)
    return time.process_time() - began


async def run_population(
    url: str, people: list[tuple[str, Plan]], deals: dict[str, Any], scale: float
) -> list[dict[str, Any]]:
    async def one(index: int, game: str, plan: Plan) -> dict[str, Any]:
        try:
            played = await play_one(url, index, game, plan, scale)
            review = await review_of_run(url, played["race"])
        except NotServed as why:
            return {"kind": plan.kind, "not_served": f"player {index}: {why}"}
        (seen,) = review["players"].values()
        return {
            "kind": plan.kind,
            "label": plan.label,
            "game": game,
            "ranked": played["ranked"],
            "won": plan.won,
            "actions": len(plan.steps),
            "reasons": seen["reasons"],
            "evidence": seen.get("evidence", {}),
            "line_known": seen["signals"]["line_length"] is not None,
            "lucky_z": seen["signals"].get("lucky_z"),
            "kept": seen["signals"]["line_kept"] / len(deals[game][1]),
            "review_cpu_s": review_cost_s(played["log"], seen["signals"], game, deals[game]),
        }

    return await asyncio.gather(*(one(i, g, p) for i, (g, p) in enumerate(people)))


def summary(played: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind (and per label within it): runs, share flagged, reasons; the targets; the
    requests not served (their runs are left out)."""
    runs = [run for run in played if "not_served" not in run]
    not_served = [run["not_served"] for run in played if "not_served" in run]
    kinds: dict[str, Any] = {}
    for kind in KINDS:
        mine = [run for run in runs if run["kind"] == kind]
        labels = sorted({run["label"] for run in mine}) if kind not in (HONEST, LUCKY) else []
        kinds[kind] = {
            **shares(mine),
            "by_label": {
                label: shares([r for r in mine if r["label"] == label]) for label in labels
            },
        }
    costs = sorted(run["review_cpu_s"] for run in runs)
    p95 = costs[min(len(costs) - 1, int(0.95 * len(costs)))] if costs else 0.0
    met = {
        "cheaters_flagged": kinds[CHEATER]["flagged_share"] >= TARGETS[CHEATER],
        "bots_flagged": kinds[BOT]["flagged_share"] >= TARGETS[BOT],
        "knowers_flagged": kinds[KNOWER]["flagged_share"] >= TARGETS[KNOWER],
        "honest_flagged": kinds[HONEST]["flagged_share"] <= HONEST_MOST,
        "review_p95": p95 < REVIEW_P95_S,
        "all_served": not not_served,
    }
    return {
        "kinds": kinds,
        "review_cpu_p95_ms": round(p95 * 1000, 2),
        "review_cpu_max_ms": round(max(costs, default=0.0) * 1000, 2),
        "all_ranked": all(run["ranked"] for run in runs),
        "line_known_share": round(statistics.fmean(r["line_known"] for r in runs), 3)
        if runs
        else 0,
        "not_served": not_served,
        "targets_met": met,
    }


def shares(runs: list[dict[str, Any]]) -> dict[str, Any]:
    flagged = [run for run in runs if run["reasons"]]
    why: dict[str, int] = {}
    for run in flagged:
        for reason in run["reasons"]:
            why[reason] = why.get(reason, 0) + 1
    return {
        "runs": len(runs),
        "won": sum(run["won"] for run in runs),
        "flagged": len(flagged),
        "flagged_share": round(len(flagged) / len(runs), 4) if runs else 0.0,
        "reasons": dict(sorted(why.items())),
        "line_kept_max": round(max((run["kept"] for run in runs), default=0.0), 3),
        "lucky_z_max": max(
            (run["lucky_z"] for run in runs if run["lucky_z"] is not None), default=None
        ),
    }


async def measure(honest: int, quick: bool, seed: int) -> dict[str, Any]:
    """The whole bench: deals, population, a real server, every run and its review."""
    rng = random.Random(seed)
    games = GAMES[:1] if quick else GAMES
    deals = {game: solvable_deal(game, rng) for game in games}
    began = time.monotonic()
    people = await asyncio.to_thread(population, deals, honest, quick, seed)
    planned_s = time.monotonic() - began
    scale = QUICK_SCALE if quick else 1.0
    with own_redis(persist=False) as redis:
        prefix = f"fairplay-{uuid.uuid4().hex}:"
        await set_deals(redis.url, prefix, deals)
        with fairplay_server(redis.url, prefix) as url:
            began = time.monotonic()
            runs = await run_population(url, people, deals, scale)
            played_s = time.monotonic() - began
    return {
        "deals": {
            game: {"deal": number, "line": len(line)} for game, (number, line) in deals.items()
        },
        "quick": quick,
        "pace_scale": scale,
        "planned_s": round(planned_s, 1),
        "played_s": round(played_s, 1),
        **summary(runs),
    }


def print_fairplay(result: dict[str, Any]) -> None:
    """The report: per kind, the share of runs flagged (and per label), then the targets."""
    deals = ", ".join(
        f"{g} deal {d['deal']} (line {d['line']})" for g, d in result["deals"].items()
    )
    print(
        f"fairplay: {deals}; planned in {result['planned_s']} s, played in {result['played_s']} s"
    )
    if result["quick"]:
        print(f"QUICK: think times x{result['pace_scale']}: the shares below mean nothing")
    print(
        f"{'kind':34} {'runs':>5} {'won':>5} {'flagged':>8} {'share':>7}  reasons "
        "(the most of the server's line a run kept, the highest lucky_z)"
    )
    for kind, row in result["kinds"].items():
        print(kind_row(kind, row))
        for label, sub in row["by_label"].items():
            print(kind_row(f"  {label}", sub))
    honest = result["kinds"][HONEST]
    print(f"honest runs flagged: {honest['flagged_share']:.2%} (target at most {HONEST_MOST:.0%})")
    print(
        f"review, one core: p95 {result['review_cpu_p95_ms']} ms, most "
        f"{result['review_cpu_max_ms']} ms (target p95 under {REVIEW_P95_S * 1000:.0f} ms)"
    )
    print(f"solver's line known to the server in {result['line_known_share']:.0%} of reviews")
    if result["not_served"]:
        print(
            f"NOT SERVED ({len(result['not_served'])}, their runs left out): "
            + "; ".join(result["not_served"])
        )
    met = result["targets_met"]
    print(
        "targets: " + ", ".join(f"{name} {'met' if ok else 'MISSED'}" for name, ok in met.items())
    )


def kind_row(label: str, row: dict[str, Any]) -> str:
    why = ", ".join(f"{reason} {count}" for reason, count in row["reasons"].items())
    return (
        f"{label:34} {row['runs']:>5} {row['won']:>5} {row['flagged']:>8} "
        f"{row['flagged_share']:>7.1%}  {why}  (line kept <= {row['line_kept_max']:.0%}, "
        f"lucky_z <= {row['lucky_z_max']})"
    )
