"""Shady Lanes' beam passes one by one: per deal, one JSON line with each pass's start
(positions before it), end, whether it won, and after 10, 20, ..., 90 deals the most
cards home in that stage and the pass's positions by then. NODES per deal; "beam" for
the certification's search (``wins_only``), "mix" for ``solve``'s default.

    python docs/scripts/shady_passes.py NODES beam|mix DEAL... > passes.jsonl
"""

import json
import sys

from protocol.games import rules_for
from protocol.solver import solve, strategies
from protocol.solver.strategies import (
    CLOSURE_PER_WIDTH,
    DEAL,
    SLICE,
    IllegalAction,
    Move,
    _best,
    _Node,
)

STAGES = (10, 20, 30, 40, 50, 60, 70, 80, 90)
log = []


def beam_pass(context, start, width, score):
    profile, key, step, budget = context.profile, context.profile.key, context.step, context.budget
    moves, dead = profile.beam_moves, profile.is_dead
    rec = {"start": budget.nodes, "traj": [], "won": False}
    log.append(rec)
    first = []
    root = context.settle(start, first)
    if context.is_won(root):
        rec["won"] = True
        return first, False
    cap = width * CLOSURE_PER_WIDTH
    dropped = False
    stage = [(root, _Node(None, first))]
    depth = 0
    while stage:
        reached = {key(position): (position, node) for position, node in stage}
        todo = list(stage)
        while todo and len(reached) < cap:
            position, node = todo.pop()
            for action in moves(position):
                if type(action) is not Move:
                    continue
                child, taken = step(position, action)
                if context.is_won(child):
                    rec["won"] = True
                    rec["end"] = budget.nodes
                    return _Node(node, taken).path(), dropped
                if budget.nodes % SLICE == 0:
                    yield
                k = key(child)
                if k not in reached and not dead(child):
                    entry = (child, _Node(node, taken))
                    reached[k] = entry
                    todo.append(entry)
        dropped = dropped or bool(todo)
        if depth in STAGES:
            rec["traj"].append(
                (max(p.progress() for p, _ in reached.values()), budget.nodes - rec["start"])
            )
        best = _best(list(reached.values()), width, score, profile.beam_signature)
        dropped = dropped or len(reached) > width
        stage = []
        for position, node in best:
            if not position.stock:
                continue
            try:
                child, taken = step(position, DEAL)
            except IllegalAction:
                continue
            if context.is_won(child):
                rec["won"] = True
                rec["end"] = budget.nodes
                return _Node(node, taken).path(), dropped
            stage.append((child, _Node(node, taken)))
        depth += 1
    rec["end"] = budget.nodes
    rec["depth"] = depth
    return None, dropped


strategies.beam_pass = beam_pass
rules = rules_for("shady_lanes")
nodes = int(sys.argv[1])
wins_only = sys.argv[2] == "beam"
for number in map(int, sys.argv[3:]):
    log.clear()
    s = solve(rules, rules.deal(number), max_nodes=nodes, shortened=False, wins_only=wins_only)
    print(
        json.dumps({"deal": number, "verdict": s.verdict, "nodes": s.nodes, "passes": log}),
        flush=True,
    )
