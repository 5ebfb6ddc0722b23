"""The code's shape, as issue 24 asks it of every package (protocol, server, client,
bench, solrace): no import cycle, not even one imported only for type checking; no module
over 500 lines; no class over 300; and, as issue 34 asks, no module of the browser's JS over 500.
A module or class that must stay over would be named below, with why; none is (an entry
within its limit would fail too, so the lists stay true)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("protocol", "server", "client", "bench", "solrace")
MODULE_LINES = 500
CLASS_LINES = 300
MODULES_STILL_OVER: set[str] = set()
BROWSER_JS = ROOT / "client" / "web" / "js"
CLASSES_STILL_OVER: set[str] = set()


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ours that module ``name`` imports, anywhere in it (also under
    ``if TYPE_CHECKING``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            candidates = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for candidate in candidates:
            while candidate and candidate not in known:
                candidate = candidate.rpartition(".")[0]
            if candidate and candidate != name:
                targets.add(candidate)
                break
    return targets


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in graph[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_itself_back_even_for_type_checking() -> None:
    known = modules()
    graph = {name: imported(name, path, known) for name, path in known.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_three_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_module_is_over_500_lines_but_those_named_to_be_split() -> None:
    over = {
        str(path.relative_to(ROOT))
        for path in modules().values()
        if len(path.read_text().splitlines()) > MODULE_LINES
    }
    assert over == MODULES_STILL_OVER


def test_no_class_is_over_300_lines_but_those_named_to_be_split() -> None:
    over = set()
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > CLASS_LINES:
                    over.add(f"{name}.{node.name}")
    assert over == CLASSES_STILL_OVER


def test_no_module_of_the_browser_s_js_is_over_500_lines() -> None:
    scripts = sorted(BROWSER_JS.rglob("*.js"))
    assert len(scripts) > 20  # the page's modules are where this looks
    over = {
        f"{path.relative_to(ROOT)} ({lines} lines)"
        for path in scripts
        if (lines := len(path.read_text().splitlines())) > MODULE_LINES
    }
    assert over == set()
