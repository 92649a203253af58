"""Kaplan–Meier figures of risk groups (matplotlib, Agg canvas; no pyplot state)."""

from __future__ import annotations

import numpy as np

from .._validation import check_consistent_length, check_finite_1d
from ._nonparametric import KaplanMeierCurve, _survival_pair, kaplan_meier, logrank, risk_groups


def _km_steps(curve: KaplanMeierCurve):
    x = np.concatenate([[0.0], curve.times])
    y = np.concatenate([[1.0], curve.survival])
    return x, y


def plot_risk_groups(time, event, scores_by_method, *, top: float = 10, weighting="wilcoxon",
                     title=None, xlabel="time", figsize=(7, 4.5)):
    """Kaplan–Meier curves of the high- (top ``top`` %) and low-risk groups of each method.

    ``scores_by_method``: ``{"LPR": pooled_percentiles, "Cox": ...}`` (1-d, aligned with
    ``time``/``event``) or a single array. Solid lines: high-risk groups, dashed: the rest;
    the legend gives each group's size and the ``weighting`` log-rank p-value of high vs rest.
    Returns a ``matplotlib.figure.Figure`` (Agg canvas; no pyplot state). Save with
    :func:`save_figure`.
    """
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


def save_figure(fig, path, *, dpi: int = 120):
    """Write ``fig`` as a PNG (Agg backend) and return ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.savefig(path, format="png", dpi=dpi)
    return path
