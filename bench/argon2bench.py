"""``solrace bench argon2``: what one argon2id sign-in costs on this machine, for a few
parameter sets (one lane each), to choose ``server/desks/passwords.py``'s within 100 ms of a core.

For each set one hash is made, then verified ``repeat`` times: the figures are the median
wall time of a verify and the CPU time (this process's) per verify. On a busy machine the
wall time grows with the load; the CPU time is the cost the budget is about.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from argon2 import PasswordHasher, Type

from server.desks.passwords import MEMORY_COST_KIB, PARALLELISM, TIME_COST

BUDGET_CPU_MS = 100.0
MIB = 1024
# (time_cost, memory KiB): OWASP's two argon2id minimums first, then more memory
PARAMETER_SETS = [
    (5, 7 * MIB),
    (4, 9 * MIB),
    (3, 12 * MIB),
    (2, 19 * MIB),
    (1, 46 * MIB),
    (2, 32 * MIB),
    (2, 46 * MIB),
    (1, 64 * MIB),
    (1, 80 * MIB),
    (1, 96 * MIB),
    (3, 64 * MIB),
]
PASSWORD = "correct horse battery staple"


def measure(time_cost: int, memory_kib: int, repeat: int) -> dict[str, Any]:
    """One parameter set's figures (see the module's docstring)."""
    hasher = PasswordHasher(
        time_cost=time_cost, memory_cost=memory_kib, parallelism=1, type=Type.ID
    )
    stored = hasher.hash(PASSWORD)
    walls = []
    cpu_started = time.process_time()
    for _ in range(repeat):
        started = time.perf_counter()
        hasher.verify(stored, PASSWORD)
        walls.append(time.perf_counter() - started)
    cpu_ms = (time.process_time() - cpu_started) * 1000 / repeat
    chosen = (time_cost, memory_kib, 1) == (TIME_COST, MEMORY_COST_KIB, PARALLELISM)
    return {
        "time_cost": time_cost,
        "memory_mib": memory_kib / MIB,
        "parallelism": 1,
        "wall_ms": round(statistics.median(walls) * 1000, 1),
        "cpu_ms": round(cpu_ms, 1),
        "within_budget": cpu_ms <= BUDGET_CPU_MS,
        "chosen": chosen,
    }


def run_argon2(repeat: int) -> list[dict[str, Any]]:
    """The figures of every set in ``PARAMETER_SETS`` and of the chosen one."""
    sets = list(PARAMETER_SETS)
    if (TIME_COST, MEMORY_COST_KIB) not in sets:
        sets.append((TIME_COST, MEMORY_COST_KIB))
    return [measure(time_cost, memory, repeat) for time_cost, memory in sets]


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'t':>3} {'memory':>8} {'p':>2} {'wall ms':>8} {'CPU ms':>7}  verdict")
    for row in rows:
        verdict = "within 100 ms" if row["within_budget"] else "over budget"
        if row["chosen"]:
            verdict += "  <- server/desks/passwords.py"
        print(
            f"{row['time_cost']:>3} {row['memory_mib']:>5g} MiB {row['parallelism']:>2} "
            f"{row['wall_ms']:>8} {row['cpu_ms']:>7}  {verdict}"
        )
