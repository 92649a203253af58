"""The LP Ranker at scale (Ataman 2007, seed 003 Ch. IV): constraint generation and subgradient.

Both work on a training kernel K (m × m, symmetric), point signs y (the pair set's ``signs``)
and any :class:`~aucopt.pairs.PairSet` (bipartite, survival, weighted), for

    F(α) = Σ_l α_l + C Σ_(i,j) w_ij max(0, 1 − (f_i − f_j)),   f = K Y α,  α ≥ 0   (eq. 4.4, w_ij restored)

* :func:`chunking` — "modified chunking" (Fig. 4.1) = constraint generation: solve the LP on
  S ∪ chunk, add the pairs whose **margin** is violated (f_i − f_j < 1 − tol; the thesis's
  "pairwise violations" read as mis-ordered pairs is not exact), all of them (scheme 1) or the
  ``top_k`` most violated per chunk (scheme 2), until a full pass adds nothing. Each restricted LP
  is a relaxation, so a pass that adds nothing certifies the full-LP optimum.
* :func:`subgradient` — projected subgradient (Fig. 4.4, eq. 4.5) with the dynamic Polyak step
  s_k = λ (F(α_k) − F_target)/‖g_k‖², F − F_target = ``target_frac``·F, λ divided by ``shrink``
  after ``patience`` non-improving iterations, stop at λ < ``lam_end``; also the constant and
  1/√k rules. The hinge value and subgradient come from the sorted-pair core in O(m log m) plus
  two kernel products per iteration — pairs are never listed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .._progress import progress_bar
from ..modeling import get_formulation
from ..pairs import PairSet
from ..pairs.core import pair_loss
from ..solvers import solve

STEP_RULES = ("dynamic", "constant", "sqrt")
MAX_CHUNKED_PAIRS = 50_000_000


def lp_objective(K, pairs: PairSet, C: float, alpha) -> tuple[float, np.ndarray]:
    """F(α) = Σα + C Σ w_ij [1 − (f_i − f_j)]_+ and the scores f = K Y α (O(m² + m log m))."""
    f = K @ (pairs.signs * alpha)
    hinge, _ = pair_loss(pairs, f, "hinge")
    return float(np.sum(alpha)) + C * hinge, f


# ============================================================================ subgradient
@dataclass
class SubgradientResult:
    alpha: np.ndarray  # the best iterate
    objective: float  # F at the best iterate
    iterations: int
    best_iteration: int
    history: list = field(default_factory=list)  # per iteration: objective, best, step, lam, seconds


def subgradient(K, pairs: PairSet, C: float, *, rule: str = "dynamic", lam0: float = 2.0,
                lam_end: float = 0.005, patience: int = 10, shrink: float = 2.0,
                target_frac: float = 0.1, step: float = 0.1, max_iter: int = 5000, alpha0=None,
                callback=None, progress: bool | None = False) -> SubgradientResult:
    """Projected subgradient for the LP Ranker (seed 003 Fig. 4.4 / eq. 4.5), keeping the best iterate.

    ∂F/∂α = 1 + C·Y Kᵀ c with c = ∂(hinge sum)/∂f from the pair core (c_u = −Σ_j w_uj over
    u's violated pairs as first element, +Σ_i w_iu as second; pairs with margin exactly 1
    contribute 0). ``rule="dynamic"`` (default, the thesis's choice): λ starts at ``lam0``, is
    divided by ``shrink`` on the (patience+1)-th consecutive non-improving iteration, and the
    run stops when λ < ``lam_end`` (or at ``max_iter``); ``"constant"`` and ``"sqrt"`` (both run
    ``max_iter`` iterations) move α by the distance ``step`` resp. ``step``/√k along −g/‖g‖
    (normalized steps: ‖g‖ grows with C and the number of pairs, so a raw step size would not
    transfer between problems). ``history[k]["step"]`` is the multiplier s_k of g actually used.
    """
    _check_subgradient_params(rule, lam0, lam_end, patience, shrink, target_frac, step, max_iter, C)
    pairs.check_nonempty()
    m = pairs.n_points
    y = pairs.signs
    alpha = np.zeros(m) if alpha0 is None else np.maximum(np.asarray(alpha0, dtype=float), 0.0)
    best_alpha, best_F, best_k = alpha.copy(), np.inf, 0
    lam, h_count = float(lam0), 0
    history = []
    bar = progress_bar(progress, total=max_iter, desc="subgradient")
    start = time.perf_counter()
    k = 0
    for k in range(1, max_iter + 1):
        f = K @ (y * alpha)
        hinge, c = pair_loss(pairs, f, "hinge")
        F = float(alpha.sum()) + C * hinge
        if F < best_F:
            best_F, best_alpha, best_k, h_count = F, alpha.copy(), k, 0
        elif h_count < patience:
            h_count += 1
        else:
            lam, h_count = lam / shrink, 0
        if rule == "dynamic" and lam < lam_end:
            break
        g = 1.0 + C * y * (K @ c)  # K symmetric: Kᵀc = Kc
        gg = float(g @ g)
        if gg == 0.0:  # α is a stationary point of F
            break
        if rule == "dynamic":
            s = lam * target_frac * F / gg
        elif rule == "constant":
            s = step / np.sqrt(gg)
        else:
            s = step / np.sqrt(k * gg)
        alpha = np.maximum(alpha - s * g, 0.0)
        record = {"iteration": k, "objective": F, "best": best_F, "step": s, "grad_norm": np.sqrt(gg),
                  "seconds": time.perf_counter() - start}
        if rule == "dynamic":
            record["lam"] = lam
        history.append(record)
        if callback is not None:
            callback(record)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(F=f"{F:.6g}", best=f"{best_F:.6g}", lam=f"{lam:.3g}")
    if bar is not None:
        bar.close()
    return SubgradientResult(alpha=best_alpha, objective=best_F, iterations=k, best_iteration=best_k,
                             history=history)


def _check_subgradient_params(rule, lam0, lam_end, patience, shrink, target_frac, step, max_iter, C):
    if rule not in STEP_RULES:
        raise ValueError(f"rule must be one of {STEP_RULES}; got {rule!r}.")
    checks = [("lam0", lam0, lambda v: v > 0), ("lam_end", lam_end, lambda v: 0 < v),
              ("shrink", shrink, lambda v: v > 1), ("target_frac", target_frac, lambda v: 0 < v < 1),
              ("step", step, lambda v: v > 0), ("C", C, lambda v: 0 < v < np.inf)]
    for name, value, ok in checks:
        if not np.isscalar(value) or isinstance(value, bool) or not ok(float(value)):
            raise ValueError(f"{name}={value!r} is out of range.")
    for name, value in (("patience", patience), ("max_iter", max_iter)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < (0 if name == "patience" else 1):
            raise ValueError(f"{name} must be a {'non-negative' if name == 'patience' else 'positive'} integer; got {value!r}.")


# ============================================================================ chunking
@dataclass
class ChunkingResult:
    alpha: np.ndarray
    objective: float  # full-LP objective F(α) over all pairs
    passes: int
    n_constraints: int  # |S|, the retained pairs
    n_solves: int
    history: list = field(default_factory=list)  # per chunk solve: pass, chunk, |S|, added, objective
    solve_result: object = None


def chunking(K, pairs: PairSet, C: float, *, n_chunks: int = 5, scheme: int = 1, top_k: int = 1000,
             violation: str = "margin", tol: float = 1e-7, max_passes: int = 50, solver: str = "highs",
             solver_options: dict | None = None, random_state=0, callback=None) -> ChunkingResult:
    """Constraint generation for the LP Ranker (seed 003 Fig. 4.1, executable version of §2.1).

    The pairs are split into ``n_chunks`` random chunks (fixed across passes; a chunk is a set of
    pair positions, listed only when its LP is built). For each chunk the LP (3.3) is solved on
    S ∪ chunk; the other pairs are scanned chunk by chunk for violations, ``"margin"``:
    f_i − f_j < 1 − tol (exact) or ``"misorder"``: f_i − f_j < 0 (the other reading; not exact);
    scheme 1 adds all of them to S, scheme 2 the ``top_k`` smallest margins per chunk. Stops
    after a pass that adds nothing (or ``max_passes``). Returns the last LP's α. With HiGHS,
    every LP after the first starts from the previous α (scores and slacks completed), which
    HiGHS turns into a starting basis.
    """
    if scheme not in (1, 2):
        raise ValueError(f"scheme must be 1 (all violated pairs) or 2 (top_k most violated); got {scheme!r}.")
    if violation not in ("margin", "misorder"):
        raise ValueError(f"violation must be 'margin' (exact) or 'misorder'; got {violation!r}.")
    P = pairs.check_nonempty().n_pairs
    if isinstance(n_chunks, bool) or not isinstance(n_chunks, (int, np.integer)) or not 1 <= n_chunks <= P:
        raise ValueError(f"n_chunks must be an integer in [1, {P}]; got {n_chunks!r}.")
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
        raise ValueError(f"top_k must be a positive integer; got {top_k!r}.")
    form = get_formulation("lp_ranker")
    if P > MAX_CHUNKED_PAIRS:  # the chunk labels and masks take ~17 bytes per pair
        raise ValueError(f"{P:,} pairs are too many to partition into chunks here; use method='subgradient'.")
    chunk_of = np.random.default_rng(random_state).integers(0, n_chunks, size=P)
    chunks = [np.flatnonzero(chunk_of == b) for b in range(n_chunks)]
    threshold = 1.0 - tol if violation == "margin" else 0.0
    in_S = np.zeros(P, dtype=bool)
    history, n_solves, result, alpha = [], 0, None, np.zeros(pairs.n_points)
    passes = 0
    for passes in range(1, max_passes + 1):
        added = 0
        for b, chunk in enumerate(chunks):
            R = np.union1d(np.flatnonzero(in_S), chunk)
            i, j, w = pairs.pairs_at(R)
            restricted = PairSet.from_arrays(i, j, w, n_points=pairs.n_points, signs=pairs.signs)
            problem = form.build(restricted, K, C=C, max_bytes=None)
            options = dict(solver_options or {})
            if solver == "highs" and n_solves and "warm_start" not in options:
                options["warm_start"] = {"x": _warm_point(problem, K, pairs.signs, alpha, i, j)}
            result = solve(problem, solver, **options).raise_for_status()
            n_solves += 1
            alpha = problem.block(result.x, "alpha")
            f = K @ (pairs.signs * alpha)
            in_R = np.zeros(P, dtype=bool)
            in_R[R] = True
            new = []
            for other in chunks:  # scan the pairs outside R, one chunk at a time
                cand = other[~in_R[other]]
                if len(cand) == 0:
                    continue
                ci, cj, _ = pairs.pairs_at(cand)
                lhs = f[ci] - f[cj]
                hit = lhs < threshold
                new.append((cand[hit], lhs[hit]))
            cand = np.concatenate([c for c, _ in new]) if new else np.zeros(0, dtype=np.int64)
            lhs = np.concatenate([v for _, v in new]) if new else np.zeros(0)
            if scheme == 2 and len(cand) > top_k:
                cand = cand[np.argpartition(lhs, top_k - 1)[:top_k]]
            fresh = cand[~in_S[cand]]
            in_S[fresh] = True
            added += len(fresh)
            record = {"pass": passes, "chunk": b, "retained": int(in_S.sum()), "added": int(len(fresh)),
                      "restricted_objective": result.objective}
            history.append(record)
            if callback is not None:
                callback(record)
        if added == 0:
            break
    objective, _ = lp_objective(K, pairs, C, alpha)
    return ChunkingResult(alpha=alpha, objective=objective, passes=passes, n_constraints=int(in_S.sum()),
                          n_solves=n_solves, history=history, solve_result=result)


def _warm_point(problem, K, signs, alpha, i, j) -> np.ndarray:
    """A feasible start for the next restricted LP from the previous α: scores s = K Y α and
    the slacks z_ij = max(0, 1 − (s_i − s_j)) of the new pair rows (HiGHS warm start)."""
    x = np.zeros(problem.n_vars)
    s = K @ (signs * alpha)
    x[problem.blocks["alpha"]] = alpha
    x[problem.blocks["scores"]] = s
    x[problem.blocks["z"]] = np.maximum(0.0, 1.0 - (s[i] - s[j]))
    return x

