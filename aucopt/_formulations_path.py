"""Make ``aucopt.formulations`` importable wherever aucopt is imported from.

The shipped formulations live in the repository's top-level ``formulations/`` folder. An installed
wheel carries them as the subpackage ``aucopt.formulations``. In a source checkout (a script or
notebook run from the repository root, whose ``aucopt/`` folder shadows the installed package, or
a checkout on ``sys.path`` without any install) there is no such subpackage; the folder beside
the ``aucopt`` package is then loaded under the same name, so ``import aucopt.formulations`` and
the formulation registry behave identically in both cases.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

NAME = "aucopt.formulations"


def ensure_formulations_package():
    """Import ``aucopt.formulations``, registering the shipped formulations, and return it.

    Returns
    -------
    module
        The ``aucopt.formulations`` package: the installed subpackage, or the checkout's
        top-level ``formulations/`` folder loaded under that name.

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
    if NAME in sys.modules:
        return sys.modules[NAME]
    if importlib.util.find_spec(NAME) is not None:
        return importlib.import_module(NAME)
    folder = Path(__file__).resolve().parent.parent / "formulations"
    init = folder / "__init__.py"
    if not init.is_file():
        raise ImportError(
            f"aucopt's formulations were not found: no subpackage {NAME} and no folder {folder}. "
            "Reinstall aucopt (pip install aucopt) or restore the formulations/ folder of the checkout."
        )
    spec = importlib.util.spec_from_file_location(NAME, init, submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[NAME]
        raise
    parent = sys.modules.get(NAME.rpartition(".")[0])
    if parent is not None:  # as the import system does for a subpackage: aucopt.formulations
        setattr(parent, NAME.rpartition(".")[2], module)
    return module
