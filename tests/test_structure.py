"""The package's imports run one way: no module imports, at any depth and from anywhere
in its body (inside a function too), a module that imports it back. Imports made only
for type checking (``if TYPE_CHECKING:``) do not count."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_tooleval"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from a.b import c``: the module a.b.c where there is one, else a.b
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
        stack.extend(ast.iter_child_nodes(node))
    return found


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    known = set(files)
    return {name: _imports(path, name, known) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected group of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_sees_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    """The check itself can fail: two modules that import each other, one of them only
    inside a function, and a third that does so only for type checking (not a cycle)."""
    graph = {"p.a": {"p.b"}, "p.b": {"p.a"}, "p.c": set()}
    assert cycles(graph) == [["p.a", "p.b"]]
    (tmp_path / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import p.a\n"
        "def f():\n    from p import c\n", encoding="utf-8")
    assert _imports(tmp_path / "b.py", "p.b", {"p.a", "p.b", "p.c", "p"}) == {"p.c"}


def _internal_imports(path: Path) -> tuple[int, int]:
    """(internal imports, of which inside a function); type-checking imports left out."""
    total = inside = 0

    def walk(node: ast.AST, in_function: bool) -> None:
        nonlocal total, inside
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                module = child.module if isinstance(child, ast.ImportFrom) else (
                    child.names[0].name)
                if (isinstance(child, ast.ImportFrom) and child.level) or (
                        module or "").startswith("pytest_tooleval"):
                    total += 1
                    inside += in_function
            walk(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    walk(ast.parse(path.read_text(encoding="utf-8")), False)
    return total, inside


def test_imports_are_at_module_top_but_for_a_few_heavy_seams() -> None:
    """At most one internal import in ten inside a function: the lazy seams that keep
    plugin load, collection and a cached check light (the trigger tables, the CLI's
    dispatch, the optional extras), not a way around an import cycle."""
    counts = [_internal_imports(path) for path in PACKAGE.rglob("*.py")]
    total, inside = sum(c[0] for c in counts), sum(c[1] for c in counts)
    assert inside <= 0.10 * total, f"{inside} of {total} internal imports inside functions"
