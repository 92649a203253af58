"""One-pass AUC optimization (Gao, Jin, Zhu & Zhou, ICML 2013).

A linear scorer f(x) = wᵀx is trained on the square pairwise loss in a single pass over the data.
The loss of an example against all earlier examples of the other class depends on those examples
only through the class mean and covariance, so the state is O(d²) (or O(τd) with a rank-τ
covariance sketch), whatever the length of the stream. The class statistics are additive: they
also come from partitions of a data set merged exactly (:class:`ClassStats`,
:mod:`aucopt.distributed`), and they give the batch minimizer in closed form
(:func:`batch_solution`).
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Iterable
from numbers import Integral
from typing import Any, ClassVar, Literal, cast

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d, validate_data

from .._fitting import sample_weight_for
from .._progress import progress_bar
from .._validation import (
    Count,
    binary_labels,
    check_feature_scale,
    check_magnitude_scale,
    check_point_weights,
    check_weight_underflow,
    unique_labels,
)
from ..base import (
    MAX_BYTES_CONSTRAINT,
    PAIR_OPTIONS_CONSTRAINT,
    POS_LABEL_CONSTRAINT,
    RANDOM_STATE_CONSTRAINT,
    VERBOSE_CONSTRAINT,
    BinaryRankerMixin,
    as_generator,
    positive,
)
from ..exceptions import check_memory
from ..pairs import DEFAULT_MAX_BYTES
from ._stats import ClassStats, batch_solution, batch_solution_from_stats, class_statistics
from ._svmlight import iter_svmlight_chunks

# ClassStats, the batch solutions and iter_svmlight_chunks live in _stats / _svmlight; they stay
# importable from here (and a pickled ClassStats names its defining module, aucopt.online._stats).
__all__ = ["ClassStats", "OnePassAUC", "batch_solution", "batch_solution_from_stats",
           "class_statistics", "iter_svmlight_chunks"]

#: what ``random_state`` accepts: a seed, a generator, a legacy RandomState or None
_RandomState = int | np.random.Generator | np.random.RandomState | None

_COPY_BLOCK = 8192  # rows of a dense X that is not C-contiguous are copied this many at a time
#: examples per progress-bar update when ``verbose`` is set
_PROGRESS_BLOCK = 10_000


# ============================================================================ estimator
@functools.cache
def _load_kernels():
    """The compiled updates (numba is imported with the first fit, not with aucopt)."""
    from . import _onepass_kernels

    return _onepass_kernels


@functools.cache
def _load_full_kernels():
    """The compiled full-covariance streams (imported with the first fit, as :func:`_load_kernels`)."""
    from . import _onepass_full

    return _onepass_full


def _writeable(a):
    """``a`` as a C-contiguous, writeable float64 array (the kernels' one signature), copied if needed."""
    if a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable:
        return a
    return np.array(a, dtype=np.float64, order="C")


def _check_not_survival(y):
    """Refuse a survival target (structured (event, time) array) with a pointer to the right models."""
    dtype = getattr(y, "dtype", None)
    if dtype is not None and dtype.names is not None:
        raise ValueError(
            f"OnePassAUC takes binary class labels, but y is a survival target (a structured array "
            f"with fields {list(dtype.names)}). For survival data use a survival estimator: "
            "SurvivalRankSVM, SurvivalLPRanker, SurvivalAUCSVM, SurvivalRankRC or SurvivalSparseAUC."
        )


class OnePassAUC(BinaryRankerMixin, BaseEstimator):
    """One-pass AUC optimization: a linear ranker trained in a single pass over a stream.

    Each example takes one gradient step on its square pairwise loss against all earlier
    examples of the other class, which depends on them only through the class means and
    covariances (Gao et al. 2013, Algorithm 1). Memory is O(d²) with full covariances or O(τd)
    with a rank-τ covariance sketch, independent of the number of examples. Dense or sparse X;
    ``partial_fit`` continues the stream and ``fit`` also accepts an iterator of chunks.

    Parameters
    ----------
    alpha : float, default=1e-4
        Penalty multiplier α > 0 of (α/2)‖w‖² (the λ of Gao et al. 2013).
    eta0 : float or "auto", default="auto"
        Step size. "auto": the scale-free step η_t = 1/L_t, with L_t the running maximum of
        α + ‖x_t − c_opp‖² + tr(S_opp), an upper bound on the curvature of every loss seen so
        far (see Notes); multiplying X by a constant then only divides ``coef_`` by it, so
        unscaled features need no tuning. A float: the constant step η > 0 of Gao et al. (2013),
        stable when η ≲ 1/(4 max‖x‖²) (for standardized data roughly η ≲ 1/(4d)); a step too
        large for the scale of the features raises a ``ValueError`` naming the fix as soon as
        the iterate explodes, rather than returning a diverged model.
    rank : int or None, default=None
        None keeps the full class covariances (O(d²) memory); an integer τ in [1, n_features]
        keeps a randomized rank-τ sketch of each (O(τd) memory).
    average : bool, default=True
        Use the running average of the iterates (``coef_avg_``) as the model; False uses the
        last iterate (``coef_``). See Notes for why averaging is the default.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=0
        Seeds the sketch vectors r_t (``rank`` given, ``sketch`` None); not used otherwise.
    pos_label : int, float, bool, str or None, default=None
        The positive class; None means the larger of the two labels.
    pair_options : dict, default=None
        The pair target, in the vocabulary of the other rankers' ``pair_options``: only
        ``{"target": "bipartite"}`` (the default). The one-pass statistics are the means and
        covariances of two classes, so ordinal labels (``{"target": "multipartite"}``) are
        refused with an error naming the rankers that fit them.
    sketch : array-like of shape (n_samples, rank) or None, default=None
        Explicit sketch vectors: row t is used for the t-th example since the last reset
        instead of a random draw, for reproducible experiments; implies ``rank`` = its number
        of columns.
    max_bytes : float or None, default=2147483648
        Memory budget (bytes, default 2 GiB) of the state (with full covariances 2d² float64
        numbers and about as many for their working copies, the classes' scatter matrices; with
        a sketch 2dτ); a larger state raises :class:`~aucopt.exceptions.ProblemTooLargeError`
        before any work.
        None: no limit.
    verbose : int, default=0
        0: silent; ≥ 1: a progress bar over the examples streamed by ``fit`` (or by one
        ``partial_fit`` call).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The last iterate w_T.
    coef_avg_ : ndarray of shape (n_features,)
        The average of the iterates after each step taken.
    rank_ : int or None
        The sketch rank in use (None: full covariances).
    class_count_ : ndarray of shape (2,)
        Examples seen per class (their total ``sample_weight`` when weights are given); index
        0 is the negative class, 1 the positive class.
    class_mean_ : ndarray of shape (2, n_features)
        Class means.
    class_cov_ : ndarray of shape (2, n_features, n_features)
        Population class covariances (full covariances only).
    class_sketch_ : ndarray of shape (2, n_features, rank)
        Z = Σ_i x_i r_iᵀ per class (sketch only).
    class_sketch_sum_ : ndarray of shape (2, rank)
        s = Σ_i r_i per class (sketch only).
    n_updates_ : int
        Gradient steps taken (no step is taken while the other class is still empty).
    update_weight_ : float
        Total weight of the steps taken (``n_updates_`` without ``sample_weight``); the
        averaged iterate weighs each step by its weight.
    step_bound_ : float
        L_t, the curvature bound whose inverse is the step when ``eta0="auto"`` (0 before the
        first step; kept, unused, with a constant step).
    n_seen_ : int
        Examples seen.
    fit_time_ : float
        Seconds taken by the last ``fit`` (not set by ``partial_fit``).
    threshold_ : float
        wᵀ(c₊ + c₋)/2, the score cut used by ``predict``.
    classes_ : ndarray of shape (2,)
        The class labels.
    pos_label_ : int, float, bool or str
        The positive class.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during fit, when ``X`` has string column names.

    See Also
    --------
    batch_solution : The batch minimizer that one pass approaches.
    aucopt.distributed.dask_fit : The same class statistics from a dask collection.
    RankSVM : Batch linear ranking SVM over all pairs (squared hinge).

    Notes
    -----
    With labels y_t ∈ {+1, −1}, class means c± and population covariances S± of the examples
    seen before x_t, the loss of example t is (Gao et al. 2013, Eq. (2) per example)

        L_t(w) = (α/2)‖w‖² + (1/(2T_opp)) Σ_{i<t, y_i ≠ y_t} (1 − y_t wᵀ(x_t − x_i))²
               = (α/2)‖w‖² + ½(1 − y_t wᵀu)² + ½ wᵀS_opp w,    u = x_t − c_opp,

    and the step is w ← w − η (αw − y_t u + u(uᵀw) + S_opp w) (Eqs. (4)–(5)). The means and
    covariances are updated in float64 by Welford's recursion; no step (and no shrinkage) is
    taken while the other class is empty.

    With ``rank=τ``, each example draws r_t ~ N(0, I_τ/τ) once (never stored); per class the
    exact mean, Z = Σ_i x_i r_iᵀ and s = Σ_i r_i are kept, and the covariance is replaced by
    the unbiased positive semidefinite estimate Ŝ = (Z − c sᵀ)(Z − c sᵀ)ᵀ / T, applied to a
    vector in O(τd) (a variant of the sketch of Gao et al. 2013, Eqs. (6)–(11)). When the rows
    of ``sketch`` are orthonormal the estimate is exact.

    **Step size.** The Hessian of L_t is αI + uuᵀ + S_opp, whose largest eigenvalue is at most
    α + ‖u‖² + tr(S_opp). With ``eta0="auto"`` the step is η_t = 1/L_t with L_t the running
    maximum of that bound (a normalized step, as in normalized least mean squares): every
    step is then a contraction of the quadratic L_t, the step shrinks as the features grow, and
    scaling X by s > 0 scales the iterates by 1/s (exactly when α is negligible against the
    curvature). The step depends only on the examples already streamed, so ``partial_fit`` over
    chunks still equals ``fit`` exactly. A constant ``eta0`` reproduces Algorithm 1 of Gao et
    al. (2013); it diverges when η‖x‖² is large, which is detected (``|wᵀu|`` beyond 1e8, or a
    non-finite iterate; the square loss targets wᵀu = ±1) and raised as a ``ValueError``.

    **Averaged iterate.** A single pass takes one stochastic step per example, so the last
    iterate carries the noise of the last few examples; the average of the iterates
    (Polyak–Ruppert averaging) cancels it. On ijcnn1 (49,990 training examples, features in
    [−1, 1]) the averaged iterate reaches a test AUC of 0.918 with ``eta0="auto"`` (0.905 with
    η = 0.01), against 0.861 (0.868) for the last iterate and 0.904 for the batch minimizer;
    on small data sets the two are within about 0.01 of each other. Hence ``average=True``.

    The batch minimizer of Eq. (2), w* = (αI + S₊ + S₋ + δδᵀ)⁻¹ δ with δ = c₊ − c₋
    (:func:`batch_solution`), is the fixed point of the iteration for any class ratio;
    :meth:`batch_solution` computes it from the streamed statistics.

    **Sample weights.** A weight v_t is a multiplicity: the example enters its class's count,
    mean and covariance with weight v_t (weighted Welford updates; the means and covariances
    are those of :func:`class_statistics` with ``sample_weight``), and it takes ⌊v_t⌋ steps on
    its loss L_t plus one step of ``(v_t − ⌊v_t⌋) · η``, each weighing its fraction in the
    averaged iterate. An integer weight is thus exactly the row repeated v_t times in a row,
    and a zero weight is the row removed (it takes no sketch row either). More than 32 steps
    (and more than the width of the state) are taken at once in closed form, through the
    eigendecomposition of the Hessian of L_t, so a large weight costs O(d³) (O(dτ²) with a
    sketch) rather than O(v_t d²). With a sketch the example enters Z and s scaled by √v_t,
    which keeps the covariance estimate unbiased. Weights are not rescaled: multiplying them
    all by 2 is streaming every row twice, which changes the one-pass iterate (not the class
    statistics or the batch minimizer).

    **Compiled updates.** The per-example updates run in compiled code (numba): the first fit on a
    machine compiles them, which takes about 25 s for dense rows and 12 s for sparse rows on a
    2-core machine (the closed form of a heavy weight is compiled the first time one occurs), and
    the machine code is cached on disk for later processes. Dense rows give the same iterates
    whether streamed at once or in chunks, bit for bit. Without a sketch, dense rows update each
    class's scatter matrix T S (kept between calls, rebuilt from ``class_cov_`` when that was set
    otherwise; the iterates agree with updates of S itself to about 1e-14 relative on ijcnn1), and
    sparse rows update each class's second moment Σ v x xᵀ (nnz² terms instead of the d² of a
    centred update) and the covariance is recovered as M/T − c cᵀ, so they agree with the dense rows
    to rounding (covariances to about 1e-14, iterates to about 1e-12 relative on a9a); a sparse X
    whose features lie far from zero against their spread (max E[x²] / max Var[x] above 1000), where
    that cancellation would cost digits, takes the dense rows' centred updates instead.

    References
    ----------
    .. [1] Gao, W., Jin, R., Zhu, S., & Zhou, Z.-H. (2013). One-pass AUC optimization.
       *Proceedings of the 30th International Conference on Machine Learning (ICML)*,
       PMLR 28(3), 906–914.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.preprocessing import StandardScaler
    >>> from aucopt import OnePassAUC
    >>> X, y = make_classification(n_samples=60, n_features=5, random_state=0)
    >>> X = StandardScaler().fit_transform(X)
    >>> model = OnePassAUC(alpha=1e-3, eta0=0.05).fit(X, y)
    >>> model.coef_.shape, round(model.score(X, y), 2)
    ((5,), 0.92)

    The default step is scale-free: unscaled features need no tuning of ``eta0``:

    >>> scaled = OnePassAUC().fit(X, y)
    >>> unscaled = OnePassAUC().fit(1000 * X, y)
    >>> bool(np.allclose(1000 * unscaled.coef_avg_, scaled.coef_avg_, rtol=1e-3))
    True

    The stream can continue, chunk by chunk:

    >>> model = OnePassAUC(alpha=1e-3, eta0=0.05)
    >>> for start in range(0, 60, 20):
    ...     model = model.partial_fit(X[start:start + 20], y[start:start + 20])
    >>> model.n_seen_
    60
    """

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [positive()],
        "eta0": [positive(), StrOptions({"auto"})],
        "rank": [Count(Integral, 1, None, closed="left"), None],
        "average": ["boolean"],
        **RANDOM_STATE_CONSTRAINT,
        **POS_LABEL_CONSTRAINT,
        **PAIR_OPTIONS_CONSTRAINT,
        "sketch": ["array-like", None],
        **MAX_BYTES_CONSTRAINT,
        **VERBOSE_CONSTRAINT,
    }

    #: the one-pass statistics are those of two classes: binary labels only
    _pair_targets: tuple[str, ...] = ("bipartite",)
    _pair_target_reason = ("Its one-pass state is the mean and covariance of each of two classes (Gao et al. "
                           "2013), which has no ordering of more levels: fit ordinal labels with "
                           "RankSVM(pair_options={'target': 'multipartite'}) (linear, any size) or LPRanker.")

    def __init__(self, alpha: float = 1e-4, eta0: float | Literal["auto"] = "auto", rank: int | None = None,
                 average: bool = True, random_state: _RandomState = 0, pos_label: Any = None,
                 pair_options: dict | None = None, sketch: ArrayLike | None = None,
                 max_bytes: float | None = DEFAULT_MAX_BYTES, verbose: int = 0):
        self.alpha = alpha
        self.eta0 = eta0
        self.rank = rank
        self.average = average
        self.random_state = random_state
        self.pos_label = pos_label
        self.pair_options = pair_options
        self.sketch = sketch
        self.max_bytes = max_bytes
        self.verbose = verbose

    # ------------------------------------------------------------------ validation / state
    def _check_model_params(self, n_features):
        """Rules spanning several parameters and the data: the sketch rank, or None."""
        tau = self.rank
        if self.sketch is not None:
            R = np.asarray(self.sketch, dtype=np.float64)
            if R.ndim != 2 or not np.all(np.isfinite(R)):
                raise ValueError(f"sketch must be a finite 2-d array of shape (n_samples, rank); "
                                 f"got shape {R.shape}.")
            if tau is not None and tau != R.shape[1]:
                raise ValueError(f"rank={tau} does not match the {R.shape[1]} columns of sketch; "
                                 "leave rank=None to take it from sketch.")
            tau = R.shape[1]
        if tau is not None and tau > n_features:
            raise ValueError(f"rank={tau} exceeds n_features={n_features}; use rank <= n_features "
                             "or rank=None (full covariances).")
        return None if tau is None else int(tau)

    def _init_state(self, d):
        tau = self._check_model_params(d)
        state = 2 * d * (d + _load_full_kernels().padded_width(d)) if tau is None else 2 * d * tau
        check_memory(
            8.0 * state, self.max_bytes,
            f"The OnePassAUC state for {d:,} features "
            + ("(two d x d covariances and their scatter matrices)" if tau is None else f"(two d x {tau} sketches)"),
            "use rank=τ (a rank-τ covariance sketch, O(τd) memory)" if tau is None else "use a lower rank",
        )
        self.rank_ = tau
        self.coef_ = np.zeros(d)
        self.coef_avg_ = np.zeros(d)
        self.class_count_ = np.zeros(2)
        self.class_mean_ = np.zeros((2, d))
        if tau is None:
            self.class_cov_ = np.zeros((2, d, d))
        else:
            self.class_sketch_ = np.zeros((2, d, tau))
            self.class_sketch_sum_ = np.zeros((2, tau))
            if self.sketch is None:
                self._rng = as_generator(self.random_state)
        self.n_updates_ = 0
        self.update_weight_ = 0.0
        self.n_seen_ = 0
        self.step_bound_ = 0.0
        self._labels = []  # labels seen, in slot order while the classes are unknown

    def _clear(self):
        for name in ("coef_", "classes_", "pos_label_", "class_cov_", "class_sketch_", "_rng",
                     "class_sketch_sum_", "threshold_", "_class_scatter"):
            self.__dict__.pop(name, None)

    def _set_classes(self, classes):
        classes = np.unique(np.asarray(classes))
        if len(classes) != 2:
            raise ValueError(f"classes must hold exactly two labels; got {classes.tolist()}.")
        if hasattr(self, "classes_"):
            if not np.array_equal(classes, self.classes_):
                raise ValueError(f"classes={classes.tolist()} differ from classes_={self.classes_.tolist()}.")
            return
        _, pos = binary_labels(classes, self.pos_label)
        unknown = [lab.item() if hasattr(lab, "item") else lab for lab in self._labels if lab not in classes]
        if unknown:
            raise ValueError(f"The labels {unknown} seen earlier in the stream are not in "
                             f"classes={classes.tolist()}; pass the labels that y holds.")
        # Until both labels are known, the first label's examples sit in slot 0 unless it is
        # the given pos_label; move them to their true slot.
        if self._labels and (self._labels[0] == pos) != self._first_slot_is_pos():
            for arr in (self.class_count_, self.class_mean_, self.__dict__.get("class_cov_"),
                        self.__dict__.get("class_sketch_"), self.__dict__.get("class_sketch_sum_"),
                        self.__dict__.get("_class_scatter")):
                if arr is not None:
                    arr[[0, 1]] = arr[[1, 0]]  # w is still 0: no step was taken yet
        self.classes_, self.pos_label_ = classes, pos

    def _first_slot_is_pos(self):
        return self.pos_label is not None and self._labels[0] == self.pos_label

    def _slots(self, y):
        """Slot (0 = negative, 1 = positive) of every label of a chunk."""
        if hasattr(self, "classes_"):  # the common case, every label one of classes_: two passes over y
            neg_label = self.classes_[0] if self.classes_[1] == self.pos_label_ else self.classes_[1]
            pos = y == self.pos_label_
            if np.count_nonzero(pos) + np.count_nonzero(y == neg_label) == len(y):
                return pos.astype(np.intp)
        present = unique_labels(y)  # two numeric labels: no sort
        if hasattr(self, "classes_"):
            unknown = present[~np.isin(present, self.classes_)]
            if unknown.size:
                raise ValueError(f"y contains labels {unknown[:6].tolist()} that are not in "
                                 f"classes={self.classes_.tolist()} (OnePassAUC takes two, binary, labels); "
                                 "pass classes holding the labels of y (as in scikit-learn's partial_fit).")
            return (y == self.pos_label_).astype(np.intp)
        new = [lab for lab in present if lab not in self._labels]
        self._labels += new
        if len(self._labels) > 2:
            raise ValueError(f"Only binary labels are supported; saw {sorted(self._labels)}.")
        if len(self._labels) == 2:
            self._set_classes(self._labels)
            return (y == self.pos_label_).astype(np.intp)
        return np.full(len(y), int(self._first_slot_is_pos()) if self._labels else 0, dtype=np.intp)

    # ------------------------------------------------------------------ core
    def _cov_matvec(self, o, w):
        if self.rank_ is None:
            return self.class_cov_[o] @ w
        Z, s, c = self.class_sketch_[o], self.class_sketch_sum_[o], self.class_mean_[o]
        v = Z.T @ w - s * (c @ w)
        return (Z @ v - c * (s @ v)) / self.class_count_[o]

    def _diverged(self, score):
        what = (f"the pairwise score wᵀ(x − c) reached {score:.3g} after {self.n_updates_} steps (the "
                "square loss targets ±1)")
        if isinstance(self.eta0, str):
            raise ValueError(f"OnePassAUC diverged: {what}; the features are too large to square in "
                             "float64. Scale the features (e.g. StandardScaler or MaxAbsScaler).")
        raise ValueError(
            f"OnePassAUC diverged: {what} with the constant step eta0={self.eta0!r}, too large for "
            "the scale of the features. Scale the features (e.g. StandardScaler or MaxAbsScaler, "
            "so that ‖x‖ ≲ 1), use a smaller eta0 (stable when eta0 ≲ 1/(4 max‖x‖²)), or use "
            "eta0='auto' (a scale-free step)."
        )

    def _gradient(self, x, o, sign, w):
        u = x - self.class_mean_[o]
        return self.alpha * w - sign * u + u * (u @ w) + self._cov_matvec(o, w)

    def loss_gradient(self, x: ArrayLike, y: Any, coef: ArrayLike | None = None) -> np.ndarray:
        """Gradient of the loss L_t of a new example under the current class statistics.

        Parameters
        ----------
        x : array-like of shape (n_features,)
            The example.
        y : int, float, bool or str
            Its label (one of ``classes_``).
        coef : array-like of shape (n_features,), default=None
            Where to evaluate the gradient; None means ``coef_``.

        Returns
        -------
        gradient : ndarray of shape (n_features,)
            αw − y u + u(uᵀw) + S_opp w with u = x − c_opp (zeros while the other class is
            empty), Eqs. (4)–(5) of Gao et al. (2013).
        """
        check_is_fitted(self, "classes_")
        x = np.asarray(x, dtype=np.float64).ravel()
        w = self.coef_ if coef is None else np.asarray(coef, dtype=np.float64)
        k = int(y == self.pos_label_)
        if self.class_count_[1 - k] == 0:
            return np.zeros_like(w)
        return self._gradient(x, 1 - k, 2.0 * k - 1.0, w)

    def _kernel_state(self):
        """The state arrays, C-contiguous float64 (copied once if they are not), in kernel order:
        count, mean, covariances, sketch, sketch sums, iterate, averaged iterate."""
        names: tuple[str, ...] = ("class_count_", "class_mean_",
                                  "class_cov_" if self.rank_ is None else "class_sketch_")
        names += (() if self.rank_ is None else ("class_sketch_sum_",)) + ("coef_", "coef_avg_")
        for name in names:
            arr = getattr(self, name)
            if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.flags.c_contiguous
                    and arr.flags.writeable):
                setattr(self, name, np.array(arr, dtype=np.float64, order="C"))
        d = self.class_mean_.shape[1]
        if self.rank_ is None:
            cov, sketch, sketch_sum = self.class_cov_, np.empty((2, d, 0)), np.empty((2, 0))
        else:
            cov, sketch, sketch_sum = np.empty((2, 0, 0)), self.class_sketch_, self.class_sketch_sum_
        return (self.class_count_, self.class_mean_, cov, sketch, sketch_sum, self.coef_, self.coef_avg_)

    def _sketch_rows(self, n):
        """The sketch vectors r_t of the next ``n`` examples, shape (n, rank) ((n, 0) without a sketch)."""
        if self.rank_ is None:
            return np.empty((n, 0))
        if self.sketch is None:
            return self._rng.standard_normal((n, self.rank_)) / np.sqrt(self.rank_)
        sketch = np.asarray(self.sketch, dtype=np.float64)
        R = sketch[self.n_seen_:self.n_seen_ + n]
        if R.shape[0] < n:
            raise ValueError(f"sketch has {sketch.shape[0]} rows but the stream has at least "
                             f"{self.n_seen_ + n} examples; pass one sketch row per example.")
        return _writeable(R)

    def _process(self, X, slots, weights=None):
        """Stream the rows of X (class slots 0 / 1, optional positive weights) through the
        compiled updates, in order; raises when the iteration diverges."""
        _kernels = _load_kernels()
        n = X.shape[0]
        R = self._sketch_rows(n)
        auto = isinstance(self.eta0, str)
        eta = 1.0 if auto else float(self.eta0)
        alpha = float(self.alpha)
        state = self._kernel_state()
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        weights = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        scalars = np.array([self.update_weight_, self.step_bound_, 0.0])
        counters = np.array([self.n_updates_, 0], dtype=np.int64)
        sparse = sp.issparse(X)
        # dense rows are read in place when C-contiguous and writeable (one compiled signature),
        # else copied a block at a time
        step = n if sparse or (X.flags.c_contiguous and X.flags.writeable) else _COPY_BLOCK
        status = _kernels.OK
        stream = self._stream_kernel(X, slots, weights)
        full = _load_full_kernels()
        # the dense full-covariance kernel keeps the classes' scatter matrices between calls: a
        # stream cut into chunks then takes the same steps, to the last bit, as the stream whole
        extra = (self._scatter(X.shape[1]),) if stream is full.stream_dense_full else ()
        try:
            for a in range(0, n, max(step, 1)):
                b = min(a + step, n)
                if sparse:
                    rows: tuple[np.ndarray, ...] = (X.indptr.astype(np.int64), X.indices.astype(np.int64),
                                                    _writeable(X.data))
                else:
                    rows = (_writeable(X[a:b]),)
                status = self._stream(stream, rows, X, a, slots[a:b], weights[a:b], R[a:b], alpha, eta,
                                      auto, state, scalars, counters, extra)
                if status == _kernels.DIVERGED:
                    break
        finally:
            self.update_weight_, self.step_bound_ = float(scalars[0]), float(scalars[1])
            self.n_updates_ = int(counters[0])
        if status == _kernels.DIVERGED:
            self._diverged(float(scalars[2]))
        self.n_seen_ += n

    def _stream_kernel(self, X, slots, weights):
        """The compiled stream for the rows of X: without a sketch, the full-covariance kernels
        (dense rows; CSR rows through the classes' second moments unless they would lose more
        than about 3 digits to cancellation); with a sketch, the general kernels."""
        _kernels = _load_kernels()
        if self.rank_ is not None:
            return _kernels.stream_csr if sp.issparse(X) else _kernels.stream_dense
        full = _load_full_kernels()
        if not sp.issparse(X):
            return full.stream_dense_full
        ratio = full.moment_ratio(self.class_count_, self.class_mean_, self.class_cov_, X, slots, weights)
        return full.stream_csr_full if ratio <= full.MAX_MOMENT_RATIO else _kernels.stream_csr

    def _scatter(self, d):
        """The classes' scatter matrices T_k S_k (rows padded), private state of the dense
        full-covariance kernel; the kernel rebuilds a class's from ``class_cov_`` whenever
        ``class_cov_`` is not its scatter over its count (set by another kernel, or by hand)."""
        full = _load_full_kernels()
        M = self.__dict__.get("_class_scatter")
        if M is None or M.shape != full.scatter_shape(d):
            M = self._class_scatter = full.aligned_scatter(d)
        elif M.ctypes.data % 64:  # e.g. unpickled: the same values, on a cache line
            M = self._class_scatter = full.aligned_scatter(d, M)
        return M

    def _stream(self, stream, rows, X, offset, slots, weights, R, alpha, eta, auto, state, scalars, counters,
                extra=()):
        """One kernel run over a block; an example weighing more than 32 steps stops it, takes its
        steps in closed form, and the run resumes at the next example."""
        _kernels = _load_kernels()
        start = 0
        while True:
            status = stream(*rows, slots, weights, R, alpha, eta, auto, *state, scalars, counters, start,
                            *extra)
            if status != _kernels.CLOSED_FORM:
                return status
            i = int(counters[1])
            x = X[offset + i]
            x = x.toarray().ravel() if sp.issparse(x) else np.asarray(x, dtype=np.float64)
            k = int(slots[i])
            u = x - self.class_mean_[1 - k]
            status = _kernels.closed_form_steps(u, 1 - k, 2.0 * k - 1.0, float(weights[i]),
                                                1.0 / scalars[1] if auto else eta, alpha, *state,
                                                scalars, counters)
            if status != _kernels.OK:
                return status
            start = i + 1

    def _partial_fit(self, X, y, classes=None, reset=False, sample_weight=None):
        if reset:
            self._clear()
        first = not hasattr(self, "coef_")
        sample_weight = sample_weight_for(X, sample_weight)  # refused before any state is set
        magnitude = None if first else self._checked_magnitude(X)
        if magnitude is None:
            X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=first)
            check_feature_scale(X)  # the step size and the averaged iterate need x**2
        else:
            check_magnitude_scale(magnitude, X.shape)
        y = y if type(y) is np.ndarray and y.ndim == 1 else column_or_1d(y, warn=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}.")
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinite values.")
        weights = check_point_weights(sample_weight, X.shape[0], "sample_weight")
        if weights is not None:
            check_weight_underflow(weights)
        if first:
            self._init_state(X.shape[1])
        if classes is not None:
            self._set_classes(classes)
        if weights is not None and not np.all(weights > 0):  # a zero weight is the row removed
            keep = np.flatnonzero(weights > 0)
            X, y, weights = X[keep], y[keep], weights[keep]
        slots = self._slots(y)  # before any state changes: unknown labels raise here
        bar = getattr(self, "_bar", None)
        if bar is None:
            self._process(X, slots, weights)
        else:  # the same sequential updates, in blocks, so that the bar moves
            for start in range(0, X.shape[0], _PROGRESS_BLOCK):
                block = slice(start, start + _PROGRESS_BLOCK)
                self._process(X[block], slots[block], None if weights is None else weights[block])
                bar.update(len(slots[block]))
        if hasattr(self, "classes_"):
            self.threshold_ = float(self._w() @ (self.class_mean_[0] + self.class_mean_[1]) / 2)
        return self

    def _checked_magnitude(self, X):
        """The largest ``|x|`` of X when X is what ``validate_data`` would return unchanged at a later
        call: a C-contiguous finite float64 ndarray with ``n_features_in_`` columns and no feature
        names to check; None otherwise. One compiled pass finds both the magnitude and that every
        entry is finite, where the finiteness and the magnitude took three numpy passes over X
        (about 0.3 ms of a 10,000-row call on 22 features, a tenth of it) after scikit-learn's
        general input checks. Any other X takes those checks, with their errors and warnings."""
        if not (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.shape[0] > 0
                and X.shape[1] == self.n_features_in_ and X.flags.c_contiguous
                and not hasattr(self, "feature_names_in_")):
            return None
        return _load_full_kernels().finite_largest_magnitude(X)

    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | float | None = None) -> OnePassAUC:
        """Stream the rows of (X, y), in order, through one more part of the pass.

        The parameters are validated at the first call and again after any of them is set anew
        (scikit-learn's ``partial_fit`` validates them at the first call only).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The next examples of the stream.
        y : array-like of shape (n_samples,)
            Their labels; a chunk may hold one class only.
        classes : array-like of shape (2,), default=None
            Both labels, when known up front (otherwise they are learnt from the stream).
        sample_weight : float or array-like of shape (n_samples,), default=None
            Non-negative weights: an integer weight is the row repeated that many times, a
            zero weight the row removed (see the class Notes).

        Returns
        -------
        self : object
            The updated estimator.
        """
        self._validate_changed_params()
        self._pair_target_options()  # binary labels only: ordinal targets are refused, saying why
        _check_not_survival(y)
        with self._progress(_num_samples(X)):
            return self._partial_fit(X, y, classes, sample_weight=sample_weight)

    def _validate_changed_params(self):
        """Validate the parameters unless the same parameter objects were validated at the last
        call: the check costs as much as the updates of a thousand rows."""
        current = tuple(self.__dict__.get(name) for name in self._parameter_constraints)
        checked = self.__dict__.get("_checked_params", ())
        if len(checked) != len(current) or any(a is not b for a, b in zip(current, checked, strict=True)):
            self._validate_params()
            self._checked_params = current

    @contextlib.contextmanager
    def _progress(self, total):
        """A progress bar over the examples of one ``fit`` / ``partial_fit`` call (``verbose``)."""
        self._bar = progress_bar(bool(self.verbose), total=total, desc=type(self).__name__, unit="row")
        try:
            yield self._bar
        finally:
            if self._bar is not None:
                self._bar.close()
            del self._bar

    def fit(self, X: ArrayLike | Iterable[tuple], y: ArrayLike | None = None,  # type: ignore[override]
            sample_weight: ArrayLike | float | None = None) -> OnePassAUC:  # (chunks in X; no fit_params)
        """Reset, then make one pass over (X, y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or iterable
            Training data; with ``y=None``, an iterable of ``(X_chunk, y_chunk)`` or
            ``(X_chunk, y_chunk, weight_chunk)`` tuples (e.g. :func:`iter_svmlight_chunks`),
            streamed in order.
        y : array-like of shape (n_samples,), default=None
            Two class labels (None only when ``X`` is an iterable of chunks).
        sample_weight : float or array-like of shape (n_samples,), default=None
            Non-negative weights: the class statistics are weighted, an integer weight is the
            row repeated that many times in a row and a zero weight the row removed (see the
            class Notes). Weights of an iterable of chunks come with the chunks.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._validate_params()
        self._pair_target_options()  # binary labels only: ordinal targets are refused, saying why
        start = time.perf_counter()
        if y is None:
            if hasattr(X, "shape"):
                raise ValueError("This estimator requires y to be passed, but the target y is None.")
            if sample_weight is not None:
                raise ValueError("sample_weight must be None when X is an iterable of chunks; pass "
                                 "(X_chunk, y_chunk, weight_chunk) tuples instead.")
            reset = True
            with self._progress(None):
                for chunk in cast("Iterable[tuple]", X):  # not an array: checked above
                    Xc, yc, *wc = chunk
                    self._partial_fit(Xc, yc, reset=reset, sample_weight=wc[0] if wc else None)
                    reset = False
            if reset:
                raise ValueError("The chunk iterator yielded no data.")
            if not hasattr(self, "classes_"):
                raise ValueError(f"y has only one class ({self._labels}); ranking needs both classes.")
            self.fit_time_ = time.perf_counter() - start
            return self
        _check_not_survival(y)
        n_samples = _num_samples(X)
        if n_samples == 0:
            raise ValueError(f"X is empty (n_samples=0, shape {getattr(X, 'shape', (0,))}); OnePassAUC "
                             "needs examples of both classes.")
        y = column_or_1d(y, warn=True)
        binary_labels(y, self.pos_label)  # one class, >2 classes, NaN -> ValueError
        with self._progress(n_samples):
            self._partial_fit(X, y, reset=True, sample_weight=sample_weight)
        if not hasattr(self, "classes_"):
            raise ValueError("sample_weight is zero on every example of one class; OnePassAUC needs "
                             "both classes with positive weight.")
        self.fit_time_ = time.perf_counter() - start
        return self

    # ------------------------------------------------------------------ prediction
    def _w(self):
        return self.coef_avg_ if self.average else self.coef_

    def _expansion(self, X):
        """Ranking scores wᵀx (``decision_function``, ``predict`` and ``score`` come from the mixin)."""
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self._w()).ravel()

    def statistics(self) -> tuple[ClassStats, ClassStats]:
        """The exact statistics of the streamed classes (full covariances only).

        Returns
        -------
        neg : ClassStats
            Statistics of the negative class.
        pos : ClassStats
            Statistics of the positive class.
        """
        check_is_fitted(self, "coef_")
        if self.rank_ is not None:
            raise ValueError("A sketched model (rank set) keeps no covariance; fit with rank=None.")
        n = self.class_count_
        counts = [int(c) if float(c).is_integer() else float(c) for c in n]
        neg, pos = (ClassStats(counts[k], self.class_mean_[k].copy(), self.class_cov_[k] * n[k]) for k in (0, 1))
        return neg, pos

    def batch_solution(self, alpha: float | None = None) -> np.ndarray:
        """The batch minimizer w* from the streamed class statistics (full covariances only).

        Parameters
        ----------
        alpha : float, default=None
            Penalty multiplier; None means the estimator's ``alpha``.

        Returns
        -------
        coef : ndarray of shape (n_features,)
            w* = (αI + S₊ + S₋ + δδᵀ)⁻¹ δ (see :func:`batch_solution_from_stats`).
        """
        return batch_solution_from_stats(*self.statistics(), self.alpha if alpha is None else alpha)

    @classmethod
    def from_statistics(cls, neg: ClassStats, pos: ClassStats, classes: ArrayLike, coef: ArrayLike | None = None,
                        **params: Any) -> OnePassAUC:
        """A full-covariance model holding given class statistics, ready for ``partial_fit``.

        Parameters
        ----------
        neg : ClassStats
            Statistics of the negative class.
        pos : ClassStats
            Statistics of the positive class.
        classes : array-like of shape (2,)
            The two labels.
        coef : array-like of shape (n_features,), default=None
            The model's w (both ``coef_`` and ``coef_avg_``); None means the batch minimizer.
        **params : dict
            Constructor parameters of the estimator (``rank`` and ``sketch`` must stay None).

        Returns
        -------
        model : OnePassAUC
            A fitted estimator.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt.online import OnePassAUC, class_statistics
        >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
        >>> model = OnePassAUC.from_statistics(*class_statistics(X, [0, 0, 1, 1]), classes=[0, 1], alpha=0.1)
        >>> model.predict(X).tolist()
        [0, 0, 1, 1]
        """
        est = cls(**params)
        est._validate_params()
        est._pair_target_options()
        if est.rank is not None or est.sketch is not None:
            raise ValueError("from_statistics builds full-covariance models only (rank=None, sketch=None).")
        d = len(pos.mean)
        est._init_state(d)
        est.n_features_in_ = d
        est._labels = list(np.unique(classes))
        est._set_classes(classes)
        for k, st in enumerate((neg, pos)):
            est.class_count_[k], est.class_mean_[k], est.class_cov_[k] = st.count, st.mean, st.cov
        est.n_seen_ = int(neg.count + pos.count)
        w = batch_solution_from_stats(neg, pos, est.alpha) if coef is None else np.asarray(coef, float)
        est.coef_, est.coef_avg_ = w.copy(), w.copy()
        est.threshold_ = float(w @ (neg.mean + pos.mean) / 2)
        return est

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        return tags
