"""The package's import graph: no circle (function-level imports included), and the layers
hold — configuration and errors at the bottom import nothing above them; stages, the pipeline
and the CLI at the top are imported by nothing below them."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "xlebench"
#: The house in data order, bottom to top: a package imports only packages on floors below its
#: own. Scoring (`eval`) sits under the recipes (`tasks`), the answering side (`systems`) over
#: them; configuration and errors are the ground, the commands the roof. A new package must be
#: given a floor here.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("errors", "clock"),
    ("config",),
    ("runner",),
    ("llm", "manifest", "split"),
    ("library",),
    ("eval", "media", "persona"),
    ("plan", "render", "tasks"),
    ("export", "simulate", "vlm"),
    ("systems", "testing"),
    ("report",),
    ("publish",),
    ("pipeline",),
    ("stages",),
    ("commands",),
    ("api",),
    ("__main__",),
)


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


def _package(module: str) -> str:
    """``xlebench.eval.scorers.text`` -> ``eval``; ``xlebench.clock`` -> ``clock``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def floor_breaks(graph: dict[str, set[str]],
                 floors: tuple[tuple[str, ...], ...]) -> list[tuple[str, str]]:
    """The imports that go up or sideways: to another package on the same floor or above."""
    level = {p: k for k, floor in enumerate(floors) for p in floor}
    return sorted((m, d) for m, deps in graph.items() for d in deps
                  if _package(m) != _package(d) and level[_package(d)] >= level[_package(m)])


def test_no_module_imports_itself_through_others() -> None:
    """No file circle either (function-level imports included): two modules that need each
    other share a third (the hf export's schemas live apart from it and its card)."""
    assert cycles(import_graph()) == []


def test_every_package_has_a_floor() -> None:
    placed = {p for floor in FLOORS for p in floor}
    packages = {_package(m) for m in import_graph()} - {"xlebench"}
    assert packages - placed == set(), "give the new package a floor in FLOORS"
    assert placed - packages == set(), "FLOORS names a package that no longer exists"


def test_every_import_goes_down() -> None:
    assert floor_breaks({m: d for m, d in import_graph().items() if m != "xlebench"},
                        FLOORS) == []


def test_an_import_up_or_sideways_is_caught() -> None:
    floors = (("a",), ("b", "c"), ("d",))
    graph = {"x.b.one": {"x.a.z"}, "x.c.two": {"x.b.one"}, "x.a.z": {"x.d.w"},
             "x.d.w": {"x.c.two", "x.b.one"}}
    assert floor_breaks(graph, floors) == [("x.a.z", "x.d.w"), ("x.c.two", "x.b.one")]


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


#: The recipe families and the packages of what several families share (by role).
FAMILIES = ("xlebench", "egoschema", "neptune", "vidsitu", "multihop")
ROLES = ("recipe", "language", "choices", "screening")


def _tasks_package(module: str) -> str | None:
    """``xlebench.tasks.neptune.neptune_qa`` -> ``neptune``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "tasks" else None


def test_tasks_holds_families_and_roles_only() -> None:
    """`xlebench.tasks` is its families (each its recipes and what only they use) and the
    packages of what several share, named for their role: no module beside them, no folder
    named helpers, utils or common anywhere in the package."""
    root = PACKAGE / "tasks"
    assert sorted(p.stem for p in root.glob("*.py")) == ["__init__"]
    assert sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != "__pycache__") \
        == sorted(FAMILIES + ROLES)
    banned = [p for p in PACKAGE.rglob("*") if p.is_dir() and p.name in
              ("helpers", "utils", "common")]
    assert banned == []


def test_every_recipe_lives_in_its_family_and_roles_declare_none() -> None:
    import importlib

    from xlebench.tasks.recipe.registry import Recipe, builtin_modules

    where = {m.split(".")[2] for m in builtin_modules().values()}
    assert where == set(FAMILIES)
    for role in ROLES:
        for path in (PACKAGE / "tasks" / role).glob("*.py"):
            module = importlib.import_module(f"xlebench.tasks.{role}.{path.stem}")
            assert not isinstance(getattr(module, "RECIPE", None), Recipe), path


def test_no_family_imports_another_and_no_role_imports_a_family() -> None:
    """A family can be removed or replaced alone; what two share lives in a role package."""
    found = [(m, d) for m, deps in import_graph().items() for d in deps
             if (a := _tasks_package(m)) and (b := _tasks_package(d)) and a != b
             and b in FAMILIES]
    assert found == []


def test_no_recipe_imports_another_recipe() -> None:
    """Within a family too: what two recipes share is a module of the family, not a
    recipe, so a recipe can be removed alone."""
    from xlebench.tasks.recipe.registry import builtin_modules

    recipes = set(builtin_modules().values())
    found = [(m, d) for m, deps in import_graph().items() if m in recipes
             for d in deps if d in recipes]
    assert found == []


def test_no_module_is_over_400_lines() -> None:
    """Small modules: one past 400 lines is split along a seam a reader would name."""
    long = {name: n for name, path in _modules().items()
            if (n := len(path.read_text("utf-8").splitlines())) > 400}
    assert not long, long


def test_eval_is_grouped_by_role() -> None:
    """`xlebench.eval` keeps its results at the top (at most ten modules) and its metrics,
    panel, judges and scorers in rooms of their own; every metric module opens with the
    official source and commit it equals."""
    root = PACKAGE / "eval"
    assert len(list(root.glob("*.py"))) <= 10, sorted(p.name for p in root.glob("*.py"))
    rooms = {p.name for p in root.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert rooms == {"metrics", "panel", "judges", "scorers"}
    for path in sorted((root / "metrics").glob("*.py")):
        first = ast.get_docstring(ast.parse(path.read_text("utf-8"))) or ""
        assert first.startswith("Equals: "), f"{path.name} names no official source"
