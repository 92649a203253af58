"""The code's shape: module and function sizes, and a fully annotated public API.

ruff (complexity C901, statements PLR0915) and mypy run beside pytest in the README's test
command; the sizes ruff does not measure and the completeness of the public signatures are
held here. A function may be longer than ``MAX_FUNCTION_LINES`` only when its ``def`` line
says why, after ``# long:`` (a compiled kernel whose loop is one pass, say).
"""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import aucopt

ROOT = Path(aucopt.__file__).resolve().parent
MAX_MODULE_LINES = 900
MAX_FUNCTION_LINES = 60


def _sources():
    return sorted(ROOT.rglob("*.py"))


def _function_lines(node):
    """Code lines of a function, its docstring left out."""
    body = node.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return node.end_lineno - first.end_lineno
    return node.end_lineno - node.lineno


def test_no_module_is_above_the_size_limit():
    sizes = {path.relative_to(ROOT.parent): len(path.read_text().splitlines()) for path in _sources()}
    too_big = {str(path): n for path, n in sizes.items() if n > MAX_MODULE_LINES}
    assert not too_big, f"modules above {MAX_MODULE_LINES} lines (split them by concept): {too_big}"


def test_long_functions_say_why():
    unexplained = []
    for path in _sources():
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            n = _function_lines(node)
            header = " ".join(lines[node.lineno - 1:node.body[0].lineno - 1])
            if n > MAX_FUNCTION_LINES and "# long:" not in header:
                unexplained.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name} ({n} lines)")
    assert not unexplained, (f"functions above {MAX_FUNCTION_LINES} lines without a `# long: <reason>` on their "
                             f"def line: {unexplained}")


def _public_modules():
    names = ["aucopt"] + [m.name for m in pkgutil.walk_packages(aucopt.__path__, "aucopt.")
                          if not any(part.startswith("_") for part in m.name.split(".")[1:])
                          and not m.name.startswith("aucopt.formulations")]
    return [importlib.import_module(name) for name in names]


def _public_callables():
    seen = set()
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isclass(obj):
                for klass in obj.__mro__:
                    if not klass.__module__.startswith("aucopt"):
                        continue
                    for attr, value in vars(klass).items():
                        if attr.startswith("_") and attr != "__init__":
                            continue
                        if isinstance(value, (staticmethod, classmethod)):
                            value = value.__func__
                        if isinstance(value, property):
                            value = value.fget
                        if inspect.isfunction(value) and id(value) not in seen:
                            seen.add(id(value))
                            yield f"{name}.{attr}", value
            elif callable(obj):
                yield name, obj


def _missing_annotations(func):
    func = inspect.unwrap(func)
    signature = inspect.signature(func)
    missing = [p.name for p in signature.parameters.values()
               if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty and func.__name__ != "__init__":
        missing.append("return")
    return missing


def test_the_public_api_is_fully_annotated():
    missing = {name: gaps for name, func in _public_callables() if (gaps := _missing_annotations(func))}
    assert not missing, f"public callables with unannotated parameters or return: {missing}"


@pytest.mark.parametrize("source", ["def f(x):\n    return x\n"])
def test_the_annotation_check_can_fail(source):
    namespace = {}
    exec(source, namespace)
    assert _missing_annotations(namespace["f"]) == ["x", "return"]
