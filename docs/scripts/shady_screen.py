"""Data for screening Shady Lanes candidates: per deal OFFSET+FIRST .. OFFSET+LAST, one JSON
line with the positions to a win at NODES (or null), the most cards home reached by
positions 512, 1024, 2048, 4096, 8192, 16384 and NODES of that search, and the most home
(and positions) of lone greedy beam passes at widths 1 and 4 (cheap screens).

    python docs/scripts/shady_screen.py FIRST LAST NODES [OFFSET] > rows.jsonl

Deterministic (node budgets only): the same rows on any machine.
"""

import json
import sys

from protocol.games import rules_for
from protocol.solver import search, solve
from protocol.solver.context import Budget, Context, OutOfBudget
from protocol.solver.profiles import profile_for
from protocol.solver.strategies import beam_pass

CHECKS = (512, 1024, 2048, 4096, 8192, 16384)
best = [0]
marks: dict[int, int] = {}
orig = search.Context.step


def step(self, position, action):
    after, taken = orig(self, position, action)
    p = after.progress()
    if p > best[0]:
        best[0] = p
    n = self.budget.nodes
    if n in CHECKS_SET and n not in marks:
        marks[n] = best[0]
    return after, taken


CHECKS_SET = set(CHECKS)
search.Context.step = step


def greedy(rules, number, width, limit=20_000):
    """Most home and positions of one lone beam pass of ``width`` (score of pass 0)."""
    profile = profile_for(rules)
    context = Context(rules, profile, Budget(limit, None))
    best[0] = 0
    marks.clear()
    steps = beam_pass(context, rules.deal(number), width, profile.score)
    won = False
    try:
        while True:
            next(steps)
    except StopIteration as end:
        won = end.value[0] is not None
    except OutOfBudget:
        pass
    return best[0], context.budget.nodes, won


first, last, nodes = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
OFF = int(sys.argv[4]) if len(sys.argv) > 4 else 0
rules = rules_for("shady_lanes")
for number in range(first + OFF, last + OFF + 1):
    row: dict = {"deal": number}
    for width in (1, 4):
        home, spent, won = greedy(rules, number, width)
        row[f"g{width}"] = [home, spent, won]
    best[0] = 0
    marks.clear()
    s = solve(rules, rules.deal(number), max_nodes=nodes, shortened=False)
    row["win"] = s.nodes if s.verdict == "won" else None
    row["marks"] = [marks.get(c) for c in CHECKS]
    row["best"] = best[0]
    print(json.dumps(row), flush=True)
