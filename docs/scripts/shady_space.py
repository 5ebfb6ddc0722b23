"""How many positions a proof of unwinnability needs at least, for Shady Lanes deals.

The solver proves a deal unwinnable only by generating every position reachable from its
start (up to its key's equivalences, with its safe moves and its leftmost-empty rule).
This counts the distinct keys reachable, stage by stage (stage d: the positions reachable
with d cards dealt; the positions after one more deal are counted as they are generated),
and stops once the count passes LIMIT: such a deal cannot be proven unwinnable within LIMIT
positions by this solver.

    python docs/scripts/shady_space.py FIRST LAST [LIMIT]
"""

import sys
import time

from protocol.games import rules_for
from protocol.notation import Move
from protocol.position import Position
from protocol.solver.context import Budget, Context
from protocol.solver.profiles import profile_for

first, last = int(sys.argv[1]), int(sys.argv[2])
limit = int(sys.argv[3]) if len(sys.argv) > 3 else 500_000
rules = rules_for("shady_lanes")
profile = profile_for(rules)
for number in range(first, last + 1):
    started = time.process_time()
    context = Context(rules, profile, Budget(10**12, None))
    root = context.settle(rules.deal(number), [])
    seen = {profile.key(root)}
    stage = [root]
    dealt = 0
    won = False
    while stage and len(seen) <= limit:
        todo = list(stage)
        after_deal: list[Position] = []
        while todo and len(seen) <= limit:
            position = todo.pop()
            for action in profile.ordered_moves(position):
                child, _ = context.step(position, action)
                won = won or context.is_won(child)
                key = profile.key(child)
                if key in seen:
                    continue
                seen.add(key)
                (todo if type(action) is Move else after_deal).append(child)
        if len(seen) > limit:
            break
        stage = after_deal
        dealt += 1
    verdict = (
        f"passed {limit:,} distinct keys at {dealt} cards dealt"
        if len(seen) > limit
        else f"whole reachable space: {len(seen):,} keys"
    )
    cpu = time.process_time() - started
    print(number, verdict, "(a win among them)" if won else "", f"{cpu:.0f} s", flush=True)
