"""``solrace bench engine`` and ``solrace bench solver``: the rules engine's actions applied
and enumerations per second on random playouts, the solver's positions per second."""

from __future__ import annotations

import random
import time

from client.commands.solve import deadline
from protocol.engine import Rules
from protocol.notation import UNDO, Action
from protocol.solver import WON, solve


def measure_engine(rules: Rules, seconds: float, seed: int) -> dict[str, float]:
    """Random playouts of 400 actions from deals 1, 2, ...: applied (validated) actions per
    second and full legal-action enumerations per second, timed apart."""
    rng = random.Random(seed)
    apply_time = enumerate_time = 0.0
    applied = enumerated = 0
    clock = time.perf_counter
    deal = 0
    while apply_time + enumerate_time < seconds:
        deal += 1
        state = rules.start(deal)
        for _ in range(400):
            t0 = clock()
            legal = rules.legal_actions(state)
            t1 = clock()
            enumerate_time += t1 - t0
            enumerated += 1
            choices: list[Action] = [a for a in legal if a is not UNDO]
            if not choices:
                break
            action = rng.choice(choices)
            t0 = clock()
            state = rules.apply(state, action).state
            apply_time += clock() - t0
            applied += 1
    return {
        "apply_per_s": round(applied / apply_time),
        "enumerate_per_s": round(enumerated / enumerate_time),
    }


SOLVER_NODES_PER_DEAL = 50_000


def measure_solver(rules: Rules, seconds: float) -> dict[str, float]:
    """Solve deals 1, 2, ... with a budget of SOLVER_NODES_PER_DEAL positions each until
    ``seconds`` are spent: positions generated per second (the search alone: wins are not
    shortened here), and the deals tried and won."""
    spent = 0.0
    nodes = deals = won = 0
    while spent < seconds:
        deals += 1
        t0 = time.perf_counter()
        solution = solve(
            rules,
            rules.deal(deals),
            max_nodes=SOLVER_NODES_PER_DEAL,
            should_stop=deadline(seconds - spent),
            shortened=False,
        )
        spent += time.perf_counter() - t0
        nodes += solution.nodes
        won += solution.verdict == WON
    return {"positions_per_s": round(nodes / spent), "deals": deals, "won": won}
