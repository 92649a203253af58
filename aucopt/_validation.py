"""Input validation shared by pairs, metrics, estimators and the CLI.

Every public entry point validates here, before any work starts, and raises ``ValueError``
with the offending quantity and, where there is one, the fix.
"""

from __future__ import annotations

import numpy as np

SURVIVAL_DTYPE_HINT = (
    "a structured array with a boolean event field and a float time field "
    "(e.g. sksurv.util.Surv.from_arrays or aucopt.survival_target), or a pair (event, time)"
)


def format_bytes(n: float) -> str:
    """Human-readable byte count: ``format_bytes(175e6) == '175.0 MB'``."""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1000.0
    raise AssertionError  # pragma: no cover


def check_finite_1d(values, name: str, *, dtype=float) -> np.ndarray:
    """Return ``values`` as a 1-d array, rejecting NaN / inf and other shapes."""
    arr = np.asarray(values)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}.")
    try:
        arr = arr.astype(dtype, copy=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got dtype {np.asarray(values).dtype}.") from exc
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s).")
    return arr


def check_consistent_length(**arrays) -> int:
    """All named arrays have the same first dimension; return it."""
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k}: {v}" for k, v in lengths.items())
        raise ValueError(f"Inconsistent numbers of samples ({shown}).")
    return next(iter(lengths.values()))


def as_event_indicator(event, name: str = "event") -> np.ndarray:
    """Boolean event indicator from bool, {0, 1} or {False, True} values."""
    arr = np.asarray(event)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}.")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iuf":
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values.")
        values = np.unique(arr)
        if np.all(np.isin(values, (0, 1))):
            return arr.astype(bool)
        raise ValueError(
            f"{name} must be boolean-like (bool or 0/1), got values {values[:5].tolist()}."
        )
    raise ValueError(f"{name} must be boolean-like (bool or 0/1), got dtype {arr.dtype}.")


def is_survival_target(y) -> bool:
    """True for a structured survival array (two fields, one boolean) or an ``(event, time)`` pair."""
    if isinstance(y, tuple) and len(y) == 2:
        return True
    arr = np.asarray(y) if not isinstance(y, np.ndarray) else y
    return arr.dtype.names is not None and len(arr.dtype.names) == 2


def survival_arrays(y, time=None) -> tuple[np.ndarray, np.ndarray]:
    """Split a survival target into ``(event: bool, time: float)`` and validate it.

    Accepts a structured array (the field with a boolean dtype is the event, the other the
    time, as in scikit-survival), ``(event, time)`` as a tuple, or ``survival_arrays(event, time)``.
    """
    if time is not None:
        event = y
    elif isinstance(y, tuple) and len(y) == 2:
        event, time = y
    else:
        arr = np.asarray(y)
        names = arr.dtype.names
        if names is None or len(names) != 2:
            raise ValueError(f"Expected a survival target: {SURVIVAL_DTYPE_HINT}; got {arr.dtype}.")
        kinds = [arr.dtype[n].kind for n in names]
        if kinds.count("b") != 1:
            raise ValueError(
                f"A structured survival target needs exactly one boolean field (the event); "
                f"got fields {list(names)} with kinds {kinds}."
            )
        e_name = names[kinds.index("b")]
        t_name = names[1 - kinds.index("b")]
        event, time = arr[e_name], arr[t_name]
    event = as_event_indicator(np.ravel(np.asarray(event)))
    time = check_finite_1d(time, "time")
    check_consistent_length(event=event, time=time)
    if np.any(time < 0):
        raise ValueError(f"time must be non-negative; found {int(np.sum(time < 0))} negative value(s).")
    return event, time


def survival_target(event, time, *, event_name: str = "event", time_name: str = "time") -> np.ndarray:
    """Structured survival array (``bool`` event, ``float`` time), compatible with scikit-survival."""
    event, time = survival_arrays(event, time)
    out = np.empty(len(event), dtype=[(event_name, bool), (time_name, float)])
    out[event_name] = event
    out[time_name] = time
    return out


def binary_labels(y, pos_label=None) -> tuple[np.ndarray, object]:
    """Boolean "is positive" mask from two-valued labels ({0,1}, {-1,1}, bool, strings …).

    ``pos_label`` defaults to the larger of the two classes' values (1, True, …).
    Raises for ``None``, continuous targets, one class only, more than two classes, or NaN.
    """
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None.")
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-dimensional binary labels, got shape {arr.shape}.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError("y contains NaN or infinite values.")
    classes = np.unique(arr)
    if arr.dtype.kind == "f" and np.any(classes != np.round(classes)) and len(classes) > 2:
        raise ValueError(
            "Unknown label type: continuous. y must hold two class labels; "
            "for survival data pass a structured (event, time) target."
        )
    if len(classes) < 2:
        raise ValueError(
            f"y has only one class ({classes.tolist()}); ranking needs both positives and negatives."
        )
    if len(classes) > 2:
        raise ValueError(
            f"Only binary classification is supported. y has {len(classes)} classes "
            f"{classes[:6].tolist()}; for survival data pass a structured (event, time) target."
        )
    if pos_label is None:
        pos_label = classes[1]
    elif pos_label not in classes:
        raise ValueError(f"pos_label={pos_label!r} is not one of the classes {classes.tolist()}.")
    return arr == pos_label, pos_label
