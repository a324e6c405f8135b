"""The package's shape: each folder is one layer, and a layer imports only layers below it.

The test reads every module of ``src/ranklens`` with :mod:`ast` and collects its imports of
ranklens, including the lazy ones inside functions (only imports under ``if TYPE_CHECKING:``
are left out, as they never run). It fails on an import of a layer above or beside the
importer's own, and on any circle between modules. The one exception is the short list of
thin convenience methods below (``Results.plot_dist`` and the like), which import
presentation lazily and only delegate to it; docs/architecture.md lists them too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ranklens"

# Rank of each layer folder; a module may import only folders of a lower rank (and its own).
# The top-level modules (``ranklens/__init__.py``, ``__main__``, ``examples`` ...) are the
# public facade: they may import anything and nothing inside the package imports them.
LAYERS: dict[str, int] = {
    "base": 0,
    "data": 1,
    "ranking": 2,
    "kernels": 3,
    "measures": 4,
    "evaluation": 5,
    "frontends": 6,
    "analysis": 6,
    "fusion": 6,
    "logs": 6,
    "scale": 6,
    "tensor": 6,
    "presentation": 7,
    "rag": 7,
    "workflow": 8,
    "cli": 9,
    "compat": 8,
}
FACADE = 10

# (module, function) pairs allowed to import presentation lazily: thin methods that only
# delegate (the issue that shaped this layout allows them; nothing else may).
THIN_METHODS = {
    ("ranklens.evaluation.results", "plot_dist"),
    ("ranklens.evaluation.results", "plot_delta"),
    ("ranklens.evaluation.results", "_repr_html_"),
    ("ranklens.analysis.comparison", "plot_dist"),
    ("ranklens.analysis.comparison", "plot_delta"),
    ("ranklens.analysis.comparison", "to_markdown"),
    ("ranklens.analysis.comparison", "to_latex"),
    ("ranklens.analysis.comparison", "to_csv"),
    ("ranklens.analysis.comparison", "_repr_html_"),
    ("ranklens.analysis.comparison", "__str__"),
    ("ranklens.analysis.topics", "plot"),
    ("ranklens.analysis.meta_analysis", "plot"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    for stub in PACKAGE.rglob("*.pyi"):  # native modules, known by their stubs
        parts = list(stub.relative_to(PACKAGE.parent).with_suffix("").parts)
        out.setdefault(".".join(parts), stub)
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, package: list[str]) -> Iterator[tuple[str, str, int]]:
    """(imported dotted name, enclosing function name or '', line) for each ranklens import."""

    def walk(node: ast.AST, function: str) -> Iterator[tuple[str, str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    yield from walk(other, function)
                continue
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(child, child.name)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "ranklens":
                        yield alias.name, function, child.lineno
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[: len(package) - child.level + 1]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module or ""
                if module.split(".")[0] == "ranklens":
                    for alias in child.names:
                        yield f"{module}.{alias.name}", function, child.lineno
            yield from walk(child, function)

    yield from walk(tree, "")


def _resolve(name: str, modules: dict[str, Path]) -> str:
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _rank(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] not in LAYERS):
        return FACADE
    return LAYERS[parts[1]]


def _graph() -> tuple[dict[str, set[str]], list[str]]:
    modules = _modules()
    edges: dict[str, set[str]] = {m: set() for m in modules}
    problems: list[str] = []
    for module, path in modules.items():
        if path.suffix == ".pyi":
            continue
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name, function, line in _imports(tree, package):
            target = _resolve(name, modules)
            if target == module:
                continue
            if (module, function) in THIN_METHODS and target.startswith("ranklens.presentation"):
                continue
            edges[module].add(target)
            here, there = _rank(module), _rank(target)
            same_folder = module.split(".")[:2] == target.split(".")[:2]
            if there > here or (there == here and not same_folder):
                problems.append(f"{module}:{line} imports {target} (a layer above or beside)")
    return edges, problems


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_layer_folder_is_known() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(LAYERS), f"folders without a layer rank: {folders - set(LAYERS)}"


def test_no_import_goes_up_or_sideways() -> None:
    _, problems = _graph()
    assert problems == []


def test_no_import_circles() -> None:
    edges, _ = _graph()
    assert _circles(edges) == []


def test_the_checker_sees_a_circle_and_an_upward_import() -> None:
    # the checker itself must be able to fail
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert _rank("ranklens.base.errors") < _rank("ranklens.cli.output") < _rank("ranklens")
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ranklens.cli import x\n"
        "def f():\n    from ranklens.presentation import plots\n"
    )
    assert [(n, f) for n, f, _ in _imports(tree, ["ranklens", "base"])] == [
        ("ranklens.presentation.plots", "f")
    ]
