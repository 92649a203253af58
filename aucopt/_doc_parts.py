"""Docstring parts shared by the binary rankers and by the survival rankers, for :func:`aucopt._docstrings.fill_doc`.

Each part is the text of a few numpydoc lines, written once: ``BINARY_PAIR_OPTIONS_DOC`` is the
description of a binary ranker's ``pair_options``, ``SURVIVAL_PAIR_OPTIONS_DOC`` and
``SURVIVAL_IPCW_DOC`` the first and last sentences of a survival ranker's,
``BINARY_ATTRIBUTES_DOC`` the fitted attributes of the binary label handling and
``FEATURE_ATTRIBUTES_DOC`` those of the feature check.

Examples
--------
>>> from aucopt._doc_parts import FEATURE_ATTRIBUTES_DOC
>>> print(FEATURE_ATTRIBUTES_DOC.strip().splitlines()[0])
n_features_in_ : int
"""

from __future__ import annotations

__all__ = [
    "BINARY_ATTRIBUTES_DOC",
    "BINARY_PAIR_OPTIONS_DOC",
    "FEATURE_ATTRIBUTES_DOC",
    "SURVIVAL_IPCW_DOC",
    "SURVIVAL_PAIR_OPTIONS_DOC",
]

#: the description of a binary ranker's ``pair_options``
BINARY_PAIR_OPTIONS_DOC = """
    The pairs to rank, in the vocabulary of the survival estimators' ``pair_options``:
    ``{"target": "bipartite"}`` (the default: every positive over every negative), or
    ``{"target": "multipartite"}`` for ordinal labels, one pair per ``y_i > y_j``
    (:meth:`aucopt.PairSet.multipartite`), with ``"levels": [lowest, ..., highest]`` giving
    the order of the label values (default: the sorted distinct labels). A ranker of ordinal
    levels has ``classes_`` = the levels in order, ``decision_function`` = its scores
    (higher = higher level), ``score`` = the multipartite C-index, and no ``predict`` (it
    learns no cut points between the levels); ``pos_label`` must then be None.
"""

#: the first sentence of a survival ranker's ``pair_options``
SURVIVAL_PAIR_OPTIONS_DOC = """
    The survival pair variant, passed to :meth:`aucopt.PairSet.survival`: ``variant``
    (``"harrell"`` or ``"lprex"``: also censored–censored pairs, weighted by
    ``censored_weight``), ``time_weight`` (``"linear"``, ``"log"``, ``"capped"`` or a
    callable of the time gap), ``time_scale`` and ``weights`` (user pair weights).
"""

#: the last sentences of a survival ranker's ``pair_options``: the censoring-weighted pairs
SURVIVAL_IPCW_DOC = """
    ``{"weights": "ipcw"}`` trains on Uno's censoring weights 1/Ĝ(T_i)² (``"tau"``: only the
    pairs whose event comes before it) and ``{"horizon": τ}`` on the pairs of the time-dependent
    AUC(τ) (with ``"weights": "ipcw"`` its weights 1/Ĝ(T_i)), Ĝ the censoring Kaplan–Meier
    estimate of the fitting rows; both keep the pairs unlisted.
"""

#: the fitted attributes of a binary (or ordinal) ranker's labels
BINARY_ATTRIBUTES_DOC = """
    pair_target_ : str
        ``"bipartite"``, or ``"multipartite"`` (``pair_options`` target).
    classes_ : ndarray of shape (n_classes,)
        The two class labels (ordinal targets: the levels, lowest first).
    pos_label_ : int, float, bool or str
        The positive class (binary labels only).
    threshold_ : float
        The score cut with the best (weighted) training accuracy, used by ``predict``.
    intercept_ : float
        ``decision_function(x)`` = f(x) + ``intercept_`` (for ``pos_label_ == classes_[1]``).
"""

#: the fitted attributes of the feature check (``validate_data``)
FEATURE_ATTRIBUTES_DOC = """
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during fit, when ``X`` has string column names.
"""
