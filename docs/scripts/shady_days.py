"""For each day of a Shady Lanes dailies study: its candidates in the screen's order,
and for those the study attempted (the first ``tried``; the last one won) the screen and
lone greedy beam passes of widths 2 and 4. Reads the rows ``solrace study --dailies``
writes to standard error, one JSON line a day.

    solrace study --dailies 30 --first-day 2026-12-01 --games shady_lanes 2> rows.jsonl
    python docs/scripts/shady_days.py rows.jsonl > days.jsonl
"""

import itertools
import json
import sys

from client.commands.study import STUDY_SECRET
from protocol.daily import candidate_deals
from protocol.games import rules_for
from protocol.solver import search
from protocol.solver.context import Budget, OutOfBudget
from protocol.solver.profiles import profile_for
from protocol.solver.search import screen
from protocol.solver.strategies import beam_pass
from server.desks.daily import max_candidates

rules = rules_for("shady_lanes")


def look(n, width):
    profile = profile_for(rules)
    ctx = search._Watched(rules, profile, Budget(20000, None))
    steps = beam_pass(ctx, rules.deal(n), width, profile.score)
    try:
        while True:
            next(steps)
    except StopIteration as f:
        if f.value[0] is not None:
            ctx.most_home = 104
    except OutOfBudget:
        pass
    return ctx.most_home, ctx.budget.nodes


for f in sys.argv[1:]:
    with open(f) as rows:
        lines = rows.readlines()
    for line in lines:
        row = json.loads(line)
        cands = list(
            itertools.islice(
                candidate_deals("shady_lanes", row["day"], STUDY_SECRET),
                max_candidates("shady_lanes"),
            )
        )
        g1 = {n: screen(rules, rules.deal(n)) for n in cands}
        order = sorted(cands, key=lambda n: -g1[n][0])
        tried = order[: row["tried"]]
        assert tried[-1] == row["deal"], (row["day"], tried[-1], row["deal"])
        out = {"day": row["day"], "g1_all": [g1[n][0] for n in order], "tried": []}
        for n in tried:
            out["tried"].append(
                {
                    "deal": n,
                    "won": n == row["deal"],
                    "g1": g1[n],
                    "g2": look(n, 2),
                    "g4": look(n, 4),
                }
            )
        print(json.dumps(out), flush=True)
