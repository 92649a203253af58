"""The names of a problem's columns and rows in model and solution files, and the blocks they give back.

Column ``k`` of the variable block ``alpha`` is named ``alpha(k)`` (the block name reduced to
letters, digits, ``_`` and ``.``, and not starting with a digit or ``.``), so the files are valid
MPS and CPLEX LP and a solution file maps back by name; columns outside every block are
``_x(j)``, row ``i`` is ``r(i)``. Reading a file recovers the blocks from such names.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .problem import Problem

__all__ = ["column_names", "row_names"]

_INDEXED = re.compile(r"^(.+)\((\d+)\)$")


def _sanitize(name: str) -> str:
    """A block name reduced to characters valid in MPS and CPLEX LP names."""
    text = re.sub(r"[^A-Za-z0-9_.]", "_", str(name)) or "_"
    return "_" + text if text[0].isdigit() or text[0] == "." else text


def _fresh(base: str, used: set[str]) -> str:
    """``base`` with ``_`` appended until it is not in ``used``; added to ``used``."""
    while base in used:
        base += "_"
    used.add(base)
    return base


def column_names(problem: Problem) -> list[str]:
    """The column names used in files: ``block(k)`` per block entry, ``_x(j)`` outside the blocks.

    A problem read from a file keeps the file's names (``metadata["column_names"]``).

    Parameters
    ----------
    problem : Problem
        The problem.

    Returns
    -------
    list of str
        ``problem.n_vars`` unique names.

    Examples
    --------
    >>> from aucopt import PairSet, get_formulation
    >>> from aucopt.modeling._interop import column_names
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0]), [[1.0, 0.0], [0.0, 1.0]])
    >>> column_names(problem)
    ['alpha(0)', 'alpha(1)', 'z(0)', 'scores(0)', 'scores(1)']
    """
    given = problem.metadata.get("column_names")
    if given is not None and len(given) == problem.n_vars:
        return list(given)
    names: list[str | None] = [None] * problem.n_vars
    used: set[str] = set()
    for block, sl in sorted(problem.blocks.items(), key=lambda item: item[1].start):
        base = _fresh(_sanitize(block), used)  # two block names may sanitize alike
        for k, j in enumerate(range(*sl.indices(problem.n_vars))):
            names[j] = f"{base}({k})"
    free = _fresh("_x", used)
    return [name if name is not None else f"{free}({j})" for j, name in enumerate(names)]


def row_names(problem: Problem) -> list[str]:
    """The row names used in files: ``r(i)``, or the names a file was read with.

    Parameters
    ----------
    problem : Problem
        The problem.

    Returns
    -------
    list of str
        ``problem.n_rows`` names.
    """
    given = problem.metadata.get("row_names")
    if given is not None and len(given) == problem.n_rows:
        return list(given)
    return [f"r({i})" for i in range(problem.n_rows)]


def _blocks_from_names(names) -> dict[str, slice]:
    """Blocks ``name(0), name(1), ...`` (consecutive columns, indices from 0) found in ``names``."""
    blocks: dict[str, slice] = {}
    seen: set[str] = set()
    j, n = 0, len(names)
    while j < n:
        match = _INDEXED.match(names[j])
        if not match or int(match.group(2)) != 0 or match.group(1) in seen:
            if match:
                seen.add(match.group(1))
            j += 1
            continue
        base, start = match.group(1), j
        while j < n and names[j] == f"{base}({j - start})":
            j += 1
        seen.add(base)
        blocks[base] = slice(start, j)
    return blocks


def _block_order(names: list[str]) -> np.ndarray | None:
    """The column permutation that puts every block ``base(0), base(1), ...`` in index order.

    Blocks keep the order of their first column. None when the permutation is the identity or
    some name is not of the form ``base(k)`` with each base's indices exactly 0, 1, ..., size − 1.
    """
    groups: dict[str, list[tuple[int, int]]] = {}
    for j, col in enumerate(names):
        match = _INDEXED.match(col)
        if not match:
            return None
        groups.setdefault(match.group(1), []).append((int(match.group(2)), j))
    columns: list[int] = []
    for members in groups.values():
        members.sort()
        if [k for k, _ in members] != list(range(len(members))):
            return None
        columns += [j for _, j in members]
    order = np.asarray(columns, dtype=np.int64)
    return None if np.array_equal(order, np.arange(len(names))) else order
