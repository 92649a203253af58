"""Kaplan–Meier confidence bands, at-risk counts and the risk-group figure.

Oracles: lifelines' ``KaplanMeierFitter.confidence_interval_`` for the bands, a brute-force count
for the number at risk, matplotlib's own window extents for the layout.
"""

from __future__ import annotations

import numpy as np
import pytest

from aucopt.survival import kaplan_meier, number_at_risk, plot_risk_groups, risk_groups, save_figure

pytest.importorskip("matplotlib")


def tied_survival(seed, m=60, n_times=10, p_event=0.6):
    """Integer times (many ties, events and censorings at the same time)."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, n_times + 1, size=m).astype(float), rng.random(m) < p_event


def continuous_survival(seed, m=300, n_methods=1):
    rng = np.random.default_rng(seed)
    risk = rng.normal(size=m)
    event_time = rng.exponential(365 * np.exp(-risk))
    censor_time = rng.exponential(500, size=m)
    scores = {f"method {k}": risk + rng.normal(scale=0.5 * (k + 1), size=m) for k in range(n_methods)}
    return np.minimum(event_time, censor_time), event_time <= censor_time, scores


# ============================================================================ confidence band
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("level", [0.95, 0.9, 0.5])
def test_confidence_interval_matches_lifelines(seed, level):
    lifelines = pytest.importorskip("lifelines")
    time, event = tied_survival(seed)
    if seed == 4:
        event[time == time.max()] = True  # the last subjects all have the event: Ŝ drops to 0
    curve = kaplan_meier(time, event, confidence_level=level)
    kmf = lifelines.KaplanMeierFitter(alpha=1 - level).fit(time, event)
    ref = kmf.confidence_interval_
    lower, upper = curve.confidence_interval_at(ref.index.to_numpy(dtype=float))
    np.testing.assert_allclose(lower, ref.iloc[:, 0].to_numpy(), rtol=0, atol=1e-8)
    np.testing.assert_allclose(upper, ref.iloc[:, 1].to_numpy(), rtol=0, atol=1e-8)
    # at the event times themselves, and the band brackets the estimate
    at_events = ref.loc[curve.times]
    np.testing.assert_allclose(curve.lower, at_events.iloc[:, 0].to_numpy(), rtol=0, atol=1e-8)
    np.testing.assert_allclose(curve.upper, at_events.iloc[:, 1].to_numpy(), rtol=0, atol=1e-8)
    assert np.all(curve.lower <= curve.survival + 1e-15) and np.all(curve.survival <= curve.upper + 1e-15)
    if seed == 4:
        assert curve.survival[-1] == 0 and curve.lower[-1] == 0 and curve.upper[-1] == 0


def test_confidence_interval_matches_lifelines_on_continuous_times():
    lifelines = pytest.importorskip("lifelines")
    time, event, _ = continuous_survival(0)
    curve = kaplan_meier(time, event)
    ref = lifelines.KaplanMeierFitter().fit(time, event).confidence_interval_
    lower, upper = curve.confidence_interval_at(ref.index.to_numpy(dtype=float))
    np.testing.assert_allclose(np.column_stack([lower, upper]), ref.to_numpy(), rtol=0, atol=1e-8)


def test_greenwood_variance_by_hand():
    """log(−log Ŝ) ± z √V with V = Σ d/(n(n−d)) / log(Ŝ)², computed term by term."""
    time = np.array([1.0, 2.0, 2.0, 3.0, 5.0, 6.0])
    event = np.array([True, True, False, True, False, True])
    curve = kaplan_meier(time, event, confidence_level=0.95)
    z = 1.959963984540054
    s, acc = 1.0, 0.0
    for t, lo, hi in zip(curve.times, curve.lower, curve.upper, strict=False):
        n = int(np.sum(time >= t))
        d = int(np.sum((time == t) & event))
        s *= 1 - d / n
        if n > d:
            acc += d / (n * (n - d))
        if s == 0:
            assert lo == hi == 0
            continue
        half = z * np.sqrt(acc) / abs(np.log(s))
        assert lo == pytest.approx(np.exp(-np.exp(np.log(-np.log(s)) + half)), rel=1e-12)
        assert hi == pytest.approx(np.exp(-np.exp(np.log(-np.log(s)) - half)), rel=1e-12)


def test_kaplan_meier_counts_and_no_band():
    time, event = tied_survival(1)
    curve = kaplan_meier(time, event, confidence_level=None)
    assert curve.lower is None and curve.upper is None
    with pytest.raises(ValueError, match="no confidence interval"):
        curve.confidence_interval_at(1.0)
    for t, n, d in zip(curve.times, curve.n_at_risk, curve.n_events, strict=False):
        assert n == np.sum(time >= t) and d == np.sum((time == t) & event)
    for bad in (0, 1, 1.5, -0.1, "95%"):
        with pytest.raises(ValueError, match="confidence_level must be a number in"):
            kaplan_meier(time, event, confidence_level=bad)


def test_number_at_risk_is_a_brute_force_count():
    rng = np.random.default_rng(3)
    time = rng.integers(0, 20, size=200).astype(float)
    at = np.arange(-1.0, 22.0, 0.5)
    expected = np.array([sum(1 for ti in time if ti >= t) for t in at])
    np.testing.assert_array_equal(number_at_risk(time, at), expected)


# ============================================================================ the figure
def _drawn(display):
    display.figure_.canvas.draw()
    return display.figure_.canvas.get_renderer()


def test_at_risk_table_counts_every_group_at_every_tick():
    time, event, scores = continuous_survival(1, n_methods=2)
    display = plot_risk_groups(time, event, scores, top=20, time_unit="days")
    table = display.at_risk_
    ticks = display.ax_.get_xticks()
    assert list(table.columns) == list(ticks)
    lo, hi = display.ax_.get_xlim()
    assert all(lo <= t <= hi for t in ticks) and len(ticks) >= 3
    for name, s in scores.items():
        high = risk_groups(s, 20).high
        for label, mask in ((f"{name}: top 20%", high), (f"{name}: rest", ~high)):
            brute = [sum(1 for ti in time[mask] if ti >= t) for t in ticks]
            assert table.loc[label].tolist() == brute
    # the printed numbers are the table, row by row, under their ticks
    texts = [a for a in display.ax_.texts if a.get_text().isdigit()]
    assert sorted(int(a.get_text()) for a in texts) == sorted(table.to_numpy().ravel().tolist())
    assert sorted({a.xy[0] for a in texts}) == sorted(ticks)


def test_time_axis_label_and_bands():
    time, event, scores = continuous_survival(2, n_methods=2)
    display = plot_risk_groups(time, event, scores, time_unit="days")
    assert display.ax_.get_xlabel() == "Time (days)"
    assert len(display.ax_.collections) == 4  # one shaded band per group
    band = display.ax_.collections[0].get_paths()[0].vertices
    curve = display.curves_["method 0", "high"]
    assert band[:, 1].min() == pytest.approx(min(curve.lower.min(), 1.0))
    assert plot_risk_groups(time, event, scores).ax_.get_xlabel() == "Time"
    assert plot_risk_groups(time, event, scores, xlabel="months since surgery").ax_.get_xlabel() == \
        "months since surgery"
    for off in ({"confidence_level": None}, {"ci_alpha": 0}):
        assert len(plot_risk_groups(time, event, scores, **off).ax_.collections) == 0
    quiet = plot_risk_groups(time, event, scores, at_risk_counts=False)
    assert quiet.at_risk_ is None and not quiet.ax_.texts


def test_draws_into_the_given_axes():
    from matplotlib.figure import Figure

    time, event, scores = continuous_survival(3, n_methods=2)
    figure = Figure(figsize=(12, 5), layout="constrained")
    left, right = figure.subplots(1, 2)
    right.plot([0, 1], [0, 1])
    display = plot_risk_groups(time, event, scores, ax=left, title="left panel")
    assert display.ax_ is left and display.figure_ is figure
    assert len(figure.axes) == 2  # nothing added
    assert len(left.lines) == 3 * len(scores) and len(right.lines) == 1
    assert left.get_title() == "left panel"
    assert display.legend_ is left.get_legend()


@pytest.mark.parametrize("n_methods", [1, 5])
@pytest.mark.parametrize("legend_loc", ["right", "below"])
def test_legend_is_outside_the_plotting_area_and_inside_the_figure(n_methods, legend_loc, tmp_path):
    time, event, scores = continuous_survival(4, n_methods=n_methods)
    display = plot_risk_groups(time, event, scores, top=10, legend_loc=legend_loc, time_unit="days")
    renderer = _drawn(display)
    legend = display.legend_.get_window_extent(renderer)
    axes = display.ax_.get_window_extent(renderer)
    assert not legend.overlaps(axes), (legend, axes)
    figure = display.figure_.bbox
    for artist in [display.legend_, display.ax_.xaxis.label, *display.ax_.texts]:
        box = artist.get_window_extent(renderer)
        assert figure.x0 - 1 <= box.x0 and box.x1 <= figure.x1 + 1, artist
        assert figure.y0 - 1 <= box.y0 and box.y1 <= figure.y1 + 1, artist
    # the table is under the axis label, and the legend below is under the table
    label = display.ax_.xaxis.label.get_window_extent(renderer)
    rows = [a.get_window_extent(renderer) for a in display.ax_.texts]
    assert max(r.y1 for r in rows) <= label.y0
    if legend_loc == "below":
        assert legend.y1 <= min(r.y0 for r in rows)
    save_figure(display, tmp_path / "km.png")


def test_plot_errors_name_the_parameter():
    time, event, scores = continuous_survival(5)
    with pytest.raises(ValueError, match="legend_loc must be one of"):
        plot_risk_groups(time, event, scores, legend_loc="inside")
    with pytest.raises(ValueError, match=r"ci_alpha .* must be in \[0, 1\]; got 2"):
        plot_risk_groups(time, event, scores, ci_alpha=2)
    with pytest.raises(ValueError, match="confidence_level must be a number"):
        plot_risk_groups(time, event, scores, confidence_level=95)
    with pytest.raises(ValueError, match="scores_by_method is empty"):
        plot_risk_groups(time, event, {})


def test_save_figure_accepts_a_figure_or_a_display(tmp_path):
    time, event, scores = continuous_survival(6)
    display = plot_risk_groups(time, event, scores)
    for obj, name in ((display, "a.png"), (display.figure_, "b.png")):
        with open(save_figure(obj, tmp_path / name), "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
