"""Kaplan–Meier figures of risk groups (matplotlib with an Agg canvas; no pyplot state)."""

from __future__ import annotations

import numpy as np

from .._validation import check_consistent_length, check_finite_1d
from ._nonparametric import (LOGRANK_WEIGHTINGS, KaplanMeierCurve, _survival_pair, kaplan_meier, logrank,
                             risk_groups)

__all__ = ["plot_risk_groups", "save_figure"]


def _km_steps(curve: KaplanMeierCurve):
    x = np.concatenate([[0.0], curve.times])
    y = np.concatenate([[1.0], curve.survival])
    return x, y


def plot_risk_groups(time, event, scores_by_method, *, top=10, weighting="wilcoxon", title=None,
                     xlabel="time", figsize=(7, 4.5)):
    """Kaplan–Meier curves of the high-risk group (top ``top`` %) and the rest, per method.

    Parameters
    ----------
    time : array-like of shape (n_samples,)
        Event or censoring times.
    event : array-like of shape (n_samples,)
        Event indicators.
    scores_by_method : dict of str to array-like of shape (n_samples,), or array-like
        Risk scores aligned with ``time``, by method name (e.g. ``{"LPR": pooled_percentiles,
        "Cox": ...}``), or one array (named "model").
    top : float, default=10
        Percentage in (0, 100) of samples in each method's high-risk group (:func:`risk_groups`).
    weighting : {"wilcoxon", "tarone-ware"} or None, default="wilcoxon"
        The :func:`logrank` weighting of the test of high risk vs rest reported in the legend.
    title : str, default=None
        Axes title.
    xlabel : str, default="time"
        Label of the time axis.
    figsize : tuple of float, default=(7, 4.5)
        Figure size in inches.

    Returns
    -------
    figure : matplotlib.figure.Figure
        Solid lines: high-risk groups, dashed: the rest; the legend gives each group's size
        and the p-value. Drawn on an Agg canvas without pyplot state; save it with
        :func:`save_figure`.

    See Also
    --------
    kaplan_meier, logrank, risk_groups : The pieces of the figure.

    Notes
    -----
    The Kaplan–Meier analysis of Ataman (2007), Sec. 5.3.5 (Figs. 5.2–5.7): the pooled ordering
    of each method is split into its top 10 % and the rest, and the two groups' curves are
    compared with Gehan's generalized Wilcoxon test.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.
    .. [2] Kaplan, E. L., & Meier, P. (1958). Nonparametric estimation from incomplete
       observations. *Journal of the American Statistical Association*, 53(282), 457–481.
    .. [3] Gehan, E. A. (1965). A generalized Wilcoxon test for comparing arbitrarily
       singly-censored samples. *Biometrika*, 52(1/2), 203–223.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.survival import plot_risk_groups
    >>> rng = np.random.default_rng(0)
    >>> risk = rng.normal(size=100)
    >>> time, event = rng.exponential(np.exp(-risk)), rng.random(100) < 0.8
    >>> figure = plot_risk_groups(time, event, {"true risk": risk}, top=20)
    >>> type(figure).__name__, len(figure.axes[0].lines)
    ('Figure', 3)
    """
    if weighting not in LOGRANK_WEIGHTINGS:
        raise ValueError(f"weighting must be one of {LOGRANK_WEIGHTINGS}; got {weighting!r}.")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    time_arr, ev = _survival_pair(time, event)
    if not isinstance(scores_by_method, dict):
        scores_by_method = {"model": scores_by_method}
    if not scores_by_method:
        raise ValueError("scores_by_method is empty.")
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    colors = ["C0", "C3", "C2", "C1", "C4", "C5"]
    for c, (name, scores) in enumerate(scores_by_method.items()):
        scores = check_finite_1d(scores, f"scores of {name!r}")
        check_consistent_length(time=time_arr, scores=scores)
        groups = risk_groups(scores, top)
        test = logrank(time_arr[groups.high], ev[groups.high], time_arr[groups.low], ev[groups.low],
                       weighting=weighting)
        for mask, style, label in ((groups.high, "-", f"top {top:g}%"), (groups.low, "--", "rest")):
            x, y = _km_steps(kaplan_meier(time_arr[mask], ev[mask]))
            x = np.concatenate([x, [time_arr[mask].max()]])
            y = np.concatenate([y, [y[-1]]])
            ax.step(x, y, where="post", linestyle=style, color=colors[c % len(colors)],
                    label=f"{name}: {label} (n={int(mask.sum())})")
        ax.plot([], [], " ", label=f"{name}: p = {test.pvalue:.3g} ({weighting or 'log-rank'})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("event-free probability")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize="small", loc="best")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def save_figure(fig, path, *, dpi=120):
    """Write a figure as a PNG file (Agg backend).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, e.g. from :func:`plot_risk_groups`.
    path : str or path-like
        Where to write it.
    dpi : int, default=120
        Resolution.

    Returns
    -------
    path : str or path-like
        ``path``, unchanged.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from aucopt.survival import plot_risk_groups, save_figure
    >>> rng = np.random.default_rng(0)
    >>> figure = plot_risk_groups(rng.exponential(size=40), rng.random(40) < 0.8, rng.normal(size=40))
    >>> path = save_figure(figure, os.path.join(tempfile.mkdtemp(), "km.png"))
    >>> with open(path, "rb") as fh:
    ...     fh.read(4)
    b'\\x89PNG'
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.savefig(path, format="png", dpi=dpi)
    return path
