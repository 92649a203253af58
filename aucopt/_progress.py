"""The one progress-bar convention of long runs (Newton, subgradient, cross-validation)."""

from __future__ import annotations


def progress_bar(progress: bool | None, *, total=None, iterable=None, desc: str, unit: str = "it"):
    """A tqdm bar, or None when ``progress`` is False.

    ``progress=True`` always shows it, ``None`` only on a terminal (tqdm's ``disable=None``).
    Wraps ``iterable`` when given; otherwise the caller calls ``update``/``close``.
    """
    if progress is False:
        return None
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False,
                disable=None if progress is None else not progress)
