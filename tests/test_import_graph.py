"""Imports flow one way and through public doors.

The import graph of every module of the package (``aucopt/`` and the top-level ``formulations/``
folder, installed as ``aucopt.formulations``) is read from the source with :mod:`ast`: every
``import`` and ``from ... import`` statement anywhere in a module (also inside functions), except
those under ``if TYPE_CHECKING:``. An edge goes to the module named: ``from aucopt.x import name``
to ``aucopt.x.name`` when that is a submodule, else to ``aucopt.x`` (a package: its ``__init__``).
Parent packages that the import system runs on the way are not edges, so ``aucopt/__init__.py``
importing its subpackages is fine as long as no module imports back from that ``__init__``.
Dynamic imports (``importlib.import_module``, the array backends of :mod:`aucopt._dispatch`) are
not statements and not edges.

The rules, each with the modules and lines that break it in the failure message:

* no cycle: the strongly connected components of the graph are single modules;
* no ``_private`` name (one leading underscore) imported from a module of another subpackage;
  the top-level modules of ``aucopt`` form one subpackage, and its private modules
  (``aucopt/_memory.py``, ``aucopt/_validation.py``, ...) are shared internals: any module may
  import them and their public names;
* no import from a private module of another subpackage (``aucopt.pairs._pairset`` from
  ``aucopt.metrics``): import from that subpackage's ``__init__`` or a public module of it.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the package's source folders and the module name each is installed under
SOURCES = {"aucopt": REPO / "aucopt", "aucopt.formulations": REPO / "formulations"}


@dataclass(frozen=True)
class Import:
    """One import statement's edge: ``importer`` (line ``line``) imports ``target``, or ``name`` from it."""

    importer: str
    line: int
    target: str
    name: str | None = None

    def __str__(self) -> str:
        what = f"{self.name} from {self.target}" if self.name else self.target
        return f"{self.importer}:{self.line} imports {what}"


# ============================================================================ the graph
def modules_of(sources: dict[str, Path]) -> dict[str, Path]:
    """Module name → source file, for every ``.py`` file under the source folders."""
    found = {}
    for prefix, folder in sources.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([prefix, *parts])] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _lazy_import(node: ast.AST) -> ast.Import | None:
    """``lazy_module("a.b")`` (aucopt._lazy) as the import it stands for."""
    if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "lazy_module"
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return ast.Import(names=[ast.alias(name=node.args[0].value)], lineno=node.lineno)
    return None


def _statements(tree: ast.AST):
    """The import statements of a module, at any depth, skipping ``if TYPE_CHECKING:`` bodies;
    a ``lazy_module("...")`` call counts as an import."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif (lazy := _lazy_import(node)) is not None:
            yield lazy
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.If) and _is_type_checking(node):
            children = node.orelse
        stack.extend(children)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rpartition(".")[0]
    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{base}.{node.module}" if node.module else base


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """The edges from ``module`` to other modules of the package."""
    edges = []
    for node in _statements(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            edges += [Import(module, node.lineno, alias.name) for alias in node.names if alias.name in modules]
            continue
        target = _absolute(node, module, path.name == "__init__.py")
        for alias in node.names:
            if f"{target}.{alias.name}" in modules:  # a submodule: an import of that module
                edges.append(Import(module, node.lineno, f"{target}.{alias.name}"))
            elif target in modules:
                edges.append(Import(module, node.lineno, target, alias.name))
    return sorted(edges, key=lambda edge: edge.line)


def import_graph(sources: dict[str, Path]) -> dict[str, list[Import]]:
    """Module name → the edges out of it."""
    modules = modules_of(sources)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


# ============================================================================ the rules
def import_cycles(graph: dict[str, list[Import]]) -> list[list[Import]]:
    """The edges inside each strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for edge in graph.get(node, ()):
            if edge.target not in index:
                visit(edge.target)
                low[node] = min(low[node], low[edge.target])
            elif edge.target in stack:
                low[node] = min(low[node], index[edge.target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [[edge for member in sorted(c) for edge in graph[member] if edge.target in c]
            for c in components if len(c) > 1 or any(e.target in c for e in graph.get(next(iter(c)), ()))]


def shortest_cycle(edges: list[Import]) -> list[Import]:
    """A shortest cycle among ``edges`` (those of one strongly connected component), as its edges."""
    out: dict[str, list[Import]] = {}
    for edge in edges:
        out.setdefault(edge.importer, []).append(edge)
    best: list[Import] = []
    for start in sorted(out):  # breadth first from each module: the first way back is its shortest cycle
        paths: dict[str, list[Import]] = {start: []}
        frontier, found = [start], None
        while frontier and found is None:
            step = []
            for node in frontier:
                for edge in out.get(node, ()):
                    if edge.target == start:
                        found = found or [*paths[node], edge]
                    elif edge.target not in paths:
                        paths[edge.target] = [*paths[node], edge]
                        step.append(edge.target)
            frontier = step
        if found and (not best or len(found) < len(best)):
            best = found
    return best


def subpackage(module: str, modules: dict[str, list[Import]]) -> str:
    """``aucopt.<sub>`` for a module of a subpackage (the subpackage itself included), else ``aucopt``."""
    parts = module.split(".")
    if len(parts) > 1 and any(name.startswith(f"{parts[0]}.{parts[1]}.") for name in modules):
        return f"{parts[0]}.{parts[1]}"
    return parts[0]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(graph: dict[str, list[Import]]) -> tuple[list[Import], list[Import]]:
    """The imports of private names, and those from private modules, across subpackages."""
    names, modules = [], []
    for importer, edges in graph.items():
        for edge in edges:
            inside = subpackage(edge.target, graph)
            if inside == subpackage(importer, graph):
                continue
            if edge.name is not None and _private(edge.name):
                names.append(edge)
            below = edge.target[len(inside) + 1:].split(".") if edge.target != inside else []
            if inside.count(".") and any(_private(part) for part in below):
                modules.append(edge)
    return names, modules


def _lines(edges: list[Import]) -> list[str]:
    """One line per import statement: the names it imports from one module grouped."""
    grouped: dict[tuple[str, int, str], list[str]] = {}
    for edge in edges:
        grouped.setdefault((edge.importer, edge.line, edge.target), []).append(edge.name or "")
    return [f"{importer}:{line} imports " + (f"{', '.join(names)} from {target}" if any(names) else target)
            for (importer, line, target), names in grouped.items()]


def _report(title: str, edges: list[Import]) -> str:
    return f"{title}:\n" + "\n".join(f"  {line}" for line in _lines(edges))


def _cycle_report(edges: list[Import]) -> str:
    members = sorted({edge.importer for edge in edges})
    cycle = " ->\n    ".join(_lines(shortest_cycle(edges)))
    return f"import cycle among {len(members)} modules {members};\n  a shortest one:\n    {cycle}"


# ============================================================================ the package
@pytest.fixture(scope="module")
def graph() -> dict[str, list[Import]]:
    found = import_graph(SOURCES)
    assert {"aucopt", "aucopt.metrics", "aucopt.formulations"} <= set(found), "the walk missed the package"
    return found


def test_no_import_cycle(graph):
    cycles = import_cycles(graph)
    if cycles:
        pytest.fail("\n".join(_cycle_report(edges) for edges in cycles), pytrace=False)


def test_no_private_name_is_imported_from_another_subpackage(graph):
    names, _ = private_imports(graph)
    if names:
        pytest.fail(_report("private names imported across subpackages (make the name public, or move the helper "
                            "down to a top-level aucopt/_something.py module under a public name)", names),
                    pytrace=False)


def test_no_private_module_of_another_subpackage_is_imported(graph):
    _, modules = private_imports(graph)
    if modules:
        pytest.fail(_report("private modules of another subpackage imported (import from the subpackage's "
                            "__init__ or a public module of it)", modules), pytrace=False)


# ============================================================================ the checker catches breaches
def _package(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return {"pkg": root / "pkg"}


def test_the_checker_finds_cycles_and_private_imports(tmp_path):
    sources = _package(tmp_path, {
        "__init__.py": "from .a import run\nfrom . import b\n",  # the package importing its parts: no cycle
        "_shared.py": "def helper(): ...\ndef _secret(): ...\n",
        "a/__init__.py": "from ._impl import run\n",
        "a/_impl.py": "from .. import _shared\nfrom .._shared import helper\n\ndef run():\n"
                      "    from ..b.core import go  # function level: still an edge\n    return go\n",
        "b/__init__.py": "",
        "b/core.py": "from typing import TYPE_CHECKING\nfrom ..a._impl import _private_name\n"
                     "from .._shared import _secret\nif TYPE_CHECKING:\n    from .. import run\n\ndef go(): ...\n",
    })
    graph = import_graph(sources)
    assert import_graph({"pkg": sources["pkg"]})["pkg"] == [Import("pkg", 1, "pkg.a", "run"), Import("pkg", 2, "pkg.b")]
    cycles = import_cycles(graph)
    assert [sorted({e.importer for e in edges}) for edges in cycles] == [["pkg.a._impl", "pkg.b.core"]]
    assert [str(e) for e in shortest_cycle(cycles[0])] == ["pkg.a._impl:5 imports go from pkg.b.core",
                                                          "pkg.b.core:2 imports _private_name from pkg.a._impl"]
    names, modules = private_imports(graph)
    assert [str(e) for e in names] == ["pkg.b.core:2 imports _private_name from pkg.a._impl",
                                       "pkg.b.core:3 imports _secret from pkg._shared"]
    assert [str(e) for e in modules] == ["pkg.b.core:2 imports _private_name from pkg.a._impl"]
    # the fix: the helper moved down to a shared module under a public name, the route public
    (sources["pkg"] / "b" / "core.py").write_text("from .._shared import helper\n\ndef go(): ...\n")
    (sources["pkg"] / "a" / "_impl.py").write_text("from .. import _shared\n\ndef run(): ...\n")
    graph = import_graph(sources)
    assert import_cycles(graph) == [] and private_imports(graph) == ([], [])


def test_a_lazy_module_counts_as_an_import(tmp_path):
    sources = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from ._lazy import lazy_module\n_b = lazy_module('pkg.b')\n",
        "b.py": "from . import a\n",
        "_lazy.py": "def lazy_module(name): ...\n",
    })
    graph = import_graph(sources)
    assert Import("pkg.a", 2, "pkg.b") in graph["pkg.a"]
    assert [sorted({e.importer for e in edges}) for edges in import_cycles(graph)] == [["pkg.a", "pkg.b"]]
