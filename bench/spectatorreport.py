"""What the spectators of ``solrace bench spectators`` received (read from their stamped
frames), and what the command prints of its result (``bench/spectatorbench.py``)."""

from __future__ import annotations

from typing import Any

import msgpack


def received(race: str, stamps: list[list[tuple[int, int, bytes]]]) -> dict[str, Any]:
    """What the spectators got: per racer, the actions in the order seen (the first
    spectator's) and, for each, every spectator's times (the kernel's, ``times_ns``, and
    their process's read, ``read_ns``); whether each spectator's feed numbers follow one
    another and everyone saw the same actions."""
    in_order = same_for_all = True
    first_seen: dict[str, list[str]] | None = None
    times: dict[str, list[list[int]]] = {}
    reads: dict[str, list[list[int]]] = {}
    for frames in stamps:
        seen: dict[str, list[str]] = {}
        last_seq = None
        for arrived, read, data in frames:
            item = msgpack.unpackb(data, raw=False)
            if item.get("type") != "watch" or item.get("race") != race:
                continue
            if last_seq is not None and item["seq"] != last_seq + 1:
                in_order = False
            last_seq = item["seq"]
            if item["kind"] != "act":
                continue
            player = item["player"]
            actions = seen.setdefault(player, [])
            arrivals, readings = times.setdefault(player, []), reads.setdefault(player, [])
            if len(arrivals) <= len(actions):
                arrivals.append([])
                readings.append([])
            arrivals[len(actions)].append(arrived)
            readings[len(actions)].append(read)
            actions.append(item["action"])
        if first_seen is None:
            first_seen = seen
        elif seen != first_seen:
            same_for_all = False
    return {
        "spectators": len(stamps),
        "in_order": in_order,
        "same_for_all": same_for_all,
        "actions": first_seen or {},
        "times_ns": times,
        "read_ns": reads,
    }


def print_spectators(result: dict[str, Any]) -> None:
    s = result["settings"]
    redis = "a redis-server of its own" if s["redis"] == "own" else "the Redis given"
    print(
        f"spectators: {s['spectators']:,} spectators on node {result['phases'][0]['spectators_on']}"
        f" watch a race of 2 racers playing {s['rate']:g} actions/s in all for "
        f"{s['seconds']:g} s; {s['nodes']} node(s) on {redis}; from each racer's answer to "
        "the item reaching each spectator's socket (the kernel's receive time; CLOCK_REALTIME "
        "in every process)"
    )
    print(
        f"{'setup':>12} {'racers':>6} {'items':>5} {'delivered':>15} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'max ms':>7} {'1st spect. ms':>13} {'last spect. ms':>14} "
        f"{'node CPU':>12} {'spect. CPU':>10} {'read p50/p99 ms':>15}"
    )
    for p in result["phases"]:
        delivered = f"{p['deliveries']:,}/{p['expected']:,}"
        nodes_cpu = "/".join(f"{c:g}" for c in p["node_cpu_pct"]) + "%"
        read = f"{p['read_p50_ms']}/{p['read_p99_ms']}"
        print(
            f"{p['setup']:>12} {'node ' + str(p['racers_on']):>6} {p['items']:>5} "
            f"{delivered:>15} {p['p50_ms']:>7} {p['p99_ms']:>7} {p['max_ms']:>7} "
            f"{p['first_median_ms']:>13} {p['last_median_ms']:>14} {nodes_cpu:>12} "
            f"{p['spectators_cpu_pct']:>9}% {read:>15}"
        )
    print(
        "1st/last spect.: the first and the last spectator to get an item, median over the "
        "items; node CPU: node 1/node 2 over the phase; read: until the spectators' process "
        "read the item (its own pace, not the server's)"
    )
    for p in result["phases"]:
        print(
            f"{p['setup']}: node {p['spectators_on']} wrote {p['fan_outs']} fan-outs, "
            f"{p['fan_out_mean_ms']} ms on average from release to the last spectator's "
            f"write (largest {p['fan_out_max_ms']} ms), {p['fan_out_cpu_ms']} ms of its CPU each"
        )
    feed = result["feed"]
    pause = "the next loop turn" if not feed["pause_ms"] else f"{feed['pause_ms']:g} ms later"
    print(
        f"the server's feed (server/config.py): an item goes out at the end of the loop turn "
        f"that made it (delayed feeds: checked every {feed['flushed_every_ms']} ms), written "
        f"to {feed['spectators_at_a_time']} spectators per loop turn, the next ones {pause}"
    )
    unstamped = sum(p["unstamped_reads"] for p in result["phases"])
    if unstamped:
        print(f"NOTE: {unstamped:,} reads came without the kernel's time (their read's instead)")
    checks = all(p["in_order"] and p["actions_as_played"] for p in result["phases"])
    print(
        "every spectator's feed numbers without a gap and each racer's actions as played: "
        + ("yes" if checks else "NO")
    )
    if result["target_met"] is not None:
        verdict = "met" if result["target_met"] else "NOT met"
        print(
            f"target: p99 <= {result['target_ms']:g} ms across nodes at 1,000 spectators: "
            f"{verdict} ({result['phases'][-1]['p99_ms']} ms with {s['spectators']:,})"
        )
