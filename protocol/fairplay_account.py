"""Clairvoyance over an account's runs (docs/fairness.md, "Clairvoyance over an account's
runs"): the lucky reveals of its ranked daily runs (``protocol/fairplay_reveals.py``)
added up, so that a small luck in every run, which no single run shows, adds up. Pure.

For anyone who cannot see the hidden cards, each blind reveal is useful with the chance
``p`` given everything before it, whatever their skill, so over any number of runs the
useful reveals less their expectation are a sum whose variance is the sum of
``p (1 - p)``: summed over an account's runs, (U - E) / sqrt(V) should stay about a
standard normal for an honest account, however many runs it has, while for an account that
knows the deals and is a little luckier each run, it grows like the square root of its
runs. (On the bench's honest players it spreads wider over many runs: the thresholds are
the bench's, ``solrace bench fairplay --accounts``.) The sums do not depend on the order
of the runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from protocol.fairplay_reveals import Reveals

# The rule (docs/fairness.md). A ranked daily run is flagged ``lucky_account`` when:
ACCOUNT_RUNS = 8  # its account's runs that turned up a card blind, this one included, are
ACCOUNT_Z = 3.0  # at least this many, and their reveals summed lie this far above chance


def combined(runs: Iterable[Reveals]) -> Reveals:
    """The reveals of ``runs`` added up: blind reveals, useful ones, their expectation and
    variance for a player who cannot see hidden cards."""
    blind = lucky = 0
    expected = variance = 0.0
    for run in runs:
        blind, lucky = blind + run.blind, lucky + run.lucky
        expected, variance = expected + run.expected, variance + run.variance
    return Reveals(blind, lucky, expected, variance)


def judged_runs(runs: Iterable[Reveals]) -> list[Reveals]:
    """The runs that count: those that turned up at least one card blind (a run that
    turned up none says nothing either way)."""
    return [run for run in runs if run.blind > 0]


def lucky_account(
    runs: int, z: float | None, runs_needed: int = ACCOUNT_RUNS, z_needed: float = ACCOUNT_Z
) -> bool:
    """``runs`` that count, at least ``runs_needed``, whose reveals summed lie ``z``, at
    least ``z_needed``, standard deviations above what a player who cannot see expects
    (the rule's thresholds unless the bench tries others)."""
    return runs >= runs_needed and z is not None and z >= z_needed


def account_figures(runs: Iterable[Reveals]) -> dict[str, Any]:
    """The account's runs that count and their reveals summed, as ``Signals`` keeps them."""
    counted = judged_runs(runs)
    summed = combined(counted)
    z = summed.z()
    return {
        "account_runs": len(counted),
        "account_lucky": summed.lucky,
        "account_expected": round(summed.expected, 3),
        "account_variance": round(summed.variance, 3),
        "account_z": round(z, 2) if z is not None else None,
    }
