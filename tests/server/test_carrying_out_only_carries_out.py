"""Decisions return effects, and carrying them out only carries out (issue 34): read from
the import graph, no module that carries out (``server/carry/``: the executor, the writer, the
relay, the ticker, the sweeper; the edge but its gateway: the answers, the outbox, the feeds,
the lines; ``server/state/`` and ``server/handover/``) imports a module that decides
(``server/desks/`` and ``server/races/``), not even through another module;
what a timer, a write or news leaves to decide is handed to the decider as an input, one
decision per input type; and the server's composition root closes no loop through a
lambda. The act path's stack (it turns back once at most) is ``test_act_path.py``'s."""

from __future__ import annotations

import ast

from test_code_shape import ROOT, imported, modules

from server.desks.deciding import AT_ONCE, READING
from server.handover import inputs

# Read from the tree (docs/server.md, "The code's shape"): every module of these folders
# carries out, or is what both sides speak (handover/), or is held by both (state/); so does
# every module of the edge but the gateway, which hands requests to the desks.
CARRYING_OUT_FOLDERS = ("server.carry", "server.state", "server.handover", "server.edge")
NOT_CARRYING_OUT = {"server.edge.gateway"}
# and every module of these decides
DECIDING_FOLDERS = ("server.desks", "server.races")


def in_folders(folders: tuple[str, ...]) -> set[str]:
    return {name for name in modules() if name.rpartition(".")[0] in folders}


CARRYING_OUT = in_folders(CARRYING_OUT_FOLDERS) - NOT_CARRYING_OUT
DECIDING = in_folders(DECIDING_FOLDERS)
# What a lambda in the composition root may not name: a lambda that hands effects to the
# executor or calls a desk back is a loop no import graph shows.
LOOPING_NAMES = {"executor", "run", "carry_out", "session_desk", "let_go", "relay", "decider"}


def reached(start: str, graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Every module ``start`` imports, directly or through others, with the way there."""
    ways = {start: [start]}
    todo = [start]
    while todo:
        module = todo.pop()
        for target in sorted(graph[module]):
            if target not in ways:
                ways[target] = [*ways[module], target]
                todo.append(target)
    return ways


def test_no_module_that_carries_out_imports_one_that_decides_even_through_another() -> None:
    known = modules()
    # the folders hold what they held as lists before the tree was grouped (issue 34)
    assert {"server.carry.executor", "server.carry.writer", "server.edge.lines"} <= CARRYING_OUT
    assert {"server.desks.deciding", "server.races.followed", "server.races.race_desk"} <= DECIDING
    graph = {name: imported(name, path, known) for name, path in known.items()}
    crossings = {
        module: " -> ".join(way)
        for module in sorted(CARRYING_OUT)
        for target, way in reached(module, graph).items()
        if target in DECIDING
    }
    assert crossings == {}


def test_every_input_has_one_decision_at_once_or_after_reading_the_store() -> None:
    assert set(AT_ONCE) == set(inputs.NOW)
    assert set(READING) == set(inputs.READING)
    assert not set(inputs.NOW) & set(inputs.READING)


def test_the_composition_root_closes_no_loop_through_a_lambda() -> None:
    tree = ast.parse((ROOT / "server" / "app.py").read_text())
    looping = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            names = {
                part.attr if isinstance(part, ast.Attribute) else part.id
                for part in ast.walk(node.body)
                if isinstance(part, ast.Attribute | ast.Name)
            }
            if names & LOOPING_NAMES:
                looping.append(ast.unparse(node))
    assert looping == []


def test_the_finder_follows_imports_through_other_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert reached("a", graph) == {"a": ["a"], "b": ["a", "b"], "c": ["a", "b", "c"]}


# What would call carrying out back from a decision: the executor's entries, a port that
# carries out at once (the ``Outlet`` there was), the writer's queue.
CARRYING_OUT_CALLS = {"carry_out", "carry_out_owed", "run", "hand", "hand_reading"}


def test_no_deciding_module_calls_carrying_out_back() -> None:
    calls = []
    for name, path in modules().items():
        if name not in DECIDING:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in CARRYING_OUT_CALLS
            ):
                calls.append(f"{name}: {ast.unparse(node.func)}")
    assert calls == []


def test_no_deciding_module_imports_what_carries_effects_out_or_the_edge() -> None:
    # the session desk held the writer and the relay: a session's identity and the word to
    # the node it came from are effects now (``WriteBehind``, ``TellTaken``), owed; the
    # handlers took the edge's ``Client``: they take an ``Asker`` now (server/state/askers.py)
    known = modules()
    apart = {name for name in known if name.startswith(("server.carry.", "server.edge."))}
    holding = {
        name: sorted(imported(name, path, known) & apart)
        for name, path in known.items()
        if name in DECIDING and imported(name, path, known) & apart
    }
    assert holding == {}
