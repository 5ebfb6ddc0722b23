"""Wins, and the most cards home the search reached (a finer measure than wins, which are
rare), per Shady Lanes deal at a node budget: deals OFFSET+FIRST .. OFFSET+LAST.

    python docs/scripts/shady_probe.py FIRST LAST NODES [OFFSET]

OFFSET 1000000 takes deals from the daily candidates' range (the Mersenne Twister deals,
32000 and up), whose wins are rarer than those of deals 1-200.
"""

import statistics
import sys
import time

from protocol.games import rules_for
from protocol.solver import search, solve

best = [0]
orig = search.Context.step


def step(self, position, action):
    after, taken = orig(self, position, action)
    p = after.progress()
    if p > best[0]:
        best[0] = p
    return after, taken


search.Context.step = step

first, last, nodes = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
OFF = int(sys.argv[4]) if len(sys.argv) > 4 else 0
rules = rules_for("shady_lanes")
won, spent, prog, cpu = [], 0, [], time.process_time()
for number in range(first, last + 1):
    best[0] = 0
    s = solve(rules, rules.deal(number + OFF), max_nodes=nodes, shortened=False)
    spent += s.nodes
    prog.append(best[0])
    if s.verdict == "won":
        won.append((number, s.nodes))
cpu = time.process_time() - cpu
print(
    f"{first}..{last} at {nodes}: won {len(won)} {won}"
    f" mean best home {statistics.mean(prog):.2f} median {statistics.median(prog)}"
    f" >=80: {sum(p >= 80 for p in prog)} >=60: {sum(p >= 60 for p in prog)}"
    f" nodes/s {spent / cpu:.0f}"
)
