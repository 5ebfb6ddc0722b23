"""``server/`` is a closed edge: nothing outside it (the core, the client, the benchmarks)
imports ``redis`` or the server's internals; inside it, only the parts that send hold the
outbox (issue 24: rooms and desks return what to send). The benchmarks may read the server's public
settings (``server.config``), start its own in-process benches (``server.bench``) and open a
store by its public face (``server.store``, to set what a bench needs, such as a day's deal); the
``solrace`` command reaches ``solrace serve`` by the module's name only."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {
    "server.config",
    "server.store.redis_bench",
    "server.store.redis_clients_bench",
    "server.bench.passwords",
}
BENCH_ALLOWED = ALLOWED | {"server.store"}  # the store's public face: open_store
# the parts that write to sockets; rooms and desks return what to send
SENDERS = {"answers", "feeds", "sessions", "app"}


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
        path.stem
        for path in (ROOT / "server").glob("*.py")
        if any(name == "server.outbox" for _, name in imports(path))
    }
    assert holders == SENDERS


def test_nothing_outside_server_imports_redis_or_the_server_s_internals() -> None:
    crossings = []
    for package in ("protocol", "client", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, name in imports(path):
                top = name.split(".")[0]
                allowed = BENCH_ALLOWED if package == "bench" else ALLOWED
                if top == "redis" or (top == "server" and name not in allowed):
                    crossings.append(f"{path.relative_to(ROOT)}:{line} {name}")
    assert crossings == []
