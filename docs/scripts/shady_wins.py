"""Wins per node budget on a fixed Shady Lanes sample: solve deals FIRST..LAST with NODES
positions each (no time cap, no shortening: deterministic), and print each win, then the
wins, the positions spent and the positions per win.

    python docs/scripts/shady_wins.py FIRST LAST NODES [GAME]
"""

import sys
import time

from protocol.games import rules_for
from protocol.solver import solve

first, last, nodes = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rules = rules_for(sys.argv[4] if len(sys.argv) > 4 else "shady_lanes")
won, spent, cpu = [], 0, time.process_time()
for number in range(first, last + 1):
    solution = solve(rules, rules.deal(number), max_nodes=nodes, shortened=False)
    spent += solution.nodes
    if solution.verdict == "won":
        won.append((number, solution.nodes))
        print(f"won {number} at {solution.nodes}", flush=True)
    elif solution.verdict != "unknown":
        print(f"{solution.verdict} {number} at {solution.nodes}", flush=True)
cpu = time.process_time() - cpu
per_win = f"{spent / len(won):,.0f}" if won else "-"
print(
    f"deals {first}..{last} at {nodes:,}: {len(won)} won, {spent:,} positions, "
    f"{per_win} positions per win, {spent / cpu:,.0f} positions per CPU second"
)
