"""What ``solrace bench server --nodes`` prints of its result (``bench/nodebench.py``)."""

from __future__ import annotations

from typing import Any

from bench.nodebench import CPU_TARGET, P99_TARGET


def print_nodes(result: dict[str, Any]) -> None:
    s, races = result["settings"], result["races"]
    count = s["nodes"]
    redis = (
        "a redis-server of its own, append-only file fsynced every second"
        if s["redis"] == "own"
        else "the Redis given"
    )
    print(
        f"server --nodes {count}: {count} solrace serve processes on one Redis: {redis}; "
        f"each set of {s['players']:,} players paces {s['rate']:,g} actions/s, "
        f"for {s['seconds']:g} s per phase (the first {min(3.0, s['seconds'] / 4):g} s "
        f"a warm-up), {s['rounds']} rounds of 1 node, {count} nodes, {count} within"
    )
    print(
        f"1 node: {s['players']:,} players and {races['one_node']:,} races on node 1. "
        f"{count} nodes: players dealt round-robin, {races['n_nodes_across_nodes']:,} of "
        f"{races['n_nodes']:,} races with their two racers on different nodes; races "
        f"followed by node: {', '.join(f'{r:,}' for r in races['followed_by_node'])}. "
        f"{count} within: players dealt round-robin, each race within one node "
        f"({races['n_nodes_within_across_nodes']:,} of {races['n_nodes_within']:,} across)"
    )
    print(
        f"{'round':>5} {'setup':>8} {'p50 ms':>7} {'p99 ms':>7} {'actions':>8} {'act/s':>6} "
        f"{'server CPU':>10} {'CPU ms/1000 act':>15} {'Redis ms/1000 act':>17} {'load CPU':>8}"
    )
    for number, pair in enumerate(result["rounds"], 1):
        for phase in (pair["one_node"], pair["n_nodes"], pair["n_nodes_within"]):
            print(
                f"{number:>5} {phase['setup']:>8} {phase['p50_ms']:>7} {phase['p99_ms']:>7} "
                f"{phase['actions']:>8,} {phase['actions_per_s']:>6,} "
                f"{phase['server_cpu_pct']:>9}% {phase['server_cpu_ms_per_1000']:>15} "
                f"{phase['redis_cpu_ms_per_1000']:>17} {phase['load_cpu_pct']:>7}%"
            )
    many = [pair["n_nodes"] for pair in result["rounds"]]
    by_node = [sum(p["actions_by_node"][i] for p in many) for i in range(count)]
    cpu_by_node = [sum(p["node_cpu_s"][i] for p in many) for i in range(count)]
    print(
        f"{count}-node phases, by node (actions answered in the windows, CPU s): "
        + "; ".join(
            f"node {i + 1}: {a:,}, {c:.1f} s"
            for i, (a, c) in enumerate(zip(by_node, cpu_by_node, strict=True))
        )
    )
    idle = [pair["one_node"]["idle_nodes_cpu_pct"] for pair in result["rounds"]]
    print(f"1-node phases: the other nodes, idle, used {idle}% CPU (not counted)")
    upkeep = [pair["idle_cpu_pct_by_node"] for pair in result["rounds"]]
    print(f"before each round, every player idle, each node used {upkeep}% CPU (its upkeep)")
    counted = result["actions_answered"]
    print(
        f"actions over the whole run, by node: players counted {counted['counted_by_players']}, "
        f"the nodes' /metrics say {counted['counted_by_nodes']}"
    )
    ratios, targets = result["ratios"], result["targets"]
    scope = "" if targets["applies"] else " (the targets are set for 2 nodes)"

    def verdict(met: bool) -> str:
        return "met" if met else "NOT met"

    print(
        f"CPU per 1,000 actions, {count} nodes vs 1: {ratios['cpu_per_1000_vs_one_node']}x "
        f"(median of rounds {ratios['cpu_per_1000_vs_one_node_by_round']}; target <= "
        f"{CPU_TARGET}x: {verdict(targets['cpu_met'])}){scope}"
    )
    print(
        f"  of which: the same load on the {count} nodes with each race within a node "
        f"(no traffic between nodes) {ratios['cpu_within_vs_one_node']}x of 1 node's (rounds "
        f"{ratios['cpu_within_vs_one_node_by_round']}), and races across nodes "
        f"{ratios['cpu_across_vs_within']}x of that (rounds "
        f"{ratios['cpu_across_vs_within_by_round']}): the traffic between nodes itself"
    )
    print(
        f"  above each node's idle upkeep (the CPU its serving nodes would have spent idle "
        f"over the phase taken off): {ratios['cpu_above_idle_vs_one_node']}x (rounds "
        f"{ratios['cpu_above_idle_vs_one_node_by_round']}; the target is on the whole)"
    )
    print(
        f"paced p99, {count} nodes vs 1: {ratios['p99_vs_one_node']}x (median of rounds "
        f"{ratios['p99_vs_one_node_by_round']}; target <= {P99_TARGET}x: "
        f"{verdict(targets['p99_met'])}){scope}"
    )
    split = result["split"]
    print(
        f"where it goes (one more phase, only node 1's {count}-node racers acting, "
        f"{split['actions']:,} actions): the racer's node {split['racer_node_ms_per_1000']} ms "
        f"CPU per 1,000 actions (apply, store, answer), the following node(s) "
        f"{split['following_nodes_ms_per_1000']} ms (hear, read the log, apply, standings)"
    )
    redis = result["redis_cpu_us_per_action"]
    print(
        f"Redis CPU per action: {redis['one_node']} us with 1 node, {redis['n_nodes']} us with "
        f"{count} nodes (INFO cpu, used_cpu_sys + used_cpu_user)"
    )
    p = result["projection"]
    print(
        f"PROJECTION (arithmetic, not measured): {count}-node phases cost "
        f"{p['node_cpu_us_per_action']} us of node CPU and {p['redis_cpu_us_per_action']} us "
        f"of Redis CPU per action: {p['actions_per_s_per_node_core']:,} actions/s per node "
        f"core; Redis (one thread) tops out near {p['redis_ceiling_actions_per_s'] or 0:,} "
        "actions/s. Actions/s = cores / (node + Redis CPU per action), or cores / node CPU "
        "per action with Redis on a machine of its own; at most the Redis ceiling; assumes "
        "linear scaling, the paced load's costs, no load generator on those cores"
    )
    print(f"{'cores':>5} {'actions/s, Redis on these cores':>32} {'Redis elsewhere':>16}")
    for row in p["rows"]:
        print(
            f"{row['cores']:>5} {row['actions_per_s_redis_on_these_cores']:>32,} "
            f"{row['actions_per_s_redis_elsewhere']:>16,}"
        )
