"""What every scalable route of the LP Ranker reports while it runs, and its certified gap.

Each route appends one record (a dict) per round, iteration or restricted LP to its history,
hands it to the user's ``callback`` and shows it on a progress bar when ``verbose`` is set;
:class:`RunLog` does the three. :func:`relative_gap` is the certificate every route reports:
(F − LB) / F, F the full LP's objective at the returned point and LB a certified lower bound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._progress import progress_bar

__all__ = ["RunLog", "relative_gap"]


def relative_gap(upper: float, lower: float) -> float:
    """(upper − lower) / upper, clipped at 0; 0 when upper is 0."""
    return 0.0 if upper <= 0.0 else max(upper - lower, 0.0) / upper


class RunLog:
    """A route's history, its ``callback`` and its progress bar (shown when ``verbose``).

    Parameters
    ----------
    verbose : int
        Show a progress bar when nonzero.
    callback : callable or None
        Called with each record.
    **bar : dict
        Keywords of the progress bar (``desc``, ``unit``, ``total``).
    """

    def __init__(self, verbose: int, callback: Callable[[dict], Any] | None, **bar: Any):
        self.history: list[dict] = []
        self.callback = callback
        self.bar = progress_bar(bool(verbose), **bar)

    def add(self, record: dict, postfix: dict | None = None, *, advance: bool = True) -> None:
        """Keep ``record``, hand it to the callback and show it (``postfix``; a step of the bar if ``advance``)."""
        self.history.append(record)
        if self.callback is not None:
            self.callback(record)
        if self.bar is not None:
            if advance:
                self.bar.update(1)
            if postfix is not None:
                self.bar.set_postfix(postfix)

    def advance(self) -> None:
        """One step of the progress bar."""
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
