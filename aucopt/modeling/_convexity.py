"""Disciplined convex programming for the :class:`~aucopt.modeling.Model`: curvature, signs, messages.

Every operator is an epigraph in linear rows, so curvature is read off the coefficients: a row of
an :class:`~aucopt.modeling.Affine` expression is affine without a coefficient on an epigraph
block, convex when all those coefficients are ≥ 0, concave when all are ≤ 0 (the rules of
cvxpy's DCP, exact here). :class:`ConvexityChecks`, a base of ``Model``, holds that bookkeeping:
which blocks the epigraph operators created, every block's known sign, the check of a statement's
rows, and the :class:`~aucopt.exceptions.ConvexityError` messages that name the statement (its
source line), the operator, the side and the fix.
"""

from __future__ import annotations

import linecache
import os
import sys
from types import FrameType
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..exceptions import ConvexityError
from ._expressions import Affine, Constraint, Quadratic, Variable

__all__ = ["ConvexityChecks"]

_PACKAGE_DIRS = tuple({os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
                       os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep})


def _caller_site() -> tuple[str, int, str] | None:
    """``(filename, lineno, source line)`` of the first frame outside the aucopt package, or None.

    Called only to word an error, so a refused statement is named by the user's own line (a
    formulation file, a script, a notebook cell); no cost on the normal path.
    """
    try:
        frame: FrameType | None = sys._getframe(1)
    except (AttributeError, ValueError):  # an interpreter without frame access
        return None
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIRS):
        frame = frame.f_back
    if frame is None:
        return None
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    return filename, lineno, _strip_comment(linecache.getline(filename, lineno).strip())


def _strip_comment(line: str) -> str:
    """The source line without a trailing ``# comment`` (tokenized, so a ``#`` in a string stays)."""
    import io
    import tokenize

    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.COMMENT:
                return line[:token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):
        pass
    return line


def _signed_rows(T: Any) -> tuple[np.ndarray, np.ndarray]:
    """The rows holding a positive and a negative coefficient of a sparse block (with repeats)."""
    T = T if getattr(T, "format", None) == "csr" else sp.csr_matrix(T)
    if T.nnz == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    rows = np.repeat(np.arange(T.shape[0]), np.diff(T.indptr))
    return rows[T.data > 0], rows[T.data < 0]


def _number(b: float) -> str:
    return f"{float(b):g}"


def _fix_lower_bound(op: str, bound: float) -> str:
    """How to restate ``op(expr) >= b`` (a convex function bounded from below, not a convex set)."""
    vacuous = float(bound) <= 0
    b = _number(bound)
    if op in ("abs", "positive_part") and vacuous:
        return (f"Alone, {op}(expr) >= {b} holds everywhere ({op} is never negative): drop the row; next to other "
                f"terms it is not a convex set in general: bound {op} by above ({op}(expr) <= b).")
    if op == "abs":
        return (f"abs(expr) >= {b} is not a convex set; bound abs by above (abs(expr) <= b), or model the two "
                "sides with a binary choice, which an LP cannot.")
    if op == "positive_part":
        return (f"positive_part(expr) >= {b} is not a convex set as written; alone it means expr >= {b}: write that "
                "affine row instead, or bound positive_part by above (positive_part(expr) <= b).")
    if op in ("maximum", "group_max"):
        return (f"max(expr) >= {b} asks that some entry reach {b}, a choice between entries that an LP cannot "
                f"state; require it of every entry (expr >= {b}), or bound the maximum by above (max(expr) <= b).")
    if op == "sum_largest":
        return (f"sum_largest(expr, k) >= {b} is not a convex set; bound it by above (sum_largest(expr, k) <= b), "
                "or bound a fixed sum of entries from below.")
    return f"{op}(expr) >= {b} is not a convex set; bound {op} by above instead."



class ConvexityChecks:
    """The curvature and sign bookkeeping of a :class:`~aucopt.modeling.Model` (a base class).

    ``Model.__init__`` sets the state: ``_epigraph`` (the blocks created by epigraph operators
    → the operator's name), ``_sign`` (every block's known sign at every feasible point: +1
    non-negative, −1 non-positive, 0 unknown), ``_constraints`` and ``_formulation`` (the
    formulation's name, for messages).
    """

    _epigraph: dict[str, str]
    _sign: dict[str, int]
    _constraints: list[Constraint]
    _formulation: str | None

    # ----------------------------------------------------------------- convexity (DCP)
    # Every operator is an epigraph in linear rows, so curvature is read off the coefficients:
    # a row of an Affine expression is affine without a coefficient on an epigraph block,
    # convex when all those coefficients are >= 0, concave when all are <= 0. Checks look at
    # the epigraph blocks' coefficient matrices only, when a statement is declared.
    def _curvature_rows(self, expr: Affine) -> tuple[np.ndarray, np.ndarray]:
        """Per row: a positive (convex part) and a negative (concave part) coefficient on an epigraph block."""
        convex, concave = np.zeros(expr.size, dtype=bool), np.zeros(expr.size, dtype=bool)
        for name, T in expr.terms.items():
            if name in self._epigraph:
                pos, neg = _signed_rows(T)
                convex[pos] = True
                concave[neg] = True
        return convex, concave

    def _row_signs(self, expr: Affine) -> tuple[np.ndarray, np.ndarray]:
        """Per row: known non-negative, known non-positive at every feasible point (sign tracking).

        Non-negative: a constant >= 0 and coefficients >= 0 on non-negative blocks (variables
        with lower >= 0, the epigraph variables of abs, positive_part, ...), <= 0 on
        non-positive blocks, and no other term; non-positive likewise.
        """
        nonneg, nonpos = expr.const >= 0, expr.const <= 0
        for name, T in expr.terms.items():
            pos, neg = _signed_rows(T)
            sign = self._sign.get(name, 0)
            if sign >= 0:
                nonneg[neg] = False
                nonpos[pos] = False
            if sign <= 0:
                nonneg[pos] = False
                nonpos[neg] = False
        return nonneg, nonpos

    def _violation(self, expr: Affine, need_concave: np.ndarray | None,
                   need_convex: np.ndarray | None) -> tuple[int, str, int] | None:
        """The first ``(row, block, sign)``: a row that needs a concave (convex) expression with a
        positive (negative) coefficient on an epigraph block; None when every row is fine."""
        hit: tuple[int, str, int] | None = None
        for name, T in expr.terms.items():
            if name not in self._epigraph:
                continue
            pos, neg = _signed_rows(T)
            for rows, need, sign in ((pos, need_concave, 1), (neg, need_convex, -1)):
                if need is None or rows.size == 0:
                    continue
                bad = rows[need[rows]]
                if bad.size and (hit is None or int(bad.min()) < hit[0]):
                    hit = (int(bad.min()), name, sign)
        return hit

    def _check_rows(self, con: Constraint, kind: Any, skip: np.ndarray | None = None) -> None:
        """Refuse (ConvexityError) rows that are not convex sets: ``>=`` needs concave, ``<=`` convex.

        ``kind`` names the statement for the message: ``"constraint"``, ``"lift"``, ``"scores"``,
        ``"sum_squares"`` or ``(operator, s)`` for an operator's own epigraph rows, s the sign of
        its argument in them. ``skip`` masks rows implied by others (not checked). The block an
        operator creates is registered after its rows, so they are exempt for it only.
        """
        if not self._epigraph or self._epigraph.keys().isdisjoint(con.expr.terms):
            return
        need_concave, need_convex = con.lower > -np.inf, con.upper < np.inf
        if skip is not None:
            need_concave, need_convex = need_concave & ~skip, need_convex & ~skip
        hit = self._violation(con.expr, need_concave, need_convex)
        if hit is not None:
            raise ConvexityError(self._rows_message(con, kind, *hit))

    def _add_rows(self, con: Constraint, kind: Any, skip: np.ndarray | None = None) -> None:
        """Check (see :meth:`_check_rows`) and add an operator's rows."""
        self._check_rows(con, kind, skip)
        self._constraints.append(con)

    def _register(self, var: Variable, op: str, nonneg: bool = False) -> None:
        """Record ``var`` as the epigraph block of ``op``, known non-negative when ``nonneg``."""
        self._epigraph[var.name] = op
        if nonneg:
            self._sign[var.name] = 1

    # ----------------------------------------------------------------- convexity messages
    def _statement(self, what: str) -> str:
        """``what`` with the caller's source line, file, line number and the formulation, when known."""
        site = _caller_site()
        text = what
        if site is not None and site[2]:
            text += f" `{site[2]}`"
        place = [f"formulation {self._formulation!r}"] if self._formulation else []
        if site is not None:
            place.append(f"{site[0]}:{site[1]}")
        return text + (f" ({', '.join(place)})" if place else "")

    def _rows_message(self, con: Constraint, kind: Any, row: int, block: str, sign: int) -> str:
        op = self._epigraph[block]
        n = con.expr.size
        entry = f"row {row} (of {n:,})" if n > 1 else "its row"
        coef = "a positive" if sign > 0 else "a negative"
        lo, hi = float(con.lower[row]), float(con.upper[row])
        if kind == "constraint":
            if lo == hi:
                side, need = f"== {_number(lo)}", "an affine expression (an equality)"
            elif sign > 0:
                side, need = f">= {_number(lo)}", "a concave expression"
            else:
                side, need = f"<= {_number(hi)}", "a convex expression"
            term = f"{op}(...) is convex and enters" if sign > 0 else f"-{op}(...) is concave: {op} enters"
            head = (f"{self._statement('the constraint')} is not convex: {term} {entry} with {coef} coefficient, "
                    f"but `{side}` needs {need}")
            if lo == hi:
                b = _number(lo if sign > 0 else -lo)
                fix = (f"{op}(expr) == {b} is not a convex set; relax it to {op}(expr) <= {b}"
                       + (", or model the two sides with a binary choice, which an LP cannot." if op == "abs"
                          else " when the objective pushes it down."))
            elif sign > 0:
                fix = _fix_lower_bound(op, lo)
            else:
                fix = f"-{op}(expr) <= {_number(hi)} is {op}(expr) >= {_number(-hi)}; " + _fix_lower_bound(op, -hi)
            return f"{head}. {fix}"
        if kind in ("lift", "scores"):
            curvature = "convex" if sign < 0 else "concave"  # the expression enters the row negated
            what, fix = (("m.lift(expr)", f"declares v == expr, an equality, which needs an affine expr, but {op}(...) "
                          f"enters row {row} of expr ({curvature}). {op} already returns a variable (its epigraph): "
                          "use it directly, or an inequality v >= expr when only an upper bound is meant.")
                         if kind == "lift" else
                         ("m.scores(coef)", f"declares score variables s == K coef, an equality, which needs an affine "
                          f"coef, but {op}(...) enters row {row} of coef ({curvature}). Pass the expansion weights as "
                          "a variable, or build with lifted=False."))
            return f"{self._statement(what)} is not convex: it {fix}"
        if isinstance(kind, tuple) and kind[0] == "abs":
            s = sign * kind[1]  # the sign of op in abs's argument
            curvature, known = ("convex", "non-negative") if s > 0 else ("concave", "non-positive")
            return (f"{self._statement('the argument of abs')} is not affine: {op}(...) enters entry {row} with "
                    f"{'a positive' if s > 0 else 'a negative'} coefficient ({curvature}), and the entry is not known "
                    f"to be {known}. abs is convex of an affine argument, of a convex non-negative one (abs is "
                    "nondecreasing there, e.g. abs(positive_part(x))) or of a concave non-positive one; abs of a "
                    f"{curvature} expression of unknown sign is not convex. Make the argument affine, make its sign "
                    "visible (positive_part, variables declared with lower=0), or drop abs where the argument is "
                    "non-negative anyway.")
        if isinstance(kind, tuple):
            name = kind[0]
            return (f"{self._statement(f'the argument of {name}')} is not convex: {name} is convex and nondecreasing, "
                    f"so its argument must be convex or affine, but {op}(...) enters entry {row} of the argument with "
                    f"a negative coefficient (concave). {name}(-{op}(...)) is not convex in general (max(-abs(x)) is "
                    f"concave); give {op} a non-negative coefficient in the argument of {name}.")
        return (f"{self._statement(str(kind))} is not convex: {op}(...) enters row {row} with {coef} coefficient "
                "on the wrong side of its bound.")

    def _sum_squares_message(self, expr: Affine, row: int, convex: np.ndarray, concave: np.ndarray) -> str:
        op = next(self._epigraph[name] for name, T in expr.terms.items()
                  if name in self._epigraph and sp.csr_matrix(T)[row].count_nonzero())
        if convex[row] and concave[row]:
            state = "of unknown curvature (it has convex and concave parts)"
        elif convex[row]:
            state = "convex but not known to be non-negative"
        else:
            state = "concave but not known to be non-positive"
        return (f"{self._statement('m.sum_squares(expr)')} is not convex: {op}(...) enters entry {row} of expr, "
                f"which is {state}. The square is convex of an affine entry, of a convex non-negative one (it is "
                "nondecreasing there, e.g. sum_squares(positive_part(x))) or of a concave non-positive one; "
                "otherwise it is not (maximum(x) may be negative, and the square would push its epigraph variable "
                "to 0, not to the maximum). Make the entry affine or its sign visible (positive_part, variables "
                "declared with lower=0).")

    def _objective_message(self, row: int, block: str, sign: int) -> str:
        op = self._epigraph[block]
        extra = "; maximizing abs needs a binary choice of sign, which an LP cannot" if op == "abs" else ""
        return (f"{self._statement('the objective')} is not convex: {op}(...) is convex and enters it with a negative "
                f"coefficient, so minimizing it maximizes {op}, which is not a convex problem (the epigraph "
                f"variable of {op}, only bounded from below by its value, would grow without limit). Give {op} a "
                f"non-negative weight in the minimized objective{extra}.")

    def _product_message(self, a: Any, op: str, b: Any) -> str:
        def name(e: Any) -> str:
            return "sum_squares(...)" if isinstance(e, Quadratic) else "expr"

        return (f"{self._statement('the product')} is not convex: `{name(a)} {op} {name(b)}` multiplies two "
                "expressions of the variables, which is neither affine nor convex in general, and this LP/QP layer "
                "multiplies expressions by numbers and constant vectors or matrices only. For a square use "
                "m.sum_squares(expr); otherwise make one factor a constant.")

    def _concave_quadratic_message(self, what: str) -> str:
        return (f"{self._statement('the expression')} is not convex: {what} is concave (a sum_squares takes "
                "non-negative multiples only), and minimizing it, i.e. maximizing a sum of squares, is not a convex "
                "problem: a QP solver would return a wrong point or fail. Give sum_squares a non-negative weight; "
                "to keep a quantity away from zero, bound it by affine rows (expr >= 1) instead.")

    def _quadratic_constraint_message(self, sense: str) -> str:
        return (f"{self._statement('the constraint')} is not supported: a sum_squares compared with `{sense}` is a "
                "quadratic constraint, and this LP/QP layer holds a quadratic term in the objective only (the "
                "problem's rows are linear). Put the term in the objective with a weight, or bound an L1 or "
                "L-infinity norm with m.abs / m.maximum (linear rows); sum_squares(...) >= b is not convex at all.")
