"""The one progress-bar convention of long runs (Newton, subgradient, chunking, cross-validation)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["progress_bar"]


# the bar (a tqdm.tqdm or None) is left unannotated: tqdm ships no type information
def progress_bar(progress: bool | None, *, total: int | None = None, iterable: Iterable[Any] | None = None,
                 desc: str, unit: str = "it"):
    """A tqdm progress bar, or None when ``progress`` is False.

    Estimators pass ``bool(verbose)``: ``verbose=0`` shows nothing.

    Parameters
    ----------
    progress : bool or None
        True always shows the bar, None only on a terminal (tqdm's ``disable=None``), False
        never (and tqdm is not imported).
    total : int, default=None
        Expected number of iterations.
    iterable : iterable, default=None
        Wrapped by the bar when given; otherwise the caller calls ``update`` and ``close``.
    desc : str
        Label of the bar.
    unit : str, default="it"
        Name of one iteration.

    Returns
    -------
    bar : tqdm.tqdm or None

    Examples
    --------
    >>> from aucopt._progress import progress_bar
    >>> progress_bar(False, desc="Newton") is None
    True
    >>> bar = progress_bar(True, iterable=range(3), desc="folds")
    >>> sum(bar)
    3
    """
    if progress is False:
        return None
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False,
                disable=None if progress is None else not progress)
