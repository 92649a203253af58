"""Where ``aucopt.formulations`` comes from, installed or in a source checkout.

The shipped formulations live in the repository's top-level ``formulations/`` folder. The
packaging maps that folder to the subpackage ``aucopt.formulations``
(``[tool.setuptools.package-dir]`` in pyproject.toml): the wheel carries it as
``aucopt/formulations/``, and the editable install (``pip install -e .``) maps the name to the
checkout's folder. Nothing here is needed then.

A plain source checkout has no such mapping: Python started in the repository root (whose
``aucopt/`` folder shadows any installed copy) or a checkout put on ``sys.path`` without an
install. For that case only, :func:`install_checkout_finder` (called by ``import aucopt``) and
:func:`ensure_formulations_package` (called by the formulation registry) append one finder to
``sys.meta_path`` (:class:`CheckoutFormulationsFinder`) that answers the single name
``aucopt.formulations`` with the checkout's folder, after every other finder has had its turn.
The import system does the rest (``sys.modules``, the ``aucopt.formulations`` attribute, the
submodules), so ``import aucopt.formulations`` and the formulation registry behave as in an
install. tests/test_packaging.py runs both cases; tests/test_install.py runs a built wheel.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

__all__ = ["CHECKOUT_FOLDER", "NAME", "CheckoutFormulationsFinder", "ensure_formulations_package",
           "formulations_folders", "install_checkout_finder"]

NAME = "aucopt.formulations"
CHECKOUT_FOLDER = Path(__file__).resolve().parent.parent / "formulations"
"""The ``formulations/`` folder beside the package: the shipped formulations in a source checkout."""


class CheckoutFormulationsFinder(importlib.abc.MetaPathFinder):
    """Finds ``aucopt.formulations`` in a source checkout's ``formulations/`` folder, and nothing else.

    Parameters
    ----------
    folder : Path
        The folder holding the formulations' ``__init__.py``.
    """

    def __init__(self, folder: Path):
        self.folder = folder

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        """The spec of the checkout's folder as the package ``aucopt.formulations``; None for other names."""
        if fullname != NAME:
            return None
        return importlib.util.spec_from_file_location(NAME, self.folder / "__init__.py",
                                                      submodule_search_locations=[str(self.folder)])


def ensure_formulations_package() -> ModuleType:
    """Import ``aucopt.formulations``, registering the shipped formulations, and return it.

    Returns
    -------
    module
        The ``aucopt.formulations`` package: the installed subpackage, or the checkout's
        top-level ``formulations/`` folder found by :class:`CheckoutFormulationsFinder`.

    Raises
    ------
    ImportError
        When neither exists (a damaged install or checkout).

    See Also
    --------
    aucopt.modeling.available_formulations : the formulations it registers.

    Examples
    --------
    >>> from aucopt._formulations_path import ensure_formulations_package
    >>> ensure_formulations_package().__name__
    'aucopt.formulations'
    """
    try:
        return importlib.import_module(NAME)
    except ModuleNotFoundError as exc:
        if exc.name != NAME:  # the package exists; something it imports does not
            raise
    if not (CHECKOUT_FOLDER / "__init__.py").is_file():
        raise ImportError(
            f"aucopt's formulations were not found: no subpackage {NAME} and no folder {CHECKOUT_FOLDER}. "
            "Reinstall aucopt (pip install aucopt) or restore the formulations/ folder of the checkout."
        )
    _append_finder()
    return importlib.import_module(NAME)


def install_checkout_finder() -> None:
    """In a plain source checkout, make ``import aucopt.formulations`` find the checkout's folder.

    Cheap (nothing is imported): ``import aucopt`` calls it, so that importing the formulations
    directly works from a checkout too; in an install the packaging's mapping answers and nothing
    is done.
    """
    if importlib.util.find_spec(NAME) is None and (CHECKOUT_FOLDER / "__init__.py").is_file():
        _append_finder()


def _append_finder() -> None:
    if not any(isinstance(finder, CheckoutFormulationsFinder) for finder in sys.meta_path):
        sys.meta_path.append(CheckoutFormulationsFinder(CHECKOUT_FOLDER))


def formulations_folders() -> tuple[str, ...]:
    """The folders of ``aucopt.formulations`` once it is imported (empty before).

    Returns
    -------
    tuple of str
        Its ``__path__``: ``aucopt/formulations`` in an install, the checkout's ``formulations/``
        in an editable install or a source checkout.
    """
    module = sys.modules.get(NAME)
    return tuple(getattr(module, "__path__", ()))
