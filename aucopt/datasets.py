"""Loaders for data files that are not shipped with the package (examples and benchmarks).

Each loader takes the file's path and says clearly what is missing when it is absent.
"""

from __future__ import annotations

import json
import os

import numpy as np

#: where the project's shared data folder sits relative to a source checkout
SHARED_DATA = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))

NOMINAL_COIL = ("STYPE", "MOSHOOFD")


def load_coil2000(path: str | None = None):
    """CoIL Challenge 2000 (caravan insurance): ``(X_train, y_train, X_eval, y_eval)``.

    Rows 0–5,821 are the original training set (348 buyers), rows 5,822–9,821 the evaluation
    set (238 buyers); y = 1 for "insurance". Ordered factor columns become their level index
    (``levels.json`` beside the CSV gives the order); the nominal STYPE and MOSHOOFD are one-hot
    encoded. ``path`` defaults to ``<shared data>/coil2000/ticdata.csv.gz``.
    """
    import pandas as pd

    path = path or os.path.join(SHARED_DATA, "coil2000", "ticdata.csv.gz")
    levels_path = os.path.join(os.path.dirname(path), "levels.json")
    for p in (path, levels_path):
        if not os.path.exists(p):
            raise FileNotFoundError(
                f"CoIL 2000 data not found: {p} is missing (the shared data folder holds "
                "coil2000/ticdata.csv.gz and levels.json)."
            )
    frame = pd.read_csv(path)
    with open(levels_path) as fh:
        levels = json.load(fh)
    y = (frame.pop("CARAVAN").astype(str) == "insurance").to_numpy(int)
    columns = []
    for name in frame.columns:
        col = frame[name]
        if name in NOMINAL_COIL:
            columns.append(pd.get_dummies(col.astype(str), prefix=name).astype(float))
        elif name in levels:
            codes = col.astype(str).map({v: k for k, v in enumerate(levels[name])})
            if codes.isna().any():
                raise ValueError(f"CoIL column {name} has values outside levels.json.")
            columns.append(codes.astype(float).rename(name))
        else:
            columns.append(col.astype(float))
    X = pd.concat(columns, axis=1).to_numpy(float)
    return X[:5822], y[:5822], X[5822:], y[5822:]


SKSURV_SETS = {"whas500": ("load_whas500", "fstat", "lenfol"),
               "gbsg2": ("load_gbsg2", "cens", "time"),
               "veterans": ("load_veterans_lung_cancer", "Status", "Survival_in_days"),
               "flchain": ("load_flchain", "death", "futime")}


def load_survival(name: str, *, time: str | None = None, event: str | None = None):
    """A survival data set as ``(X, y)``: numeric covariates (categoricals one-hot encoded, rows
    with missing values dropped) and a structured target from :func:`aucopt.survival_target`.

    ``name`` is one of ``whas500``, ``gbsg2``, ``veterans``, ``flchain`` (shipped by
    scikit-survival, an optional dependency) or a CSV file with the ``time`` and ``event`` columns.
    """
    import pandas as pd

    from ._validation import survival_target

    if name in SKSURV_SETS:
        try:
            import sksurv.datasets as sd
        except ImportError as exc:
            raise ImportError(f"The {name!r} data set ships with scikit-survival: pip install scikit-survival") from exc
        loader, event_col, time_col = SKSURV_SETS[name]
        frame, target = getattr(sd, loader)()
        frame = frame.copy()
        if name == "flchain":  # cause of death: recorded only for those who died — it leaks the outcome
            frame = frame.drop(columns=["chapter"], errors="ignore")
        e, t = np.asarray(target[event_col], bool), np.asarray(target[time_col], float)
    else:
        if not os.path.exists(name):
            raise ValueError(f"Unknown data set {name!r}: use one of {sorted(SKSURV_SETS)} or a CSV path.")
        if time is None or event is None:
            raise ValueError("A CSV data set needs --time COL and --event COL.")
        frame = pd.read_csv(name)
        for col in (time, event):
            if col not in frame.columns:
                raise ValueError(f"Column {col!r} is not in {name}; columns: {list(frame.columns)[:12]} …")
        t, e = frame.pop(time).to_numpy(float), frame.pop(event).to_numpy()
    frame = pd.get_dummies(frame, drop_first=True, dtype=float)
    keep = ~frame.isna().any(axis=1).to_numpy() & np.isfinite(t)
    return frame.to_numpy(float)[keep], survival_target(np.asarray(e)[keep], t[keep])
