"""Text tables of cross-validation results, one row per method (as Ataman 2007, Table 5.2).

:func:`comparison_table` writes the table at once or streams its rows as the methods finish;
:func:`comparison_record` (a row as numbers) and :func:`comparison_line` (a row as text) are
also the rows of the ``aucopt survival`` command.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ._fold_metrics import METRIC_LABELS
from ._results import MISSING, PooledCVResult, _metric_stats, compare_methods

__all__ = ["comparison_line", "comparison_record", "comparison_table"]

#: what the tables take: a dict of results by method, or (method, result) pairs as they finish
Results = dict[str, PooledCVResult] | Iterable[tuple[str, PooledCVResult]]


def comparison_record(name: str, result: PooledCVResult, base: PooledCVResult | None = None,
                      metrics: Iterable[str] = ()) -> dict[str, Any]:
    """One row of :func:`comparison_table` as numbers (None where missing): ``method``,
    ``pooled_c_mean``, ``pooled_c_sd``, ``fold_c``, ``p_value`` (paired t-test against the
    baseline result ``base``; None for the baseline itself, without one, or with < 2
    repetitions) and ``seconds``; for every name m of ``metrics``, ``m_mean``, ``m_sd`` and
    ``m_p_value`` (the same for :meth:`PooledCVResult.metric`)."""
    def number(value: float) -> float | None:
        value = float(value)
        return value if np.isfinite(value) else None

    paired = base is not None and base is not result and len(result.pooled_c) >= 2
    fold = result.fold_c[np.isfinite(result.fold_c)]
    record = {"method": name, "pooled_c_mean": number(result.mean), "pooled_c_sd": number(result.std),
              "fold_c": number(fold.mean()) if fold.size else None,
              "p_value": number(compare_methods(result, base).pvalue) if paired and base is not None else None,
              "seconds": number(getattr(result, "seconds", float("nan")))}
    for metric in metrics:
        mean, sd, p_value = _metric_stats(result, base, metric, paired=paired)
        record.update({f"{metric}_mean": number(mean), f"{metric}_sd": number(sd),
                       f"{metric}_p_value": number(p_value)})
    return record


def comparison_line(record: dict[str, Any], metrics: Iterable[str] = ()) -> str:
    """One row of :func:`comparison_table` as text, from :func:`comparison_record`: the method,
    pooled C mean ± sd, fold C, p-value, then mean ± sd and p-value of every name of ``metrics``,
    and the seconds (``MISSING`` where a value is None)."""
    def cell(value: float | None, spec: str, width: int) -> str:
        return f"{MISSING:>{width}}" if value is None else f"{value:{width}{spec}}"

    def mean_sd(mean: float | None, sd: float | None) -> str:
        if mean is None:
            return f"{MISSING:>17}"
        shown = MISSING if sd is None else f"{sd:6.4f}"
        return f"{mean:8.4f} ± {shown:>6}"

    extra = "".join(f"{mean_sd(record[f'{m}_mean'], record[f'{m}_sd'])} {cell(record[f'{m}_p_value'], '.4g', 10)} "
                    for m in metrics)
    return (f"{record['method']:14} {mean_sd(record['pooled_c_mean'], record['pooled_c_sd'])} "
            f"{cell(record['fold_c'], '.4f', 8)} {cell(record['p_value'], '.4g', 10)} {extra}"
            f"{cell(record['seconds'], '.1f', 8)}")


def _comparison_header(baseline: str | None, metrics: Iterable[str] = ()) -> str:
    p_title = f"{'p vs ' + str(baseline or '-'):>10}"
    extra = "".join(f"{METRIC_LABELS.get(m, m):>17} {p_title} " for m in metrics)
    return f"{'method':14} {'pooled C':>17} {'fold C':>8} {p_title} {extra}{'seconds':>8}"


def _comparison_lines(results: Results, baseline: str | None,
                      metrics: Iterable[str] | None = None) -> Iterator[str]:
    pairs = results.items() if isinstance(results, dict) else results
    if metrics is None:  # a dict shows the metrics of its first result; a stream, none unless named
        first = next(iter(results.values()), None) if isinstance(results, dict) else None
        metrics = tuple(first.fold_metrics) if first is not None else ()
    metrics = tuple(metrics)
    yield _comparison_header(baseline, metrics)
    waiting, base = [], None
    for name, result in pairs:
        if name == baseline:
            base = result
        if baseline is not None and base is None:  # its p-value needs the baseline: hold the row
            waiting.append((name, result))
            continue
        for held_name, held in [*waiting, (name, result)]:
            yield comparison_line(comparison_record(held_name, held, base, metrics), metrics)
        waiting = []
    for held_name, held in waiting:  # the baseline never came: no p-values
        yield comparison_line(comparison_record(held_name, held, metrics=metrics), metrics)


def comparison_table(results: Results, baseline: str | None = None, *, stream: bool = False,
                     metrics: Iterable[str] | None = None) -> str | Iterator[str]:
    """A text table of cross-validation results, one row per method (as Ataman 2007, Table 5.2).

    Parameters
    ----------
    results : dict of str to PooledCVResult, or iterable of (str, PooledCVResult)
        As returned by :func:`evaluate_methods`, or (name, result) pairs in the order the
        methods finish.
    baseline : str, default=None
        The method every other method is tested against; None leaves the p-value column
        empty.
    stream : bool, default=False
        False returns the table as one string. True returns a generator of its lines: the
        header at once, then each method's row as soon as ``results`` yields it (a row that
        comes before the baseline's is held until the baseline's arrives, since its p-value
        needs it; put the baseline first to stream every row).
    metrics : list of str, default=None
        The ``scoring`` metrics to show after the Harrell columns, each as mean ± sd over the
        repetitions and its p-value against ``baseline``. None: those of the first result
        when ``results`` is a dict, none for an iterable (the header is written before any
        result arrives).

    Returns
    -------
    table : str or generator of str
        Columns: method, pooled C mean ± sd, mean per-fold C, the paired t-test p-value
        against ``baseline``, the ``metrics`` and seconds (the sd is 0 for a single
        repetition, as :attr:`PooledCVResult.std`). A missing value (the baseline's own
        p-value, a p-value with fewer than 2 repetitions, a fold C with no comparable pair in
        any test fold, the IBS of a model without survival curves) is shown as "—".

    See Also
    --------
    evaluate_methods : Produces the results; its ``callback`` reports each as it ends.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.survival import PooledCVResult, comparison_table
    >>> def result(c):
    ...     return PooledCVResult(np.array(c), np.array([c]), np.zeros((3, 4)), np.zeros((3, 4)),
    ...                           np.zeros((3, 4), dtype=int), seconds=1.0)
    >>> print(comparison_table({"A": result([0.70, 0.72, 0.71]), "B": result([0.65, 0.66, 0.68])},
    ...                        baseline="B"))
    method                  pooled C   fold C     p vs B  seconds
    A                0.7100 ± 0.0100   0.7100    0.03391      1.0
    B                0.6633 ± 0.0153   0.6633          —      1.0

    Streaming, with the baseline first so that every row is printed as soon as it is known:

    >>> lines = comparison_table(iter([("B", result([0.65, 0.66, 0.68])), ("A", result([0.70, 0.72, 0.71]))]),
    ...                          baseline="B", stream=True)
    >>> next(lines).split()
    ['method', 'pooled', 'C', 'fold', 'C', 'p', 'vs', 'B', 'seconds']
    >>> next(lines).split()[-2]
    '—'
    """
    lines = _comparison_lines(results, baseline, metrics)
    return lines if stream else "\n".join(lines)
