"""Kaplan–Meier figures of risk groups (matplotlib; an Agg canvas of its own, no pyplot state)."""

from __future__ import annotations

import os
from numbers import Real
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_consistent_length, check_finite_1d
from ._nonparametric import (
    LOGRANK_WEIGHTINGS,
    KaplanMeierCurve,
    LogRankResult,
    RiskGroups,
    _survival_pair,
    kaplan_meier,
    logrank,
    number_at_risk,
    risk_groups,
)

__all__ = ["RiskGroupsDisplay", "plot_risk_groups", "save_figure"]

_COLORS = ("C0", "C3", "C2", "C1", "C4", "C5", "C6", "C7", "C8", "C9")
_LEGEND_LOCATIONS = ("right", "below")


def _km_steps(curve: KaplanMeierCurve, values: np.ndarray, t_end: float) -> tuple[np.ndarray, np.ndarray]:
    """The step function of ``values`` (Ŝ or an interval end): 1 at time 0, held until ``t_end``."""
    x = np.concatenate([[0.0], curve.times, [t_end]])
    y = np.concatenate([[1.0], values, [values[-1] if len(values) else 1.0]])
    return x, y


class RiskGroupsDisplay:
    """The Kaplan–Meier figure of risk groups drawn by :func:`plot_risk_groups`.

    Follows scikit-learn's Display objects: the matplotlib objects are ``figure_`` and ``ax_``,
    the numbers behind the picture are attributes too.

    Attributes
    ----------
    figure_ : matplotlib.figure.Figure
        The figure holding ``ax_``.
    ax_ : matplotlib.axes.Axes
        The axes with the curves, the confidence bands and (below it) the at-risk table.
    legend_ : matplotlib.legend.Legend
        The legend, outside the plotting area.
    curves_ : dict of (str, str) to KaplanMeierCurve
        The curve of each group, keyed by ``(method, "high")`` and ``(method, "rest")``.
    groups_ : dict of str to RiskGroups
        Each method's split into the high-risk group and the rest.
    tests_ : dict of str to LogRankResult
        Each method's test of its high-risk group against the rest.
    at_risk_ : pandas.DataFrame or None
        The number at risk (time ≥ t) of each group (rows, labelled ``"<method>: top <top>%"``
        and ``"<method>: rest"``) at each x-tick t (columns); None without the table.

    See Also
    --------
    plot_risk_groups : Draws the figure and returns this object.
    save_figure : Writes it as a PNG file.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.survival import plot_risk_groups
    >>> rng = np.random.default_rng(0)
    >>> risk = rng.normal(size=80)
    >>> time, event = rng.exponential(np.exp(-risk)), rng.random(80) < 0.8
    >>> display = plot_risk_groups(time, event, {"true risk": risk}, top=25)
    >>> display.at_risk_.index.tolist()
    ['true risk: top 25%', 'true risk: rest']
    >>> int(display.at_risk_.iloc[1, 0])
    60
    """

    def __init__(self, figure: Any, ax: Any, legend: Any, curves: dict[tuple[str, str], KaplanMeierCurve],
                 groups: dict[str, RiskGroups], tests: dict[str, LogRankResult], at_risk: Any):
        self.figure_ = figure
        self.ax_ = ax
        self.legend_ = legend
        self.curves_ = curves
        self.groups_ = groups
        self.tests_ = tests
        self.at_risk_ = at_risk

    def __repr__(self) -> str:
        methods = sorted({method for method, _ in self.curves_}, key=list(self.tests_).index)
        return f"<RiskGroupsDisplay of {len(methods)} method(s): {', '.join(methods)}>"


def plot_risk_groups(time: ArrayLike, event: ArrayLike, scores_by_method: dict[str, ArrayLike] | ArrayLike, *,
                     top: float = 10, weighting: Literal["wilcoxon", "tarone-ware"] | None = "wilcoxon",
                     confidence_level: float | None = 0.95, ci_alpha: float = 0.15, at_risk_counts: bool = True,
                     time_unit: str | None = None, xlabel: str | None = None, title: str | None = None,
                     legend_loc: Literal["right", "below"] = "right", ax: Any = None,
                     figsize: tuple[float, float] | None = None) -> RiskGroupsDisplay:
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
    confidence_level : float or None, default=0.95
        Coverage in (0, 1) of the shaded pointwise confidence band of every curve (Greenwood's
        log-log interval, :func:`kaplan_meier`); None draws no band.
    ci_alpha : float, default=0.15
        Opacity in [0, 1] of the shaded bands (0 hides them).
    at_risk_counts : bool, default=True
        Print the number at risk of every group (subjects with time ≥ t) at each x-tick t in a
        table under the time axis.
    time_unit : str, default=None
        Unit of ``time``, shown in the axis label: ``"days"`` gives "Time (days)".
    xlabel : str, default=None
        The time axis label, replacing "Time (``time_unit``)".
    title : str, default=None
        Axes title.
    legend_loc : {"right", "below"}, default="right"
        Where the legend goes, outside the plotting area: to the right of the axes, or under
        the at-risk table.
    ax : matplotlib.axes.Axes, default=None
        Draw into these axes (the caller's figure keeps its layout: leave room under and beside
        the axes for the table and the legend, e.g. with ``layout="constrained"``). None
        creates a figure with a constrained layout on an Agg canvas, without pyplot state.
    figsize : tuple of float, default=None
        Size in inches of the figure created when ``ax`` is None; None sizes it to the number
        of table rows.

    Returns
    -------
    display : RiskGroupsDisplay
        ``figure_`` and ``ax_`` (solid lines: high-risk groups, dashed: the rest; the legend
        gives each group's size and the p-value), and the curves, groups, tests and at-risk
        counts behind them. Save it with :func:`save_figure`.

    Raises
    ------
    ValueError
        For an unknown ``weighting`` or ``legend_loc``, ``ci_alpha`` outside [0, 1], an invalid
        ``confidence_level`` or ``top``, no scores, or scores not aligned with ``time``.

    See Also
    --------
    kaplan_meier, logrank, risk_groups, number_at_risk : The pieces of the figure.

    Notes
    -----
    The Kaplan–Meier analysis of Ataman (2007), Sec. 5.3.5 (Figs. 5.2–5.7): the pooled ordering
    of each method is split into its top 10 % and the rest, and the two groups' curves are
    compared with Gehan's generalized Wilcoxon test. The bands are Greenwood's (1926) variance
    on the log-log scale, lifelines' default; the x-ticks are fixed when the table is printed,
    so the counts stay under their ticks.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.
    .. [2] Kaplan, E. L., & Meier, P. (1958). Nonparametric estimation from incomplete
       observations. *Journal of the American Statistical Association*, 53(282), 457–481.
    .. [3] Greenwood, M. (1926). The natural duration of cancer. *Reports on Public Health and
       Medical Subjects*, 33, 1–26. London: His Majesty's Stationery Office.
    .. [4] Gehan, E. A. (1965). A generalized Wilcoxon test for comparing arbitrarily
       singly-censored samples. *Biometrika*, 52(1/2), 203–223.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.survival import plot_risk_groups
    >>> rng = np.random.default_rng(0)
    >>> risk = rng.normal(size=100)
    >>> time, event = rng.exponential(np.exp(-risk)), rng.random(100) < 0.8
    >>> display = plot_risk_groups(time, event, {"true risk": risk}, top=20, time_unit="years")
    >>> display.ax_.get_xlabel(), len(display.ax_.lines)
    ('Time (years)', 3)

    Into axes of your own figure:

    >>> from matplotlib.figure import Figure
    >>> figure = Figure(figsize=(9, 5), layout="constrained")
    >>> ax = figure.add_subplot()
    >>> plot_risk_groups(time, event, risk, ax=ax, confidence_level=None).ax_ is ax
    True
    """
    _check_plot_options(weighting, legend_loc, ci_alpha)
    time_arr, ev = _survival_pair(time, event)
    if not isinstance(scores_by_method, dict):
        scores_by_method = {"model": scores_by_method}
    if not scores_by_method:
        raise ValueError("scores_by_method is empty: give at least one method's risk scores.")
    groups, tests, curves = _risk_group_numbers(time_arr, ev, scores_by_method, top, weighting, confidence_level)
    n_methods = len(scores_by_method)
    if ax is None:
        ax = _new_axes(len(curves) if at_risk_counts else 0, n_methods, legend_loc, figsize)
    band_alpha = float(ci_alpha) if confidence_level is not None else 0.0
    labels = {}
    for c, name in enumerate(scores_by_method):
        color = _COLORS[c % len(_COLORS)]
        for key, style, group_label in (("high", "-", f"top {top:g}%"), ("rest", "--", "rest")):
            mask = groups[name].high if key == "high" else groups[name].low
            _draw_curve(ax, curves[name, key], float(time_arr[mask].max()), color, style,
                        f"{name}: {group_label} (n={int(mask.sum())})", band_alpha)
            labels[name, key] = (f"{name}: {group_label}", color)
        ax.plot([], [], " ", label=f"{name}: p = {tests[name].pvalue:.3g} ({weighting or 'log-rank'})")
    ax.set_xlabel(xlabel if xlabel is not None else "Time" + (f" ({time_unit})" if time_unit else ""))
    ax.set_ylabel("Event-free probability")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(0, float(time_arr.max()) * 1.02)
    if title:
        ax.set_title(title)
    at_risk, below = None, 0.0  # points under the axes taken by the table
    if at_risk_counts:
        at_risk, below = _draw_at_risk_table(ax, time_arr, groups, labels)
    legend = _draw_legend(ax, legend_loc, n_methods, below)
    return RiskGroupsDisplay(ax.figure, ax, legend, curves, groups, tests, at_risk)


def _check_plot_options(weighting: str | None, legend_loc: str, ci_alpha: float) -> None:
    """Refuse an unknown weighting or legend place, or an opacity outside [0, 1]."""
    if weighting not in LOGRANK_WEIGHTINGS:
        raise ValueError(f"weighting must be one of {LOGRANK_WEIGHTINGS}; got {weighting!r}.")
    if legend_loc not in _LEGEND_LOCATIONS:
        raise ValueError(f"legend_loc must be one of {_LEGEND_LOCATIONS}; got {legend_loc!r}.")
    if not isinstance(ci_alpha, Real) or not 0 <= float(ci_alpha) <= 1:
        raise ValueError(f"ci_alpha (the opacity of the bands) must be in [0, 1]; got {ci_alpha!r}.")


def _risk_group_numbers(time: np.ndarray, event: np.ndarray, scores_by_method: dict[str, ArrayLike], top: float,
                        weighting: str | None, confidence_level: float | None) -> tuple[dict, dict, dict]:
    """Every method's risk groups, log-rank test and the Kaplan–Meier curve of each group, by
    ``(method, "high" | "rest")``: all the numbers, so that errors come before any drawing."""
    groups, tests, curves = {}, {}, {}
    for name, raw in scores_by_method.items():
        scores = check_finite_1d(raw, f"scores of {name!r}")
        check_consistent_length(time=time, scores=scores)
        groups[name] = g = risk_groups(scores, top)
        tests[name] = logrank(time[g.high], event[g.high], time[g.low], event[g.low], weighting=weighting)
        for key, mask in (("high", g.high), ("rest", g.low)):
            curves[name, key] = kaplan_meier(time[mask], event[mask], confidence_level=confidence_level)
    return groups, tests, curves


def _new_axes(n_table_rows: int, n_methods: int, legend_loc: str, figsize: tuple[float, float] | None) -> Any:
    """Axes of a new figure with a constrained layout on an Agg canvas (no pyplot state), tall
    enough for the at-risk table and, below, the legend."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n_rows = n_table_rows
    if legend_loc == "below":  # the legend's rows: 3 per method, whole methods per column
        n_rows += 3 * -(-n_methods // min(n_methods, 3)) + 1
    figure = Figure(figsize=figsize or (8.5, 4.2 + 0.17 * (n_rows + 2)), layout="constrained")
    FigureCanvasAgg(figure)
    return figure.add_subplot(1, 1, 1)


def _draw_curve(ax: Any, curve: KaplanMeierCurve, t_end: float, color: str, style: str, label: str,
                band_alpha: float) -> None:
    """One group's Kaplan–Meier steps, and its confidence band when ``band_alpha`` > 0."""
    ax.step(*_km_steps(curve, curve.survival, t_end), where="post", linestyle=style, color=color, label=label)
    if band_alpha > 0 and curve.lower is not None and curve.upper is not None:
        x, lower = _km_steps(curve, curve.lower, t_end)
        ax.fill_between(x, lower, _km_steps(curve, curve.upper, t_end)[1], step="post", color=color,
                        alpha=band_alpha, linewidth=0)


def _draw_at_risk_table(ax: Any, time: np.ndarray, groups: dict, labels: dict) -> tuple[Any, float]:
    """The number at risk of every group at each x-tick, printed under the time axis: the counts
    (a DataFrame, one row per group) and the points the table takes under the axes."""
    import pandas as pd

    lo, hi = ax.get_xlim()
    ticks = [float(t) for t in ax.get_xticks() if lo <= t <= hi]
    ax.set_xticks(ticks)  # fixed, so that the counts stay under their ticks
    at_risk = pd.DataFrame({t: [int(number_at_risk(time[groups[n].high if k == "high" else groups[n].low], t))
                                for n, k in labels] for t in ticks},
                           index=[label for label, _ in labels.values()])
    at_risk.columns.name = "time"
    size = ax.xaxis.label.get_size()
    tick_size = ax.xaxis.get_ticklabels()[0].get_size() if ticks else size
    line = 1.35 * tick_size
    top_of_table = 2 * tick_size + size + 16  # under the tick labels and the axis label
    # the row labels end left of the widest count centred on a tick at the left edge
    gap = 0.32 * tick_size * len(str(int(at_risk.to_numpy().max(initial=0)))) + 8
    ax.annotate("Number at risk", xy=(0, 0), xycoords="axes fraction", xytext=(-gap, -top_of_table),
                textcoords="offset points", ha="right", va="top", fontsize=tick_size,
                fontweight="bold", annotation_clip=False)
    for row, (label, color) in enumerate(labels.values()):
        y = -top_of_table - (row + 1) * line
        ax.annotate(label, xy=(0, 0), xycoords="axes fraction", xytext=(-gap, y), textcoords="offset points",
                    ha="right", va="top", fontsize=tick_size, color=color, annotation_clip=False)
        for t in ticks:
            ax.annotate(f"{at_risk.loc[label, t]:d}", xy=(t, 0), xycoords=("data", "axes fraction"),
                        xytext=(0, y), textcoords="offset points", ha="center", va="top",
                        fontsize=tick_size, color=color, annotation_clip=False)
    return at_risk, top_of_table + (len(labels) + 1) * line


def _draw_legend(ax: Any, legend_loc: str, n_methods: int, below: float) -> Any:
    """The legend, right of the axes or centred under the table (whole methods per column)."""
    if legend_loc == "right":
        return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                         fontsize="small", frameon=False)
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory, offset_copy

    figure = ax.figure
    # centred on the figure, under the table; whole methods per column (3 entries each)
    anchor = blended_transform_factory(
        figure.transSubfigure if hasattr(figure, "transSubfigure") else figure.transFigure,
        offset_copy(ax.transAxes, figure, y=-(below or 2.2 * ax.xaxis.label.get_size() + 16), units="points"))
    ncol = min(n_methods, 3)
    handles, texts = ax.get_legend_handles_labels()
    per_column = -(-n_methods // ncol) * 3
    blank = ncol * per_column - len(handles)
    handles += [Line2D([], [], linestyle="none")] * blank
    texts += [""] * blank
    return ax.legend(handles, texts, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor,
                     ncol=ncol, fontsize="small", frameon=False)


def save_figure(fig: Any, path: str | os.PathLike[str], *, dpi: int = 120) -> str | os.PathLike[str]:
    """Write a figure as a PNG file (Agg backend).

    Parameters
    ----------
    fig : matplotlib.figure.Figure or RiskGroupsDisplay
        The figure, or a display whose ``figure_`` is written (e.g. from
        :func:`plot_risk_groups`).
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
    >>> display = plot_risk_groups(rng.exponential(size=40), rng.random(40) < 0.8, rng.normal(size=40))
    >>> path = save_figure(display, os.path.join(tempfile.mkdtemp(), "km.png"))
    >>> with open(path, "rb") as fh:
    ...     fh.read(4)
    b'\\x89PNG'
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = getattr(fig, "figure_", fig)
    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.savefig(path, format="png", dpi=dpi, bbox_inches="tight")
    return path
