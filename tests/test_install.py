"""The package as a new user gets it: a wheel of this checkout, installed into a prefix of its own.

A wheel is built once per session from a copy of the working tree (``pip wheel --no-deps``, with
build isolation, so the declared build requirements are what builds it) and installed with
``pip install --no-deps --target <prefix>`` (the prefix is kept for the next run with the files of
the new install, so that the numba cache of unchanged modules stays warm: see the ``prefix`` fixture). Then, with
``PYTHONPATH=<prefix>``:

* every ```` ```python ```` block of README.md, concatenated in order and read at run time, runs
  (a) from the repository root, where the checkout's ``aucopt/`` shadows the installed package
  (a script or notebook started there: the ``aucopt.formulations`` import error reported in
  issue 10), and (b) from an unrelated directory, where the installed copy is imported;
* ``import aucopt.formulations, aucopt`` works in both places and lists the shipped formulations;
* the wheel holds every module of the package and every shipped formulation.

The test environment itself usually has aucopt installed in development mode (``pip install -e
".[test]"``), whose import hook would find ``aucopt.formulations`` in the checkout for any copy of
aucopt and so hide the reported error. These processes start with that hook removed (a
``sitecustomize`` placed after the prefix on ``PYTHONPATH``), so that aucopt can come only from
the prefix or the working directory, as after ``pip install .``.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no lock
    fcntl = None

import pytest

pytestmark = pytest.mark.install

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 600  # seconds per subprocess
IMPORT_COMMAND = "import aucopt.formulations, aucopt; print(aucopt.available_formulations())"


def run(args, *, cwd, env=None, stdin=None, what=None):
    """Run ``args``; on failure show the command's output."""
    done = subprocess.run(args, cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, (
        f"{what or ' '.join(map(str, args))} failed (exit {done.returncode}) in {cwd}\n"
        f"--- stdout (end) ---\n{done.stdout[-3000:]}\n--- stderr (end) ---\n{done.stderr[-5000:]}"
    )
    return done


def readme_python() -> str:
    """Every ```python block of README.md, in order, as one program."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [textwrap.dedent(m.group(2)) for m in
              re.finditer(r"^([ \t]*)```python[^\n]*\n(.*?)^\1```", text, flags=re.MULTILINE | re.DOTALL)]
    assert blocks, "README.md has no ```python block"
    return "\n\n".join(blocks)


def shipped_formulation_names() -> set[str]:
    """The names the files of formulations/ register (``@formulation("name", ...)``)."""
    names = set()
    for path in (REPO / "formulations").glob("*.py"):
        names |= set(re.findall(r"@formulation\(\s*[\"'](\w+)[\"']", path.read_text(encoding="utf-8")))
    return names


#: run at start-up of every process below: drop the environment's development install of aucopt
#: (setuptools' editable import hook, or the checkout added to sys.path by a .pth file)
HIDE_DEVELOPMENT_INSTALL = f"""
import sys
sys.meta_path[:] = [f for f in sys.meta_path
                    if not getattr(f, "__module__", "").startswith("__editable__")]
sys.path[:] = [p for p in sys.path if p != {str(REPO)!r}]
"""


@pytest.fixture(scope="module")
def startup(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("startup")
    (folder / "sitecustomize.py").write_text(HIDE_DEVELOPMENT_INSTALL, encoding="utf-8")
    return folder


def env_with(prefix: Path, startup: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(prefix), str(startup)])
    # the user's cache directory, where the installed copy's compiled kernels go, kept beside the
    # prefix (in pytest's cache folder with the kept prefix): a machine whose home is not kept
    # between runs still finds them compiled
    env["XDG_CACHE_HOME"] = str(prefix.parent / "user-cache")
    env["MPLBACKEND"] = "Agg"
    env.pop("PYTHONSTARTUP", None)
    return env


# ============================================================================ fixtures
@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel of the working tree, built once (from a copy: the build leaves nothing in the checkout)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".pytest_cache", ".hypothesis",
        ".benchmarks"))
    dist = root / "dist"
    run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--disable-pip-version-check",
         "-w", str(dist)], cwd=root, what="pip wheel . --no-deps")
    wheels = sorted(dist.glob("aucopt-*.whl"))
    assert len(wheels) == 1, f"expected one aucopt wheel, found {[w.name for w in wheels]}"
    return wheels[0]


def _sync(fresh: Path, kept: Path) -> None:
    """Make ``kept`` hold exactly the files of ``fresh``, byte for byte; a file whose bytes did not
    change keeps its modification time, and with it the caches keyed by it."""
    def files(root):
        return {p.relative_to(root) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}

    new = files(fresh)
    for gone in files(kept) - new:
        (kept / gone).unlink()
    for stale in kept.rglob("__pycache__/*"):  # anything there but Python's own bytecode (old numba caches)
        if stale.is_file() and stale.suffix != ".pyc":
            stale.unlink()
    for name in new:
        source, target = fresh / name, kept / name
        if not (target.is_file() and target.read_bytes() == source.read_bytes()):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@pytest.fixture(scope="module")
def prefix(wheel, request, tmp_path_factory) -> Iterator[Path]:
    """The wheel installed with ``pip install --no-deps --target <prefix>``.

    The prefix is kept between test runs in pytest's cache folder: numba caches the compiled
    kernels (in the user's cache directory, for an installed copy) keyed by the source's path and
    modification time, which every new install changes. So the wheel is installed into an empty
    folder, and the kept prefix is then made to hold exactly its files, where a file whose bytes
    did not change keeps its time: the same files as a fresh install, with the kernels of
    unchanged modules compiled once, not at every run.
    """
    fresh = tmp_path_factory.mktemp("prefix") / "site"
    run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check",
         "--target", str(fresh), str(wheel)], cwd=wheel.parent, what="pip install --target")
    cache = getattr(request.config, "cache", None)  # None under -p no:cacheprovider
    if cache is None:
        yield fresh
        return
    target = Path(cache.mkdir("aucopt-wheel-prefix")) / "site"
    with open(target.parent / "lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # a test run beside this one neither syncs nor reads meanwhile
        _sync(fresh, target)
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_SH)  # others may read it too; none may sync it until these tests end
        assert (target / "aucopt" / "__init__.py").is_file()
        yield target


@pytest.fixture(params=["repository-root", "unrelated-directory"])
def place(request, tmp_path) -> tuple[str, Path]:
    """Where the user starts Python: the checkout's root, or a directory unrelated to it."""
    if request.param == "repository-root":
        return request.param, REPO
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return request.param, elsewhere


# ============================================================================ the wheel
def test_wheel_holds_every_module_and_formulation(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {p.relative_to(REPO).as_posix() for p in (REPO / "aucopt").rglob("*.py")
               if "__pycache__" not in p.parts}
    formulations = {f"aucopt/formulations/{p.name}" for p in (REPO / "formulations").glob("*.py")}
    assert "aucopt/formulations/__init__.py" in formulations
    missing = sorted((package | formulations) - names)
    assert not missing, f"the wheel lacks {missing} (list new subpackages in pyproject.toml)"
    top_level = {n.split("/")[0] for n in names}
    assert {t for t in top_level if not t.endswith(".dist-info")} == {"aucopt"}, top_level


# ============================================================================ README and imports
def test_readme_python_snippets_run(prefix, startup, place):
    """The README's Python, unchanged, after installing the wheel (PYTHONPATH=<prefix>); read from
    stdin, as a notebook or interactive session started in that directory would see it. It prints
    no warning."""
    where, cwd = place
    done = run([sys.executable, "-"], cwd=cwd, env=env_with(prefix, startup), stdin=readme_python(),
               what=f"README.md's python blocks (from the {where})")
    assert "Warning:" not in done.stderr, f"README.md's python blocks warn (from the {where}):\n{done.stderr[-4000:]}"
    if where == "unrelated-directory":  # the installed copy ran, with its compiled kernels
        left = files_pip_uninstall_would_leave(prefix)
        assert not left, f"running the installed copy wrote into it: {left[:5]}"


def files_pip_uninstall_would_leave(prefix: Path) -> list[str]:
    """The files in the installed ``aucopt/`` folder that ``pip uninstall`` would not remove: neither
    listed in the install's RECORD nor the bytecode of a listed module. Any such file keeps the
    folder, which Python would then import as an empty namespace package in place of the next
    install (``pip install -e .`` after ``pip install .``: the README's two commands in one
    environment)."""
    (record,) = prefix.glob("aucopt-*.dist-info/RECORD")
    listed = {line.split(",")[0] for line in record.read_text(encoding="utf-8").splitlines()}
    left = []
    for path in (prefix / "aucopt").rglob("*"):
        name = path.relative_to(prefix).as_posix()
        if path.is_dir() or name in listed:
            continue
        if path.parent.name == "__pycache__" and path.suffix == ".pyc":
            module = path.parent.parent / (path.name.split(".")[0] + ".py")
            if module.relative_to(prefix).as_posix() in listed:
                continue
        left.append(name)
    return sorted(left)


def test_import_formulations_and_list_them(prefix, startup, place):
    where, cwd = place
    done = run([sys.executable, "-c", IMPORT_COMMAND], cwd=cwd, env=env_with(prefix, startup),
               what=f"python -c {IMPORT_COMMAND!r} (from the {where})")
    listed = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert set(listed) == shipped_formulation_names()


def test_the_expected_copy_is_imported(prefix, startup, place):
    """From the repository root the checkout shadows the installed package (the case this module
    exists for); anywhere else the installed copy, with its formulations, is imported."""
    where, cwd = place
    code = ("import importlib.metadata, aucopt, aucopt.formulations\n"
            "print(aucopt.__file__)\nprint(aucopt.formulations.__file__)\n"
            "print(aucopt.__version__)\nprint(importlib.metadata.version('aucopt'))")
    done = run([sys.executable, "-c", code], cwd=cwd, env=env_with(prefix, startup))
    package, formulations, version, installed_version = done.stdout.strip().splitlines()[-4:]
    package, formulations = (cwd / package).resolve(), (cwd / formulations).resolve()
    if where == "repository-root":
        assert package == REPO / "aucopt" / "__init__.py"
        assert formulations == REPO / "formulations" / "__init__.py"
    else:
        assert package == (prefix / "aucopt" / "__init__.py").resolve()
        assert formulations == (prefix / "aucopt" / "formulations" / "__init__.py").resolve()
    assert version == installed_version


def test_console_script_from_the_prefix(prefix, startup, tmp_path):
    script = prefix / "bin" / "aucopt"
    assert script.is_file(), "the wheel installs no `aucopt` console script"
    done = run([sys.executable, str(script), "formulations"], cwd=tmp_path, env=env_with(prefix, startup),
               what="aucopt formulations")
    for name in shipped_formulation_names():
        assert name in done.stdout


# ============================================================================ data folders, examples, CLI


def _deepsurv_file(folder: Path, n: int = 80) -> None:
    """A small file in the DeepSurv layout (``survival/support_train_test.h5``)."""
    import numpy as np

    h5py = pytest.importorskip("h5py")
    rng = np.random.default_rng(0)
    (folder / "survival").mkdir(parents=True)
    with h5py.File(folder / "survival" / "support_train_test.h5", "w") as fh:
        for part, m in (("train", n), ("test", n // 2)):
            x = rng.normal(size=(m, 3))
            fh.create_group(part)
            fh[part]["x"] = x
            fh[part]["t"] = rng.exponential(np.exp(-x[:, 0]))
            fh[part]["e"] = (rng.random(m) < 0.7).astype(float)


def test_cli_reads_the_data_folder_it_is_given(prefix, startup, tmp_path):
    """``aucopt survival --data support --data-dir DIR`` from the installed console script, in a
    directory unrelated to the checkout: the folder passed explicitly is the one read."""
    data = tmp_path / "my data"
    _deepsurv_file(data)
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    script = prefix / "bin" / "aucopt"
    done = run([sys.executable, str(script), "survival", "--data", "support", "--data-dir", str(data), "--model",
                "newton", "--splits", "2", "--repeats", "1", "--no-cox", "--csv"], cwd=cwd,
               env=env_with(prefix, startup), what="aucopt survival --data support --data-dir DIR")
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("method,pooled_c_mean") and lines[1].startswith("newton,")
    assert "120 subjects" in done.stderr  # train and test splits of the file in DIR
    missing = subprocess.run([sys.executable, str(script), "survival", "--data", "support", "--data-dir",
                              str(tmp_path / "nowhere"), "--model", "newton"], cwd=cwd,
                             env=env_with(prefix, startup), capture_output=True, text=True, timeout=TIMEOUT)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "aucopt: error:" in missing.stderr


def test_examples_run_from_the_prefix(prefix, startup, tmp_path):
    """Examples copied out of the checkout run against the installed package: a data-free one as
    it is, and a data one refuses a missing folder clearly. (The data example on the data is
    ``tests/test_examples.py::test_coil2000_on_the_data``, the same command from the checkout; the
    installed package reading a folder it is given is ``test_cli_reads_the_data_folder_it_is_given``.)"""
    env = env_with(prefix, startup)
    roc = tmp_path / "plot_roc_curves.py"
    shutil.copy(REPO / "examples" / "binary" / "plot_roc_curves.py", roc)
    done = run([sys.executable, str(roc)], cwd=tmp_path, env=env, what="examples/binary/plot_roc_curves.py")
    assert "AUC" in done.stdout
    coil = tmp_path / "coil2000_subgradient.py"
    shutil.copy(REPO / "examples" / "binary" / "coil2000_subgradient.py", coil)
    refused = subprocess.run([sys.executable, str(coil), "--data-dir", str(tmp_path / "nowhere")], cwd=tmp_path,
                             env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert refused.returncode == 2 and "--data-dir" in refused.stdout + refused.stderr
