"""What ``solrace bench server`` prints of its result (``bench/loadtest.py``)."""

from __future__ import annotations

import json
from typing import Any


def print_table(result: dict[str, Any]) -> None:
    settings = result["settings"]
    store = "Redis, each action stored before its answer" if settings.get("redis") else "memory"
    print(
        f"{settings['players']} players at {settings['rate']} actions/s for "
        f"{settings['seconds']} s, {settings['rounds']} rounds in turns (the median's "
        f"figures); saturation with {settings['saturation_clients']} clients; "
        f"{settings['spectators']} spectators on one race; solrace's store: {store}"
    )
    print(
        f"{'':34} {'p50 ms':>8} {'p99 ms':>8} {'actions/s':>10} {'server CPU':>11} {'load CPU':>9}"
        f" {'waited: server':>15} {'load':>6} {'host took':>10}"
    )
    rows = [
        ("echo baseline, paced", result["echo"]["rate"]),
        ("solrace, paced", result["solrace"]["rate"]),
    ]
    if "stored_echo" in result:
        rows.append(("echo storing in Redis, paced", result["stored_echo"]["rate"]))
    rows += [
        ("echo baseline, saturated", result["echo"]["saturation"]),
        ("solrace, saturated", result["solrace"]["saturation"]),
    ]
    if "spectated" in result["solrace"]:
        rows.append(("solrace, paced, with spectators", result["solrace"]["spectated"]))
        rows.append(("  the same, spectators niced", result["solrace"]["spectated_niced"]))
    for label, row in rows:
        print(
            f"{label:34} {row['p50_ms']:>8} {row['p99_ms']:>8} {row['actions_per_s']:>10} "
            f"{row['server_cpu_pct']:>10}% {row['load_cpu_pct']:>8}% "
            f"{row['server_waited_pct']:>14}% {row['load_waited_pct']:>5}% {row['steal_pct']:>9}%"
        )
    print(
        "waited: the share of the phase the server's event loop and the load generator's were "
        "ready to run but not running (a busy core, or a virtual CPU the host had not given "
        "back); host took: the machine's CPU time stolen by the host"
    )
    print("ratios:", json.dumps(result["ratios"]))
    ticker = result["ticker_paced"]
    if ticker["holds"]:
        print(
            f"solrace's ticker in the paced phase (solrace_tick_seconds): {ticker['holds']:,} "
            f"holds of the event loop, {ticker['mean_ms']} ms on average, "
            f"{100 * ticker['share_over_0_5_ms']:.2f}% over 0.5 ms, "
            f"{100 * ticker['share_over_1_ms']:.2f}% over 1 ms"
        )
    answered = result["answered_paced"]
    if answered["actions"]:
        print(
            "solrace's own answer times in the paced phase (solrace_act_seconds, action read "
            f"to answer written): {_shares(answered)}"
        )
    trips = result.get("store_trips_paced", {}).get("trips")
    if trips:
        print(
            f"solrace's round trips to the store in the paced phase "
            f"(solrace_store_round_trip_seconds, a batch sent to its replies read): {trips:,}, "
            f"{answered['actions'] / trips:.1f} actions a trip; "
            f"{_shares(result['store_trips_paced'])}"
        )


def _shares(shares: dict[str, Any]) -> str:
    within = ", ".join(
        f"{100 * share:.1f}% within {ms} ms" for ms, share in shares["share_within_ms"].items()
    )
    return f"{within}; its p99 at most {shares['p99_at_most_ms']:g} ms"
