"""The package's import graph: no circle (function-level imports included), and the layers
hold — configuration and errors at the bottom import nothing above them; stages, the pipeline
and the CLI at the top are imported by nothing below them."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "xlebench"
#: The ground: everything may import these, they import only each other.
GROUND = ("xlebench.errors", "xlebench.clock", "xlebench.config")
#: The top: stage classes, the pipeline that runs them, publication, the CLI.
TOP = ("xlebench.stages", "xlebench.pipeline", "xlebench.cli", "xlebench.__main__",
       "xlebench.configstore", "xlebench.validate")


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """``from xlebench.a.b import c``: module ``xlebench.a.b.c`` if it exists, else
    ``xlebench.a.b``."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                if t.startswith("xlebench") and (dep := _resolve(t, modules)) not in (None, name):
                    deps.add(dep)
        graph[name] = {d for d in deps if d != "xlebench"}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _within(name: str, layer: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in layer)


def test_every_import_names_a_module_of_the_package() -> None:
    """A function-level import of a module that moved is found here, not by a user."""
    import importlib
    import importlib.util

    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.startswith("xlebench"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    assert hasattr(module, alias.name) or importlib.util.find_spec(
                        f"{node.module}.{alias.name}") is not None, (name, node.module, alias.name)


def test_no_import_circle() -> None:
    assert cycles(import_graph()) == []


def test_a_circle_is_caught() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_ground_imports_nothing_above_it() -> None:
    bad = [(m, d) for m, deps in import_graph().items() if _within(m, GROUND)
           for d in deps if not _within(d, GROUND)]
    assert bad == []


def test_nothing_below_imports_the_top() -> None:
    bad = [(m, d) for m, deps in import_graph().items() if not _within(m, TOP)
           for d in deps if _within(d, TOP)]
    assert bad == []


def test_every_path_the_architecture_doc_names_exists() -> None:
    """`docs/architecture.md` names modules and files; each exists (from the repository, from
    the package, or — a bare module name in a package's row — somewhere in the package)."""
    import re

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "architecture.md").read_text()
    names = {p for p in re.findall(r"`([\w/.-]+\.(?:py|yaml|md))(?::\w+)?`", text)}
    package = {p.name for p in (root / "xlebench").rglob("*.py")}
    missing = [p for p in sorted(names) if not (root / p).exists()
               and not (root / "xlebench" / p).exists() and ("/" in p or p not in package)]
    assert not missing, missing


def test_no_stage_imports_another_stage() -> None:
    """Stages share config readers through `xlebench.stages.readers`, never each other."""
    root = Path(__file__).resolve().parents[1] / "xlebench" / "stages"
    stages = {p.stem for p in root.glob("*.py")} - {"__init__", "readers"}
    found = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.startswith("xlebench.stages."):
                other = node.module.split(".")[2]
                if other in stages and other != path.stem:
                    found.append(f"{path.stem} -> {other}")
    assert not found, found
