"""Solve deals one after another with ``solrace study``'s own per-deal function (the same
solve, budget and timing), printing each row as JSON as soon as it is done, so that a long
run cut short keeps its rows. Tally the rows with ``client.commands.study.tally``.

    python docs/scripts/study_rows.py GAME FIRST LAST NODES SECONDS > rows.jsonl
"""

import json
import sys

from client.commands.study import solve_deal

game, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
nodes, seconds = int(sys.argv[4]), float(sys.argv[5])
for number in range(first, last + 1):
    print(json.dumps(solve_deal((game, {}, number, nodes, seconds))), flush=True)
