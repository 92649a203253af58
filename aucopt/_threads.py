"""Two threads for compiled kernels that release the GIL (the pair core's sweeps, dense products).

Work over ``m`` items is split between two threads from :data:`THREADED_FROM` items on (below,
starting a thread costs more than it saves), when numba may use two threads: its thread count,
``NUMBA_NUM_THREADS``, is by default the number of cores this process may use, and joblib's
workers set it to their share of the cores, so ``n_jobs`` does not oversubscribe. numba is
imported at the first question, not with this module.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache

__all__ = ["THREADED_FROM", "by_halves", "run_both", "run_together", "threaded", "two_threads"]

#: items from which work is split between two threads
THREADED_FROM = 1 << 16


@cache
def two_threads() -> bool:
    """Whether numba's thread count (``NUMBA_NUM_THREADS``, read from the environment at its import) is at least 2."""
    from numba import config

    return int(config.NUMBA_NUM_THREADS) >= 2  # type: ignore[attr-defined]  # set from the environment at import


def threaded(m: int) -> bool:
    """Whether work over ``m`` items is split between two threads."""
    return m >= THREADED_FROM and two_threads()


def by_halves(part: Callable[[int, int], None], m: int) -> None:
    """``part(0, m)``, or, when :func:`threaded`, ``part(0, m // 2)`` and ``part(m // 2, m)`` on two
    threads (for halves that touch disjoint entries)."""
    if threaded(m):
        run_together(lambda: part(0, m // 2), lambda: part(m // 2, m))
    else:
        part(0, m)


def run_both(first: Callable[[], None], second: Callable[[], None], m: int, *, first_on: bool = True,
             second_on: bool = True) -> None:
    """``first()`` and ``second()``, those switched on: together on two threads when both are on and work
    over ``m`` items is :func:`threaded`, else one after the other."""
    if first_on and second_on and threaded(m):
        run_together(first, second)
        return
    if first_on:
        first()
    if second_on:
        second()


def run_together(first: Callable[[], None], second: Callable[[], None]) -> None:
    """``first()`` on this thread while ``second()`` runs on another; re-raises the other's error."""
    error: list[BaseException] = []

    def run() -> None:
        try:
            second()
        except BaseException as exc:  # handed to the calling thread, which re-raises it
            error.append(exc)

    other = threading.Thread(target=run, name="aucopt-worker", daemon=True)
    other.start()
    try:
        first()
    finally:
        other.join()
    if error:
        raise error[0]
