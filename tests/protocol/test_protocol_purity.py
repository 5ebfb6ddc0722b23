"""``protocol/`` is pure: importing it brings in no I/O or concurrency, and no module under it
reads a clock or the global random generator. Everything arrives as arguments."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import protocol

PROTOCOL_DIR = Path(protocol.__file__).parent
FORBIDDEN_IMPORTS = {"time", "random", "asyncio", "socket", "threading", "websockets", "redis"}
FORBIDDEN_MODULES_LOADED = ["asyncio", "websockets", "redis", "socket", "threading"]
CLOCK_READS = {"now", "utcnow", "today"}


def test_importing_every_protocol_module_loads_no_io_or_concurrency() -> None:
    script = (
        "import importlib, json, pkgutil, sys\n"
        "import protocol\n"
        "names = [m.name for m in pkgutil.walk_packages(protocol.__path__, 'protocol.')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps([names, [m for m in {FORBIDDEN_MODULES_LOADED!r} "
        "if m in sys.modules]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    imported, loaded = json.loads(done.stdout)
    assert {"protocol.engine", "protocol.games.sanibel", "protocol.replay"} <= set(imported)
    assert loaded == []


def forbidden_uses(source: str) -> list[tuple[int, str]]:
    """Each import of a forbidden module and each clock read in ``source``, by line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.split(".")[0] in FORBIDDEN_IMPORTS]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in FORBIDDEN_IMPORTS:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Attribute):
            if node.attr in CLOCK_READS:
                found.append((node.lineno, node.attr))
            elif node.attr == "time" and getattr(node.value, "id", "") == "time":
                found.append((node.lineno, "time.time"))
    return sorted(found)


def test_no_protocol_module_imports_a_clock_the_global_random_or_io() -> None:
    files = sorted(PROTOCOL_DIR.rglob("*.py"))
    assert PROTOCOL_DIR / "engine.py" in files
    found = [
        f"{path.relative_to(PROTOCOL_DIR.parent)}:{line}: {what}"
        for path in files
        for line, what in forbidden_uses(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_scan_finds_what_it_is_meant_to_refuse() -> None:
    source = (
        "import time\n"
        "from random import choice\n"
        "import os, asyncio.tasks\n"
        "import datetime as dt\n"
        "x = dt.datetime.now()\n"
        "y = dt.date.today()\n"
        "z = datetime.utcnow()\n"
        "t = time.time()\n"
        "import hashlib\n"
    )
    assert [what for _, what in forbidden_uses(source)] == [
        "time",
        "random",
        "asyncio.tasks",
        "now",
        "today",
        "utcnow",
        "time.time",
    ]
