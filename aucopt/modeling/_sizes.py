"""Size estimates of the problems the builder assembles: bytes per nonzero and the generic nonzero count.

:meth:`Model.build <aucopt.modeling.Model.build>` and products of expressions check their
nonzeros against the memory budget with :data:`BYTES_PER_NONZERO`; :func:`lifted_lp_nnz` is the
size a formulation that declares none (``nnz=``) is assumed to have
(:meth:`Formulation.estimate_nbytes <aucopt.modeling.Formulation.estimate_nbytes>`).
"""

from __future__ import annotations

__all__ = ["BYTES_PER_NONZERO", "lifted_lp_nnz"]

BYTES_PER_NONZERO = 8 + 4
"""Bytes per stored nonzero of a sparse matrix: a float64 value and an int32 index (CSC)."""


def lifted_lp_nnz(n_points: int, n_pairs: int, n_basis: int, lifted: bool = True) -> int:
    """Generic size of a kernel-expansion LP over pairs: the fallback of :meth:`Formulation.estimate_nbytes`.

    Counts the lifted score rows (n_points × n_basis nonzeros) and the pair rows: 3 nonzeros each
    when lifted, 2·n_basis (the product D·K that forms them) otherwise.

    Parameters
    ----------
    n_points, n_pairs, n_basis : int
        Points, pairs and expansion points.
    lifted : bool, default=True
        Lifted or dense pair rows.

    Returns
    -------
    int
        Number of nonzeros.

    See Also
    --------
    Formulation.estimate_nbytes : uses it for formulations that declare no size.

    Examples
    --------
    >>> from aucopt.modeling import lifted_lp_nnz
    >>> lifted_lp_nnz(100, 2500, 100), lifted_lp_nnz(100, 2500, 100, lifted=False)
    (17500, 510000)
    """
    return int(n_points * n_basis + (3 if lifted else 2 * n_basis) * n_pairs)
