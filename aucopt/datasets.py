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
