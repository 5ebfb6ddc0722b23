"""``server/`` is a closed edge: nothing outside it (the core, the client, the benchmarks)
imports ``redis`` or the server's internals. The benchmarks may read the server's public
settings (``server.config``) and start its own in-process benches (``server.bench``); the
``solrace`` command reaches ``solrace serve`` by the module's name only."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"server.config", "server.store.redis_bench", "server.bench.passwords"}


def test_nothing_outside_server_imports_redis_or_the_server_s_internals() -> None:
    crossings = []
    for package in ("protocol", "client", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top == "redis" or (top == "server" and name not in ALLOWED):
                        crossings.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert crossings == []
