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

**When a cached kernel is stale.** numba keys a function's cache on the bytes of its own source
file only, but aucopt's kernels call compiled helpers of the modules beside them (``_example``
of the online kernels, the vectorized passes of ``aucopt.online._simd``, the pair core's
arithmetic, the dual coordinate descent's prefetch): after an edit of a helper's module alone (or
an upgrade that changed only that module) numba would load the old machine code, helper and all.
So the locators here (one per place the cache may go: ``NUMBA_CACHE_DIR``, the source checkout, an
installed copy's user cache) key aucopt's kernels on the bytes of every kernel module of their
folder (the modules that mention ``njit`` or ``intrinsic``; every compiled helper sits beside the
kernels that call it). An edit of one of them compiles that folder's kernels again once.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from numba import njit
from numba.core.caching import CacheImpl, InTreeCacheLocator, UserProvidedCacheLocator, UserWideCacheLocator

__all__ = ["InstalledCopyCacheLocator", "SourceCheckoutCacheLocator", "kernel_sources_stamp", "njit"]

PACKAGE = Path(__file__).resolve().parent


def is_source_checkout(package: Path = PACKAGE) -> bool:
    """Whether the package folder ``package`` sits in a source checkout (a ``pyproject.toml`` beside it)."""
    return (package.parent / "pyproject.toml").is_file()


def kernel_sources_stamp(source: Path) -> str:
    """A digest of the kernel modules of ``source``'s folder: the names and bytes of ``source`` and of
    every ``.py`` file beside it that mentions ``njit`` or ``intrinsic``, in the order of their names.

    Examples
    --------
    >>> from aucopt._numba import PACKAGE, kernel_sources_stamp
    >>> kernel_sources_stamp(PACKAGE / "online" / "_onepass_full.py") == kernel_sources_stamp(
    ...     PACKAGE / "online" / "_simd.py")  # the same folder's kernels
    True
    """
    files = tuple((path.name, path.stat().st_mtime_ns, path.stat().st_size)
                  for path in sorted(Path(source).parent.glob("*.py")))
    return _folder_digest(str(Path(source).parent), Path(source).name, files)


@functools.lru_cache(maxsize=64)
def _folder_digest(folder: str, name: str, files: tuple) -> str:
    """:func:`kernel_sources_stamp`, memoized on the folder's file names, times and sizes."""
    digest = hashlib.sha256()
    for file_name, _, _ in files:
        data = (Path(folder) / file_name).read_bytes()
        if file_name == name or b"njit" in data or b"intrinsic" in data:
            digest.update(file_name.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


class _KernelFolderStamp:
    """A locator mixin for aucopt's kernels only (``from_function`` answers None for other code):
    the source stamp is :func:`kernel_sources_stamp` instead of the file's own bytes."""

    package = PACKAGE
    _py_file: str

    @classmethod
    def _is_ours(cls, py_file) -> bool:
        return cls.package in Path(py_file).resolve().parents

    def get_source_stamp(self):
        return kernel_sources_stamp(Path(self._py_file))


class ProvidedDirCacheLocator(_KernelFolderStamp, UserProvidedCacheLocator):
    """numba's ``NUMBA_CACHE_DIR`` cache for aucopt's kernels, stamped by their folder's kernel modules."""

    @classmethod
    def from_function(cls, py_func, py_file):
        return super().from_function(py_func, py_file) if cls._is_ours(py_file) else None


class SourceCheckoutCacheLocator(_KernelFolderStamp, InTreeCacheLocator):
    """numba's in-tree cache (``__pycache__`` beside the source) for the kernels of a source checkout of
    aucopt, stamped by their folder's kernel modules; no answer for other code."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if not (cls._is_ours(py_file) and is_source_checkout(cls.package)):
            return None
        return super().from_function(py_func, py_file)


class InstalledCopyCacheLocator(_KernelFolderStamp, UserWideCacheLocator):
    """numba's user-wide cache for the kernels of an installed copy of aucopt, stamped by their
    folder's kernel modules; no answer for other code.

    Examples
    --------
    >>> from numba.core.caching import CacheImpl
    >>> from aucopt._numba import InstalledCopyCacheLocator
    >>> InstalledCopyCacheLocator in CacheImpl._locator_classes
    True
    """

    @classmethod
    def from_function(cls, py_func, py_file):
        if not cls._is_ours(py_file) or is_source_checkout(cls.package):
            return None
        return super().from_function(py_func, py_file)


def _register() -> None:
    """Put each locator just before the numba locator whose place it takes for aucopt's kernels, once."""
    locators = CacheImpl._locator_classes
    for ours, theirs in ((ProvidedDirCacheLocator, UserProvidedCacheLocator),
                         (InstalledCopyCacheLocator, InTreeCacheLocator),
                         (SourceCheckoutCacheLocator, InTreeCacheLocator)):
        if ours not in locators:
            locators.insert(locators.index(theirs), ours)


_register()
