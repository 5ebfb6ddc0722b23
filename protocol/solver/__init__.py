"""A solver for the four games: a winning action list, a proof that none exists, or
"unknown" when its budget runs out. Pure: the time budget arrives as a callable.

``solve(rules, position, max_nodes=..., should_stop=None) -> Solution``; docs/solver.md says
how it searches and why its proofs hold.
"""

from protocol.solver.search import UNKNOWN, UNWINNABLE, VERDICTS, WON, Solution, solve
from protocol.solver.shorten import shorten

__all__ = ["UNKNOWN", "UNWINNABLE", "VERDICTS", "WON", "Solution", "shorten", "solve"]
