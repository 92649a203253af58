"""Exceptions and warnings raised by aucopt, in one place.

* :class:`ProblemTooLargeError` — a problem (pair list, kernel matrix, assembled LP/QP) would not
  fit in the memory budget ``max_bytes``; raised before any work starts, naming the scalable path.
* :class:`NoComparablePairsError` — the target defines no pair to rank (one class only, no event).
* :class:`SolverError` — a backend returned no usable solution (infeasible, unbounded, failure).
* :class:`SolverWarning` — a backend stopped early or reports low accuracy.
"""

from __future__ import annotations

from ._validation import format_bytes

__all__ = ["ProblemTooLargeError", "NoComparablePairsError", "SolverError", "SolverWarning",
           "check_memory"]


class ProblemTooLargeError(MemoryError, ValueError):
    """A problem would need more memory than the budget ``max_bytes`` allows.

    Raised before any allocation, with the size that was estimated, the budget and the
    scalable path that avoids the problem. Subclasses both :class:`MemoryError` and
    :class:`ValueError`.

    Attributes
    ----------
    what : str
        The object that would be too large (e.g. ``"the 20,000 x 20,000 kernel matrix"``).
    nbytes : float
        Estimated size in bytes.
    max_bytes : float
        The budget in force.

    Examples
    --------
    >>> from aucopt.exceptions import ProblemTooLargeError, check_memory
    >>> try:
    ...     check_memory(8e9, 2e9, "the kernel matrix", "use RankRC")
    ... except ProblemTooLargeError as exc:
    ...     print(exc)
    the kernel matrix would need about 8.0 GB (limit max_bytes=2.0 GB): use RankRC, or raise max_bytes.
    """

    def __init__(self, what: str, nbytes: float, max_bytes: float, fix: str):
        self.what, self.nbytes, self.max_bytes = what, float(nbytes), float(max_bytes)
        super().__init__(f"{what} would need about {format_bytes(nbytes)} "
                         f"(limit max_bytes={format_bytes(max_bytes)}): {fix}, or raise max_bytes.")


def check_memory(nbytes: float, max_bytes: float | None, what: str, fix: str) -> None:
    """Raise :class:`ProblemTooLargeError` when ``nbytes`` exceeds ``max_bytes`` (None: no limit).

    Parameters
    ----------
    nbytes : float
        Estimated size of the object about to be built.
    max_bytes : float or None
        The budget; None disables the check.
    what : str
        What would be built, for the message.
    fix : str
        The scalable path or remedy, for the message.

    Examples
    --------
    >>> from aucopt.exceptions import check_memory
    >>> check_memory(1e6, 2e9, "a small matrix", "nothing to do")  # within budget: no error
    """
    if max_bytes is not None and nbytes > max_bytes:
        raise ProblemTooLargeError(what, nbytes, max_bytes, fix)


class NoComparablePairsError(ValueError):
    """The target defines no pair (i, j) to rank: one class only, or no comparable survival pair.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.exceptions import NoComparablePairsError
    >>> try:
    ...     PairSet.survival(np.zeros(3, bool), [1.0, 2.0, 3.0]).check_nonempty()
    ... except NoComparablePairsError:
    ...     print("no comparable pairs")
    no comparable pairs
    """


class SolverWarning(UserWarning):
    """A solver stopped early (time or iteration limit) or reports low accuracy.

    The returned solution is usable but approximate; raise the limit or loosen ``tol``.
    """


class SolverError(RuntimeError):
    """A solver returned no usable solution (infeasible, unbounded, numerical failure).

    Parameters
    ----------
    result : SolveResult
        The backend's result; kept as the ``result`` attribute.
    """

    def __init__(self, result):
        self.result = result
        super().__init__(
            f"{result.solver} returned status '{result.status}' on {result.problem_name!r}"
            + (f": {result.message}" if result.message else "")
        )
