"""``server/`` is a closed edge: nothing outside it (the core, the client, the benchmarks, the
launcher) imports ``redis`` or the server's internals; inside it, only the parts that send hold the
outbox (issue 24: rooms and desks return what to send), and a player is apart from their
line (issue 34): no module that decides (the desks, the rooms, the followed races, the
decider) imports websockets, the connection, the lines or the outbox, or reads a
connection, a line, a transport or an encoding off anything; the account desk holds no
writer (it returns its writes as effects). The benchmarks may read the server's public
settings (``server.config``), open a store by its public face (``server.store``: to set what a
bench needs, such as a day's deal, or to write the server's jobs), read the password settings
(``server.desks.passwords``) and start the store's own wire-client bench (``redis_clients_bench``:
it is about the store's internals); the server imports nothing from ``bench/``; the
``solrace`` command reaches ``solrace serve`` by the module's name only."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"server.config", "server.store.redis_clients_bench"}
BENCH_ALLOWED = ALLOWED | {"server.store", "server.desks.passwords"}  # public faces
# the parts that write to sockets; rooms and desks return what to send
SENDERS = {"server/edge/feeds.py", "server/edge/lines.py", "server/app.py"}
# what only the edge may hold: the socket, a player's line, the frames written to it
EDGE_MODULES = {"websockets", "server.edge.connection", "server.edge.lines", "server.edge.outbox"}
EDGE_ATTRIBUTES = {"connection", "line", "transport", "encoding", "outbox"}


def imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
    return found


def test_only_the_sending_parts_hold_the_outbox() -> None:
    holders = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "server").rglob("*.py")
        if any(name == "server.edge.outbox" for _, name in imports(path))
    }
    assert holders == SENDERS


def test_nothing_outside_server_imports_redis_or_the_server_s_internals() -> None:
    crossings = []
    for package in ("protocol", "client", "bench", "solrace"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, name in imports(path):
                top = name.split(".")[0]
                allowed = BENCH_ALLOWED if package == "bench" else ALLOWED
                if top == "redis" or (top == "server" and name not in allowed):
                    crossings.append(f"{path.relative_to(ROOT)}:{line} {name}")
    assert crossings == []


def test_the_server_imports_nothing_from_the_benchmarks() -> None:
    crossings = [
        f"{path.relative_to(ROOT)}:{line} {name}"
        for path in sorted((ROOT / "server").rglob("*.py"))
        for line, name in imports(path)
        if name.split(".")[0] == "bench"
    ]
    assert crossings == []
    assert not (ROOT / "server" / "bench").exists()


def deciding_modules() -> dict[str, Path]:
    """The modules that decide, and the rooms (``test_carrying_out_only_carries_out``)."""
    from test_carrying_out_only_carries_out import DECIDING

    return {
        name: ROOT / f"{name.replace('.', '/')}.py" for name in DECIDING | {"server.state.rooms"}
    }


def edge_touched(path: Path) -> list[str]:
    """Where ``path`` imports an edge module or reads an edge attribute off anything."""
    touched = [
        f"{line}: imports {name}"
        for line, name in imports(path)
        if any(name == edge or name.startswith(f"{edge}.") for edge in EDGE_MODULES)
    ]
    tree = ast.parse(path.read_text())
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    touched += [  # a method of that name (the solver's ``line``) is no line
        f"{node.lineno}: reads .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in EDGE_ATTRIBUTES
        and id(node) not in called
    ]
    return touched


def test_no_module_that_decides_sees_a_connection_or_a_line() -> None:
    touching = {}
    for name, path in sorted(deciding_modules().items()):
        assert path.exists(), name
        if touched := edge_touched(path):
            touching[name] = touched
    assert touching == {}


def test_the_account_desk_holds_no_writer_and_no_session_registry() -> None:
    names = {name for _, name in imports(ROOT / "server" / "desks" / "account_desk.py")}
    assert "server.carry.writer" not in names
    source = (ROOT / "server" / "desks" / "account_desk.py").read_text()
    assert "Sessions" not in source and ".stored(" not in source


def test_the_finder_sees_an_edge_import_and_an_edge_attribute(tmp_path: Path) -> None:
    module = tmp_path / "desk.py"
    module.write_text("from server.edge.lines import Lines\n\ndef f(c):\n    return c.connection\n")
    assert edge_touched(module) == ["1: imports server.edge.lines", "4: reads .connection"]
