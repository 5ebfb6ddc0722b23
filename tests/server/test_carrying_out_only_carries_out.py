"""Decisions return effects, and carrying them out only carries out (issue 34): read from
the import graph, no module that carries out (the executor, the writer, the answers, the
outbox, the relay, the feeds, the ticker, the sweeper, ...) imports a module that decides
(a desk, the race service, the director, rating, ...), not even through another module;
what a timer, a write or news leaves to decide is handed to the decider as an input, one
decision per input type; and the server's composition root closes no loop through a
lambda. The act path's stack (it turns back once at most) is ``test_act_path.py``'s."""

from __future__ import annotations

import ast

from test_code_shape import ROOT, imported, modules

from server import inputs
from server.deciding import AT_ONCE, READING

CARRYING_OUT = {
    "server.executor",
    "server.writer",
    "server.answers",
    "server.outbox",
    "server.relay",
    "server.feeds",
    "server.connection",
    "server.ticker",
    "server.sweeper",
    "server.sessions",
    "server.lines",
    "server.rooms",
    "server.retrying",
    # what both sides speak, declared apart from either
    "server.effects",
    "server.inputs",
    "server.ports",
    "server.jobs",
    "server.node_news",
    "server.moment",
}
DECIDING = {
    "server.deciding",
    "server.director",
    "server.race_service",
    "server.rating",
    "server.results",
    "server.telling",
    "server.replica",
    "server.read_back",
    "server.spectating",
    "server.session_desk",
    "server.account_desk",
    "server.daily",
    "server.pairing",
    "server.challenges",
    "server.admin",
    "server.handlers",
    "server.request_table",
    "server.fairplay",
    "server.standing",
    "server.profiles",
}
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
    assert set(known) >= CARRYING_OUT | DECIDING  # the lists name modules that exist
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
