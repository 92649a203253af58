"""The documentation: the API reference covers the public names, the user guide's code runs, the
Sphinx site builds without a warning.

The site is built once per test session (the ``docs_build`` fixture of tests/conftest.py) from a
copy of docs/, examples/ and CHANGELOG.md in a temporary folder, so a test run never writes into
the checkout. The build is skipped when the documentation tools
(``pip install ".[docs]"``) are not installed.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import aucopt

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API = DOCS / "api.rst"
SUBPACKAGES = ["aucopt.lp", "aucopt.svm", "aucopt.online", "aucopt.distributed", "aucopt.survival",
               "aucopt.metrics", "aucopt.pairs", "aucopt.pairs.core", "aucopt.modeling", "aucopt.solvers",
               "aucopt.kernels", "aucopt.datasets", "aucopt.base", "aucopt.exceptions"]
GENERATED = ("_build", "generated", "auto_examples", "sg_execution_times.rst")


def _documented_names() -> set[str]:
    """Full names of the autosummary entries of docs/api.rst (each under its ``currentmodule``)."""
    names, module, in_autosummary = set(), None, False
    for line in API.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith(".. currentmodule::"):
            module = stripped.split("::", 1)[1].strip()
            in_autosummary = False
        elif stripped.startswith(".. autosummary::"):
            in_autosummary = True
        elif in_autosummary and line.startswith("   ") and stripped and not stripped.startswith(":"):
            names.add(f"{module}.{stripped.lstrip('~')}")
        elif stripped and not line.startswith(" "):
            in_autosummary = False
    return names


def _resolve(full_name: str):
    module_name, _, attribute = full_name.rpartition(".")
    return getattr(importlib.import_module(module_name), attribute)


def test_every_top_level_name_is_in_the_api_reference():
    documented = {id(_resolve(name)) for name in _documented_names()}
    missing = [name for name in aucopt.__all__ if name != "__version__"
               and id(getattr(aucopt, name)) not in documented]
    assert not missing, f"aucopt.__all__ names missing from docs/api.rst: {missing}"
    text = API.read_text(encoding="utf-8")
    assert all(re.search(rf"^\s+~?{name}$", text, re.M) for name in aucopt.__all__)


def test_every_public_class_and_function_is_in_the_api_reference():
    documented = {id(_resolve(name)) for name in _documented_names()}
    missing = []
    for module_name in SUBPACKAGES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and id(obj) not in documented:
                missing.append(f"{module_name}.{name}")
    assert not missing, f"public classes and functions missing from docs/api.rst: {missing}"


def test_api_reference_entries_exist():
    for name in _documented_names():
        _resolve(name)


def _python_blocks(path: Path) -> str:
    """The python code blocks of a markdown (```python) or reST (.. code-block:: python) page, in
    order, as one script."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        blocks = re.findall(r"^```python[ \t]*\n(.*?)^```", text, re.M | re.S)
    else:
        blocks = [textwrap.dedent(block) for block in
                  re.findall(r"^\.\. code-block:: python[ \t]*\n\n((?:(?:   .*)?\n)+)", text, re.M)]
    return "\n\n".join(blocks)


#: pages whose code another test runs (and checks the output of)
RUN_ELSEWHERE = {"formulations.md": "tests/modeling/test_guide.py"}


@pytest.mark.parametrize("page", [page for page in sorted(DOCS.glob("*.md")) + sorted(DOCS.glob("*.rst"))
                                  if page.name not in GENERATED and page.name not in RUN_ELSEWHERE],
                         ids=lambda p: p.name)
def test_user_guide_code_runs(page, tmp_path):
    """Every python code block of a docs page runs as written (one fresh process per page), and
    prints no warning: a reader copying the page would take one for a fault."""
    script = _python_blocks(page)
    if not script.strip():
        pytest.skip(f"{page.name} has no python code blocks")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(
        p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p)}
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, f"the code of docs/{page.name} failed:\n{run.stderr[-4000:]}"
    assert "Warning:" not in run.stderr, f"the code of docs/{page.name} warns:\n{run.stderr[-4000:]}"


def test_pages_run_elsewhere_are_run_there():
    for page, test in RUN_ELSEWHERE.items():
        assert (DOCS / page).is_file() and f"docs/{page}" in (ROOT / test).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def html(docs_build):
    """The site's output folder (built once per session: tests/conftest.py)."""
    return docs_build.html


def test_docs_build_api_page(html):
    page = (html / "generated" / "aucopt.LPRanker.html").read_text(encoding="utf-8")
    for parameter in ["C", "gamma", "method", "solver"]:
        assert f"<strong>{parameter}</strong>" in page, parameter
    assert re.search(r'class="rubric"[^>]*>Examples<', page)
    assert "&gt;&gt;&gt;" in page  # the doctest is rendered
    assert "fit" in page and "decision_function" in page  # the methods are listed
    assert (html / "api.html").is_file() and (html / "index.html").is_file()


def test_docs_build_user_guide_and_changelog(html):
    for page in ["architecture", "formulations", "parameters", "scalable", "survival", "benchmarks",
                 "references", "changelog"]:
        assert (html / f"{page}.html").is_file(), page
    assert "Unreleased" in (html / "changelog.html").read_text(encoding="utf-8")


def test_docs_build_gallery(html):
    assert (html / "auto_examples" / "index.html").is_file()
    pages = sorted((html / "auto_examples").rglob("plot_*.html"))
    assert pages, "no plot_ example was rendered"
    survival = [page for page in pages if "survival" in page.as_posix()]
    with_images = [page for page in (survival or pages) if "<img" in page.read_text(encoding="utf-8")]
    assert with_images, f"no executed example page shows a figure among {[p.name for p in survival or pages]}"


def test_docs_build_gallery_thumbnails_are_the_examples_own(html, tmp_path):
    """Every example of the gallery shows its own thumbnail, never sphinx-gallery's placeholder:
    executed examples draw a figure, the others name an image of their figure."""
    from sphinx_gallery.gen_rst import glr_path_static
    from sphinx_gallery.utils import scale_image

    placeholder = tmp_path / "placeholder.png"
    scale_image(os.path.join(glr_path_static(), "no_image.png"), str(placeholder), 400, 280)
    index = (html / "auto_examples" / "index.html").read_text(encoding="utf-8")
    thumbnails = {name: html / "_images" / f"sphx_glr_{name}_thumb.png"
                  for name in re.findall(r'src="\.\./_images/sphx_glr_(\w+)_thumb\.png"', index)}
    assert sorted(thumbnails) == sorted(path.stem for path in (ROOT / "examples").rglob("*.py"))
    images = {name: path.read_bytes() for name, path in thumbnails.items()}
    assert not [name for name, image in images.items() if image == placeholder.read_bytes()], "placeholder thumbnails"
    assert len(set(images.values())) == len(images), "two examples share a thumbnail"


def test_docs_build_previous_and_next_stay_in_their_part_of_the_site(html):
    """The gallery does not open with "Previous: warn" (the API reference's last page): every
    Previous / Next link of a gallery page leads to a gallery page or the home page."""
    gallery = (html / "auto_examples").resolve()
    pages = sorted(gallery.rglob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for href in re.findall(r'class="(?:left-prev|right-next)"\s+href="([^"#]+)', text):
            target = (page.parent / href).resolve()
            assert gallery in target.parents or target == (html / "index.html").resolve(), (page.name, href)
    first = (gallery / "index.html").read_text(encoding="utf-8")
    assert 'class="right-next"' in first and 'class="left-prev"' not in first
    api = (html / "api.html").read_text(encoding="utf-8")
    assert 'class="right-next"' in api  # links inside the API reference stay
