"""``solrace bench signin``: what sign-ins cost the players who are racing.

A real ``solrace serve`` (memory store) with the server benchmark's standard paced load
(2,000 players racing in pairs, 4,000 actions/s in all: ``bench/loadtest.py``), measured
in rounds: the paced phase alone, then again while ``--sign-ins`` sign-ins a second happen
(each a new connection: hello, ``sign_in`` to one of the accounts registered beforehand,
close), the two alternating for ``--rounds`` rounds so that a machine whose speed drifts
weighs on both alike. The sign-ins run in a process of their own (as the server
benchmark's spectators do), so their connections never delay the process that times the
players. Printed: each phase's act round-trip p50/p99, the p99's rise (median over the
rounds; the target is at most 1 ms), the sign-ins' own latency and the server's CPU per
sign-in (its CPU in the phase with sign-ins less the one without).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from dataclasses import asdict
from typing import Any

from bench.benchplayer import playouts
from bench.loadtest import DEALS, PLAYOUT_LENGTH, Figures, rate_phase, solrace_target
from client.api import Client, ServerError

ACCOUNTS = 20
PASSWORD = "bench password"


async def register_accounts(url: str, count: int) -> list[str]:
    names = [f"bench_{i}" for i in range(count)]
    for name in names:
        client = await Client.connect(url, name)
        await client.register(name, PASSWORD)
        await client.close()
    return names


async def sign_ins(
    url: str, names: list[str], per_s: float, until: float
) -> tuple[list[float], int]:
    """Sign in at ``per_s`` a second (each on its own connection) until ``until``: each
    sign-in's time from connecting to the answer, and how many were refused."""
    took: list[float] = []

    async def one(name: str) -> None:
        began = time.perf_counter()
        client = await Client.connect(url, "signing in")
        try:
            await client.sign_in(name, PASSWORD)
            took.append(time.perf_counter() - began)
        except ServerError as error:  # too many waiting: counted as refused
            if error.code != "auth_rate_limited":
                raise
        finally:
            await client.close()

    tasks = []
    next_at = time.perf_counter()
    n = 0
    while next_at < until:
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        tasks.append(asyncio.create_task(one(names[n % len(names)])))
        n += 1
        next_at += 1 / per_s
    await asyncio.gather(*tasks)
    return took, len(tasks) - len(took)


async def signing_process(
    url: str, names: list[str], per_s: float, seconds: float
) -> tuple[list[float], int]:
    """``sign_ins`` for ``seconds`` in a process of its own, so that its connections and
    handshakes never delay the process that times the players: its times and refusals."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.signinbench",
        url,
        str(per_s),
        str(seconds),
        *names,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"the signing process failed (exit status {process.returncode})")
    answer = json.loads(out)
    return answer["took"], answer["refused"]


async def run_signin_bench(options: dict[str, Any]) -> dict[str, Any]:
    pool = playouts("sanibel", DEALS, PLAYOUT_LENGTH, seed=7)
    options = {**options, "redis": None}
    extra = (  # every sign-in and registration comes from 127.0.0.1
        *("--auth-per-address", "1000000", "--auth-per-username", "1000000"),
        *("--registrations-per-address", "1000000"),
    )
    async with solrace_target(options, pool, extra) as target:
        names = await register_accounts(target.url, ACCOUNTS)
        rounds: list[tuple[Figures, Figures, list[float]]] = []
        refused = 0
        for _ in range(options["rounds"]):
            alone = await rate_phase(
                target.players, options["rate"], options["seconds"], target.process.pid
            )
            signing = asyncio.create_task(
                signing_process(target.url, names, options["sign_ins"], options["seconds"])
            )
            loaded = await rate_phase(
                target.players, options["rate"], options["seconds"], target.process.pid
            )
            took, turned_away = await signing
            refused += turned_away
            rounds.append((alone, loaded, took))
    rises = [loaded.p99_ms - alone.p99_ms for alone, loaded, _ in rounds]
    took = sorted(t for _, _, times in rounds for t in times)
    cpu_rises = [
        (loaded.server_cpu_pct - alone.server_cpu_pct) / 100 for alone, loaded, _ in rounds
    ]
    return {
        "settings": options,
        "rounds": [
            {"alone": asdict(alone), "with_sign_ins": asdict(loaded)} for alone, loaded, _ in rounds
        ],
        "p99_rise_ms": [round(rise, 2) for rise in rises],
        "median_p99_rise_ms": round(statistics.median(rises), 2),
        "sign_ins": len(took),
        "sign_ins_refused": refused,
        "sign_in_p50_ms": round(1000 * statistics.median(took), 1),
        "sign_in_p99_ms": round(1000 * took[min(len(took) - 1, int(len(took) * 0.99))], 1),
        "server_cpu_ms_per_sign_in": round(
            1000 * statistics.median(cpu_rises) / options["sign_ins"], 1
        ),
        "target_met": statistics.median(rises) <= 1.0,
    }


async def sign_in_for(url: str, per_s: float, seconds: float, names: list[str]) -> None:
    """The signing process: sign in for ``seconds``; print the times and refusals (JSON)."""
    took, refused = await sign_ins(url, names, per_s, time.perf_counter() + seconds)
    print(json.dumps({"took": took, "refused": refused}))


def print_signin(result: dict[str, Any]) -> None:
    settings = result["settings"]
    print(
        f"signin: {settings['players']} players pacing {settings['rate']} actions/s, "
        f"{settings['sign_ins']} sign-ins/s in every other phase, {settings['rounds']} rounds"
    )
    print(
        f"{'round':>5} {'p50 alone':>10} {'p99 alone':>10} {'p50 signing':>12} {'p99 signing':>12}"
    )
    for i, r in enumerate(result["rounds"], 1):
        alone, loaded = r["alone"], r["with_sign_ins"]
        print(
            f"{i:>5} {alone['p50_ms']:>10} {alone['p99_ms']:>10} "
            f"{loaded['p50_ms']:>12} {loaded['p99_ms']:>12}"
        )
    verdict = "met" if result["target_met"] else "NOT met"
    print(
        f"p99 rise: {result['p99_rise_ms']} ms by round, median {result['median_p99_rise_ms']} ms "
        f"(target <= 1 ms: {verdict})"
    )
    print(
        f"sign-ins: {result['sign_ins']} ({result['sign_ins_refused']} refused as too many "
        f"waiting), p50 {result['sign_in_p50_ms']} ms, "
        f"p99 {result['sign_in_p99_ms']} ms; server CPU per sign-in about "
        f"{result['server_cpu_ms_per_sign_in']} ms"
    )


if __name__ == "__main__":
    asyncio.run(sign_in_for(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]))
