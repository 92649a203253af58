"""Sphinx configuration of the aucopt documentation.

Build (from the repository root; nothing is fetched from the network):

    pip install ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html

The entry page is docs/_build/html/index.html.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the gallery draws figures without a display

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "sphinxext"))
# Import aucopt from this checkout when it is not installed (an installed copy wins otherwise).
try:
    import aucopt
except ImportError:  # pragma: no cover - depends on the environment
    sys.path.insert(0, str(ROOT))
    import aucopt  # noqa: F401

from aucopt import __version__  # noqa: E402

# -- Project -----------------------------------------------------------------------------------

project = "aucopt"
author = "aucopt developers"
copyright = "aucopt developers, BSD-3-Clause"
version = __version__
release = __version__

# -- General -----------------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
default_role = "literal"  # `x` in a docstring is code, as in numpydoc's convention
pygments_style = "sphinx"
highlight_language = "default"  # python, without failing on text blocks
suppress_warnings = []

# -- autodoc / autosummary / numpydoc ----------------------------------------------------------

autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
autoclass_content = "class"
add_module_names = False

numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- MyST (the user guide is the markdown of docs/*.md, readable on GitHub as is) ---------------

myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# -- sphinx-gallery ----------------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # default filename_pattern: only plot_*.py files are executed; the others are listed, not run
    "run_stale_examples": False,
    "abort_on_example_error": True,
    "plot_gallery": "True",
    "within_subsection_order": "FileNameSortKey",
    # gallery_report (docs/sphinxext) describes each example's figures for the test suite
    "image_scrapers": ("gallery_report.figure_report", "matplotlib"),
    "matplotlib_animations": False,
    "doc_module": ("aucopt",),
    "backreferences_dir": "generated/backreferences",
    "reference_url": {"aucopt": None},
    "remove_config_comments": True,
    "show_memory": False,
    "download_all_examples": False,
    "promote_jupyter_magic": False,
}

# -- HTML --------------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"aucopt {version}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 7,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "check_switcher": False,
}
html_sidebars = {"index": [], "changelog": [], "references": []}
html_context = {"default_mode": "light"}


# -- Hooks -------------------------------------------------------------------------------------


def _is_metadata_request_method(name: str) -> bool:
    """scikit-learn's generated metadata-routing methods (documented by scikit-learn itself)."""
    return name == "get_metadata_routing" or (name.startswith("set_") and name.endswith("_request"))


def _skip_member(app, what, name, obj, skip, options):
    if _is_metadata_request_method(name):
        return True
    return None


def _import(path: str):
    """The object named by a dotted path, or None."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attribute in parts[split:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return None
        return obj
    return None


def _documented_by_identity(env) -> dict[int, str]:
    """id(object) -> the name under which the API reference documents it."""
    objects = env.get_domain("py").objects
    cache = getattr(env, "_aucopt_documented", None)
    if cache is None or cache[0] != len(objects):
        names = {}
        for name in sorted(objects, key=len):
            obj = _import(name)
            if obj is not None and not isinstance(obj, (int, float, str, bool, type(None))):
                names.setdefault(id(obj), name)
        cache = env._aucopt_documented = (len(objects), names)
    return cache[1]


def _resolve_alias(app, env, node, contnode):
    """Link a reference to a re-exported name to the page of the documented object.

    Docstrings may name an object by any public path (``aucopt.ProblemTooLargeError``,
    ``aucopt.exceptions.ProblemTooLargeError``, ``aucopt.PairSet.survival``); the reference
    documents each object once, so the other paths are resolved here by object identity.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    module = node.get("py:module")
    candidates = [target] + ([f"{module}.{target}"] if module else [])
    documented = _documented_by_identity(env)
    objects = env.get_domain("py").objects
    for path in candidates:
        name = documented.get(id(_import(path))) if _import(path) is not None else None
        if name is None and "." in path:  # a method or attribute of a re-exported class
            owner, _, member = path.rpartition(".")
            owner_obj = _import(owner)
            owner_name = documented.get(id(owner_obj)) if owner_obj is not None else None
            if owner_name and f"{owner_name}.{member}" in objects:
                name = f"{owner_name}.{member}"
        if name is not None and name != target:
            return env.get_domain("py").resolve_xref(env, node["refdoc"], app.builder, "obj", name, node,
                                                     contnode)
    return None


def _section(relations: dict, root: str, docname: str) -> str:
    """The entry of the home page's table of contents that ``docname`` belongs to (the User guide,
    the API reference, the Examples, ...); the home page is its own."""
    seen = set()
    while docname not in seen:
        seen.add(docname)
        parent = relations.get(docname, (None,))[0]
        if parent is None or parent == root:
            return docname
        docname = parent
    return docname


def _prev_next_within_section(app, pagename, templatename, context, doctree):
    """Keep the "Previous" / "Next" links inside one part of the site.

    Sphinx chains every page in table-of-contents order, so the examples gallery would open with
    "Previous: warn" (the last function of the API reference) and the API reference with the last
    page of the user guide. A link to a page of another part is dropped; links to the home page
    stay.
    """
    relations = getattr(app.builder, "relations", None) or {}
    root = app.config.root_doc
    if pagename not in relations or pagename == root:
        return
    _, previous, following = relations[pagename]
    section = _section(relations, root, pagename)
    for key, other in (("prev", previous), ("next", following)):
        if other is not None and other != root and _section(relations, root, other) != section:
            context[key] = None


def _numpydoc_with_one_template():
    """numpydoc's ``get_doc_object``, with its docstring template compiled once per builder.

    numpydoc builds a new Jinja environment and compiles its template for every docstring and
    every signature it reads (1,440 times for this site): about a quarter of the time Sphinx
    spends reading the sources, measured. numpydoc's ``setup`` takes a replacement for this function
    (``get_doc_object_``); this one renders with the same template, the same loader and the same
    docstring classes, compiled once.
    """
    import os

    from jinja2 import FileSystemLoader
    from jinja2.sandbox import SandboxedEnvironment
    from numpydoc import docscrape, docscrape_sphinx
    from sphinx.jinja2glue import BuiltinTemplateLoader

    templates = [os.path.join(os.path.dirname(docscrape_sphinx.__file__), "templates")]
    compiled = {}

    def get_doc_object(obj, what=None, doc=None, config=None, builder=None):
        if builder not in compiled:
            if builder is not None:
                loader = BuiltinTemplateLoader()
                loader.init(builder, dirs=templates)
            else:
                loader = FileSystemLoader(templates)
            compiled[builder] = SandboxedEnvironment(loader=loader).get_template("numpydoc_docstring.rst")
        config = {} if config is None else config
        config["template"] = compiled[builder]
        return docscrape.get_doc_object(obj, what=what, doc=doc, config=config,
                                        class_doc=docscrape_sphinx.SphinxClassDoc,
                                        func_doc=docscrape_sphinx.SphinxFunctionDoc,
                                        obj_doc=docscrape_sphinx.SphinxObjDoc)

    return get_doc_object


def setup(app):
    import numpydoc.numpydoc

    numpydoc.numpydoc.get_doc_object = _numpydoc_with_one_template()  # as numpydoc's setup(get_doc_object_=...)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("missing-reference", _resolve_alias)
    app.connect("html-page-context", _prev_next_within_section)
