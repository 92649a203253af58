"""pyproject.toml against what the code needs: dependency lower bounds, undeclared imports, the
single version source, py.typed and the Python classifiers."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")
requirements = pytest.importorskip("packaging.requirements")
from packaging.specifiers import SpecifierSet  # noqa: E402 - after the skip above
from packaging.utils import canonicalize_name  # noqa: E402
from packaging.version import Version  # noqa: E402

import aucopt  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = [REPO / "aucopt", REPO / "formulations"]  # formulations/ is installed as aucopt.formulations

#: the oldest version of each dependency (and build requirement) that the code works with, and why;
#: the declared lower bound must be at least this
NEEDED = {
    "scikit-learn": ("1.6", "BaseEstimator.__sklearn_tags__ and sklearn.utils.validation.validate_data"),
    "numpy": ("1.19.5", "the minimum of scikit-learn 1.6; np.random.Generator and initial= of reductions"),
    "scipy": ("1.6", "the minimum of scikit-learn 1.6; scipy.linalg.eigh / solve(assume_a='pos')"),
    "osqp": ("1.0", "the OSQP 1.0 API: settings fields such as 'polishing', setup's solver_type / cg_preconditioner"),
    "joblib": ("1.2", "the minimum of scikit-learn 1.6"),
    "numba": ("0.61", "wheels for every supported Python (3.13 from 0.61) and numpy 2; njit(cache=True)"),
    "setuptools": ("77", "the SPDX license expression string (license = 'BSD-3-Clause', PEP 639)"),
}


@pytest.fixture(scope="module")
def pyproject():
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def _requirements(strings):
    return {canonicalize_name(r.name): r for r in map(requirements.Requirement, strings)}


def _lower_bound(specifier: SpecifierSet):
    bounds = [Version(s.version) for s in specifier if s.operator in (">=", "==", "~=", ">")]
    return max(bounds) if bounds else None


@pytest.fixture(scope="module")
def dependencies(pyproject):
    return _requirements(pyproject["project"]["dependencies"])


# ============================================================================ lower bounds
@pytest.mark.parametrize("name", sorted(NEEDED))
def test_declared_lower_bounds_cover_what_the_code_needs(name, pyproject, dependencies):
    needed, why = NEEDED[name]
    declared = dependencies if name != "setuptools" else _requirements(pyproject["build-system"]["requires"])
    assert canonicalize_name(name) in declared, f"{name} is not declared (needed: >= {needed}, {why})"
    bound = _lower_bound(declared[canonicalize_name(name)].specifier)
    assert bound is not None, f"{name} has no lower bound; the code needs >= {needed} ({why})"
    assert bound >= Version(needed), f"{name} >= {bound} is declared, but the code needs >= {needed} ({why})"


def test_installed_versions_satisfy_the_declared_bounds(dependencies):
    for name, requirement in dependencies.items():
        installed = importlib.metadata.version(name)
        assert requirement.specifier.contains(installed, prereleases=True), (name, installed, str(requirement))


def test_the_license_is_an_spdx_expression_without_license_classifiers(pyproject):
    project = pyproject["project"]
    assert project["license"] == "BSD-3-Clause"
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]  # PEP 639 forbids both


def test_the_license_reaches_the_installed_metadata(pyproject):
    """Core metadata 2.4: License-Expression (what ``pip show`` prints from pip 25.1 on) and the
    license file; the deprecated free-text License field stays unset (PEP 639 makes the two
    exclusive), so a pip older than 25.1 shows an empty "License:"."""
    assert pyproject["project"]["license-files"] == ["LICENSE"]
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("BSD 3-Clause License")
    metadata = importlib.metadata.metadata("aucopt")
    assert Version(metadata["Metadata-Version"]) >= Version("2.4"), (
        "the installed metadata is stale: reinstall (pip install -e .) with setuptools >= 77")
    assert metadata["License-Expression"] == "BSD-3-Clause"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata.get("License") is None


# ============================================================================ imports are declared
def _top_level_imports():
    """Third-party modules imported at the top level of any module of the package (not inside a
    function or a try block: optional dependencies are imported where they are used)."""
    found = {}
    for folder in PACKAGE_DIRS:
        for path in folder.rglob("*.py"):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top != "aucopt":
                        found.setdefault(top, []).append(str(path.relative_to(REPO)))
    return found


def test_every_top_level_import_is_a_declared_dependency(dependencies):
    imports = _top_level_imports()
    assert {"numpy", "scipy", "sklearn"} <= set(imports)  # the walk sees the package
    distributions = importlib.metadata.packages_distributions()
    undeclared = {}
    for module, files in imports.items():
        names = {canonicalize_name(d) for d in distributions.get(module, [module])}
        if not names & set(dependencies):
            undeclared[module] = (sorted(names), files[:3])
    assert not undeclared, f"imported at module level but not in [project].dependencies: {undeclared}"


# ============================================================================ version, py.typed, Python
def test_version_is_dynamic_and_read_from_one_file(pyproject):
    project = pyproject["project"]
    assert "version" not in project and "version" in project.get("dynamic", [])
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "aucopt._version.__version__"}
    tree = ast.parse((REPO / "aucopt" / "_version.py").read_text(encoding="utf-8"))
    literal = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
               and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"]]
    assert literal == [aucopt.__version__]
    Version(aucopt.__version__)  # a valid PEP 440 version
    assert aucopt.__version__ == importlib.metadata.version("aucopt"), (
        "the installed metadata is stale: reinstall (pip install -e .) after changing aucopt/_version.py")
    others = [p for p in REPO.glob("aucopt/**/*.py") if p.name != "_version.py"
              and re.search(r"__version__\s*=\s*['\"]", p.read_text(encoding="utf-8"))]
    assert not others, f"a second version source: {others}"


def test_py_typed_ships(pyproject):
    assert (REPO / "aucopt" / "py.typed").is_file()
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["aucopt"]
    assert "Typing :: Typed" in pyproject["project"]["classifiers"]


def test_classifiers_list_exactly_the_supported_pythons(pyproject):
    project = pyproject["project"]
    requires = SpecifierSet(project["requires-python"])
    listed = sorted(Version(m.group(1)) for c in project["classifiers"]
                    if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c)))
    assert listed, "no 'Programming Language :: Python :: 3.X' classifier"
    assert all(requires.contains(str(v)) for v in listed), f"classifiers outside requires-python: {listed}"
    oldest = min(v for v in (Version(f"3.{minor}") for minor in range(0, 30)) if requires.contains(str(v)))
    expected = [Version(f"3.{minor}") for minor in range(oldest.minor, listed[-1].minor + 1)]
    assert listed == expected, f"requires-python {requires} from {oldest}: classifiers {listed}, expected {expected}"
    running = Version(f"{sys.version_info.major}.{sys.version_info.minor}")
    assert running in listed and requires.contains(str(running))


# ============================================================================ aucopt.formulations
def _python(code: str, cwd: Path) -> list[str]:
    """Run ``code`` in a fresh interpreter started in ``cwd``; its output lines."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()


SHOW_FORMULATIONS = """
import sys
import aucopt, aucopt.formulations, aucopt.formulations.lp_ranker
from aucopt._formulations_path import CheckoutFormulationsFinder
print(aucopt.__file__)
print(aucopt.formulations.__file__)
print(any(isinstance(f, CheckoutFormulationsFinder) for f in sys.meta_path))
print("lp_ranker" in aucopt.available_formulations())
"""


def test_every_subpackage_is_listed(pyproject):
    """The wheel carries the packages listed in ``[tool.setuptools] packages`` (tests/test_install.py
    builds one); a new subpackage left out of the list would be missing from it."""
    on_disk = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "aucopt").rglob("__init__.py")}
    on_disk.add("aucopt.formulations")  # the top-level formulations/ folder (package-dir)
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    assert on_disk == listed, f"not listed: {sorted(on_disk - listed)}; listed but absent: {sorted(listed - on_disk)}"


def test_the_packaging_maps_formulations_without_the_checkout_finder(pyproject, tmp_path):
    """``[tool.setuptools.package-dir]`` maps formulations/ to aucopt.formulations, for the wheel
    (tests/test_install.py) and the editable install alike: the installed aucopt, imported from an
    unrelated directory, finds its formulations without the checkout's finder."""
    assert pyproject["tool"]["setuptools"]["package-dir"] == {"aucopt.formulations": "formulations"}
    assert "aucopt.formulations" in pyproject["tool"]["setuptools"]["packages"]
    package, formulations, finder, registered = _python(SHOW_FORMULATIONS, tmp_path)[-4:]
    installed = Path(package).resolve().parent
    expected = REPO / "formulations" if installed == REPO / "aucopt" else installed / "formulations"
    assert Path(formulations).resolve() == expected / "__init__.py"
    assert (finder, registered) == ("False", "True")


def test_a_source_checkout_finds_formulations_by_its_finder():
    """Python started in the repository root without any install of aucopt (the editable install's
    finder removed): the checkout's aucopt/ is imported and finds the top-level formulations/ folder
    through the one finder of aucopt._formulations_path, submodules included."""
    hide_install = ("import sys\nsys.meta_path[:] = [f for f in sys.meta_path\n"
                    "                 if not getattr(f, '__module__', '').startswith('__editable__')]\n")
    package, formulations, finder, registered = _python(hide_install + SHOW_FORMULATIONS, REPO)[-4:]
    assert Path(package).resolve() == REPO / "aucopt" / "__init__.py"
    assert Path(formulations).resolve() == REPO / "formulations" / "__init__.py"
    assert (finder, registered) == ("True", "True")


def test_the_checkout_finder_answers_one_name_and_its_submodules(monkeypatch, tmp_path):
    from aucopt import _formulations_path as shim

    folder = tmp_path / "formulations"
    folder.mkdir()
    (folder / "__init__.py").write_text("SHIPPED = ['demo']\n", encoding="utf-8")
    (folder / "demo.py").write_text("VALUE = 3\n", encoding="utf-8")
    monkeypatch.setattr(shim, "NAME", "aucopt.formulations_demo")  # a name no install provides
    monkeypatch.setattr(shim, "CHECKOUT_FOLDER", folder)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))  # the finder added below leaves with the test
    for name in ("aucopt.formulations_demo", "aucopt.formulations_demo.demo"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.delattr(aucopt, "formulations_demo", raising=False)
    module = shim.ensure_formulations_package()
    assert module.__name__ == "aucopt.formulations_demo" and module.SHIPPED == ["demo"]
    assert shim.ensure_formulations_package() is module and aucopt.formulations_demo is module
    assert importlib.import_module("aucopt.formulations_demo.demo").VALUE == 3
    assert sum(isinstance(f, shim.CheckoutFormulationsFinder) for f in sys.meta_path) == 1
    assert shim.CheckoutFormulationsFinder(folder).find_spec("aucopt.other", None) is None
    # a checkout that lost its formulations/ folder (no finder added yet in that process)
    finders = [f for f in sys.meta_path if not isinstance(f, shim.CheckoutFormulationsFinder)]
    monkeypatch.setattr(sys, "meta_path", finders)
    monkeypatch.setattr(shim, "CHECKOUT_FOLDER", tmp_path / "nowhere")
    monkeypatch.setattr(shim, "NAME", "aucopt.formulations_gone")
    with pytest.raises(ImportError, match=r"^aucopt's formulations were not found: no subpackage "
                                          r"aucopt\.formulations_gone and no folder .*restore the formulations/"):
        shim.ensure_formulations_package()


# ----------------------------------------------------------------------------- a start that costs nothing
HEAVY = ("numba", "cvxpy", "dask", "distributed", "matplotlib", "lifelines")


def _modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_import_aucopt_imports_nothing_heavy():
    """``import aucopt`` binds its public names lazily: not even scikit-learn is imported."""
    assert not _modules_after("import aucopt") & {*HEAVY, "sklearn", "scipy"}


def test_the_public_names_import_no_optional_engine_until_used():
    """Every public name (every estimator class included) is importable without numba, cvxpy, dask,
    matplotlib or lifelines: they are imported when a fit, a plot or a dask input needs them."""
    loaded = _modules_after("import aucopt\nfor name in aucopt.__all__: getattr(aucopt, name)")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_version_and_help_import_no_estimator():
    loaded = _modules_after("from aucopt.cli import build_parser\nbuild_parser().format_help()")
    assert not loaded & {*HEAVY, "sklearn", "scipy"}


# ============================================================================ numba's cache
def test_a_kernel_cache_is_stale_when_a_kernel_module_beside_it_changes(tmp_path):
    """numba keys a cache on the bytes of its function's own file; aucopt's locators key it on every
    kernel module of the folder (those that mention njit or intrinsic), so an edit of a compiled
    helper's module alone (or an upgrade of it alone) compiles the kernels that call it again, while
    other modules of the folder do not count. Every place the cache may go takes that stamp."""
    from numba.core.caching import CacheImpl, InTreeCacheLocator, UserProvidedCacheLocator

    from aucopt import _numba
    from aucopt.online import _onepass_full

    folder = tmp_path / "online"
    folder.mkdir()
    kernel, helper, plain = folder / "_kernel.py", folder / "_helper.py", folder / "_plain.py"
    kernel.write_text("from .._numba import njit\nfrom ._helper import twice\n", encoding="utf-8")
    helper.write_text("from numba.extending import intrinsic\n", encoding="utf-8")
    plain.write_text("x = 1\n", encoding="utf-8")
    stamp = _numba.kernel_sources_stamp(kernel)
    plain.write_text("x = 22\n", encoding="utf-8")
    assert _numba.kernel_sources_stamp(kernel) == stamp
    helper.write_text("from numba.extending import intrinsic\n# changed\n", encoding="utf-8")
    assert _numba.kernel_sources_stamp(kernel) != stamp

    locators = CacheImpl._locator_classes
    assert locators.index(_numba.ProvidedDirCacheLocator) == locators.index(UserProvidedCacheLocator) - 1
    assert locators.index(_numba.SourceCheckoutCacheLocator) == locators.index(InTreeCacheLocator) - 1
    source = Path(_onepass_full.__file__).resolve()
    locator = _numba.SourceCheckoutCacheLocator.from_function(_onepass_full.stream_dense_full.py_func, str(source))
    assert locator is not None  # the tests run from a source checkout
    assert locator.get_source_stamp() == _numba.kernel_sources_stamp(source.parent / "_simd.py")
    cache = _onepass_full.stream_dense_full._cache
    assert isinstance(cache._impl.locator, _numba.SourceCheckoutCacheLocator)
    assert _numba.SourceCheckoutCacheLocator.from_function(_onepass_full.stream_dense_full.py_func,
                                                           str(tmp_path / "elsewhere.py")) is None


def test_compiled_kernels_cache_beside_the_source_only_in_a_checkout(tmp_path, monkeypatch):
    """A kernel of an installed copy is cached in the user's cache directory, not in the package
    folder (which ``pip uninstall`` would then leave behind); a checkout's stays in ``__pycache__``."""
    from numba.core.caching import CacheImpl, InTreeCacheLocator, UserWideCacheLocator

    from aucopt import _numba

    def kernel(x):
        return x + 1

    locators = CacheImpl._locator_classes
    assert locators.index(_numba.InstalledCopyCacheLocator) < locators.index(InTreeCacheLocator)
    checkout = Path(aucopt.__file__).resolve().parent
    assert _numba.InstalledCopyCacheLocator.from_function(kernel, str(checkout / "pairs" / "_sweeps.py")) is None

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    installed = tmp_path / "site-packages" / "aucopt"
    (installed / "pairs").mkdir(parents=True)
    source = installed / "pairs" / "_sweeps.py"
    source.write_text("", encoding="utf-8")
    monkeypatch.setattr(_numba.InstalledCopyCacheLocator, "package", installed)
    locator = _numba.InstalledCopyCacheLocator.from_function(kernel, str(source))
    expected = UserWideCacheLocator(kernel, str(source)).get_cache_path()
    assert locator is not None and locator.get_cache_path() == expected
    assert tmp_path / "cache" in Path(expected).parents and Path(expected).is_dir()
    assert _numba.InstalledCopyCacheLocator.from_function(kernel, str(tmp_path / "other.py")) is None
    (tmp_path / "site-packages" / "pyproject.toml").write_text("", encoding="utf-8")  # a checkout after all
    assert _numba.InstalledCopyCacheLocator.from_function(kernel, str(source)) is None
