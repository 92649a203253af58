"""numba's ``njit`` for aucopt's compiled kernels, with their on-disk cache kept out of an installed copy.

numba caches a function compiled with ``cache=True`` in the ``__pycache__`` folder beside its
source when that folder is writable, else in the user's cache directory. Beside the source is
right for a source checkout, and for the editable install that runs the checkout's files. It is
wrong for an installed copy (``pip install .``): ``pip uninstall`` removes only the files it
installed, so the cache files keep the ``aucopt/`` folder alive without its ``__init__.py``, and
Python then imports that leftover folder as an empty namespace package in place of a later
``pip install -e .``, whose import hook comes after the path search (every ``from aucopt import``
then fails with "unknown location").

So every kernel module takes ``njit`` from here, and importing this module puts one locator in
front of numba's own: for a copy of aucopt outside a source checkout (no ``pyproject.toml`` beside
the package folder), the cache goes to the user's cache directory, where numba puts the cache of a
read-only install. ``NUMBA_CACHE_DIR``, when set, still decides for every copy.
"""

from __future__ import annotations

from pathlib import Path

from numba import njit
from numba.core.caching import CacheImpl, InTreeCacheLocator, UserWideCacheLocator

__all__ = ["InstalledCopyCacheLocator", "njit"]

PACKAGE = Path(__file__).resolve().parent


def is_source_checkout(package: Path = PACKAGE) -> bool:
    """Whether the package folder ``package`` sits in a source checkout (a ``pyproject.toml`` beside it)."""
    return (package.parent / "pyproject.toml").is_file()


class InstalledCopyCacheLocator(UserWideCacheLocator):
    """numba's user-wide cache for the kernels of an installed copy of aucopt; no answer for other code.

    Examples
    --------
    >>> from numba.core.caching import CacheImpl
    >>> from aucopt._numba import InstalledCopyCacheLocator
    >>> InstalledCopyCacheLocator in CacheImpl._locator_classes
    True
    """

    package = PACKAGE

    @classmethod
    def from_function(cls, py_func, py_file):
        path = Path(py_file).resolve()
        if cls.package not in path.parents or is_source_checkout(cls.package):
            return None
        return super().from_function(py_func, py_file)


def _register() -> None:
    """Put the locator just before numba's in-tree one (after ``NUMBA_CACHE_DIR``'s), once."""
    locators = CacheImpl._locator_classes
    if InstalledCopyCacheLocator not in locators:
        locators.insert(locators.index(InTreeCacheLocator), InstalledCopyCacheLocator)


_register()
