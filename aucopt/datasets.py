"""Loaders of the data sets used by the examples and benchmarks (not shipped with the package).

* :func:`get_data_dir` — where the data files are: an explicit folder, the ``AUCOPT_DATA``
  environment variable, or the ``shared/data`` folder beside a source checkout;
* :func:`libsvm_files` — the training and test files of a named LIBSVM set (:data:`LIBSVM_SETS`:
  adult, ijcnn1, reuters) with their number of features and index base;
* :func:`load_coil2000` — the CoIL Challenge 2000 insurance data (the case study of Ataman 2007,
  Sec. 4.5), from a CSV file;
* :func:`load_survival` — the survival data sets shipped with scikit-survival (WHAS500, GBSG2,
  veterans, FLCHAIN) or a CSV file, as covariates and a structured survival target;
* :func:`load_deepsurv` — the METABRIC, SUPPORT, GBSG and WHAS train/test splits of the DeepSurv
  repository (HDF5 files; needs h5py).

Each loader says clearly what is missing when a file or an optional package is absent, and
where to download a missing data file. A wheel install has no ``shared/data`` folder: make a
data folder, put the files in it under the names below and pass it (``data_dir=...``,
``--data-dir DIR`` on the command line, or ``AUCOPT_DATA=DIR``):

* ``libsvm/<name>_<name>.trn.bz2`` and ``libsvm/<name>_<name>.tst.bz2`` for ``<name>`` in adult,
  ijcnn1, reuters: the files ``binary/<name>/<name>.trn.bz2`` and ``.tst.bz2`` of
  https://github.com/X-DataInitiative/tick-datasets (BSD-3-Clause), from the LIBSVM collection;
* ``survival/<file>.h5``: ``experiments/data/<name>/<file>.h5`` of
  https://github.com/jaredleekatzman/DeepSurv (MIT);
* ``coil2000/ticdata.csv.gz`` and ``coil2000/levels.json``: the ``ticdata`` data set of the R
  package kernlab (the UCI Insurance Company Benchmark) as a CSV file, with the level order of its
  ordered factors (see :func:`load_coil2000`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Literal

import numpy as np

from ._csv import covariates, numeric_column, read_csv
from ._libsvm_sets import LIBSVM_SETS, LibsvmSet

#: where the project's shared data folder sits relative to a source checkout
SHARED_DATA = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))

#: the environment variable naming the data folder
DATA_ENV = "AUCOPT_DATA"

#: the nominal CoIL 2000 columns, one-hot encoded by :func:`load_coil2000`
NOMINAL_COIL = ("STYPE", "MOSHOOFD")

#: the GitHub repositories the LIBSVM and DeepSurv files of the data folder are downloaded from
TICK_DATASETS = "https://github.com/X-DataInitiative/tick-datasets"
DEEPSURV = "https://github.com/jaredleekatzman/DeepSurv"

__all__ = [
    "LIBSVM_SETS",
    "LibsvmSet",
    "get_data_dir",
    "libsvm_files",
    "load_coil2000",
    "load_deepsurv",
    "load_survival",
]


def _libsvm_relative(name: str, part: str) -> str:
    return f"libsvm/{name}_{name}.{part}.bz2"


def _where_to_get(relative: str) -> str:
    """Where the data file ``relative`` (a path inside the data folder) is downloaded from, in words."""
    for name in LIBSVM_SETS:
        for part in ("trn", "tst"):
            if relative == _libsvm_relative(name, part):
                return f"download binary/{name}/{name}.{part}.bz2 from {TICK_DATASETS}"
    for name, file in DEEPSURV_SETS.items():
        if relative == f"survival/{file}":
            return f"download experiments/data/{name}/{file} from {DEEPSURV}"
    if relative.startswith("coil2000/"):
        return ("the ticdata data set of the R package kernlab as CSV, with levels.json giving the level order "
                "of its ordered factors: see aucopt.datasets.load_coil2000")
    return ""


def _how_to_get(missing: list[str]) -> str:
    """``"A (download ... from ...) and B (...)"``: the missing files with where to get each."""
    parts = []
    for relative in missing:
        source = _where_to_get(relative)
        parts.append(f"{relative} ({source})" if source else relative)
    return " and ".join(parts)


def get_data_dir(data_dir: str | os.PathLike[str] | None = None, *, required: str | Sequence[str] | None = None,
                 ) -> str:
    """The folder holding the data files of the examples and benchmarks.

    Parameters
    ----------
    data_dir : str or path-like, default=None
        The folder. None means the ``AUCOPT_DATA`` environment variable, and, when that is unset,
        the ``shared/data`` folder beside a source checkout of aucopt (which an install from a
        wheel does not have).
    required : str or sequence of str, default=None
        Files or folders, relative to the data folder, that must exist (for example
        ``"coil2000/ticdata.csv.gz"``); their absence raises :class:`FileNotFoundError` naming
        them, where to download them and the ways to give the folder.

    Returns
    -------
    path : str
        The absolute path of the data folder.

    Raises
    ------
    FileNotFoundError
        When the folder (or a ``required`` file inside it) does not exist.

    Examples
    --------
    >>> import os, tempfile
    >>> from aucopt.datasets import get_data_dir
    >>> folder = tempfile.mkdtemp()
    >>> get_data_dir(folder) == os.path.abspath(folder)
    True
    >>> try:
    ...     get_data_dir(folder, required="coil2000/ticdata.csv.gz")
    ... except FileNotFoundError as exc:
    ...     print(str(exc).split(" in ")[0])
    Data file coil2000/ticdata.csv.gz not found
    """
    default = data_dir is None and not os.environ.get(DATA_ENV)
    if data_dir is not None:
        source = "the folder given"
    elif not default:
        data_dir, source = os.environ[DATA_ENV], f"${DATA_ENV}"
    else:
        data_dir, source = SHARED_DATA, "the shared/data folder beside a source checkout"
    path = os.path.abspath(os.fspath(data_dir))
    if required is None:
        required = []
    elif isinstance(required, (str, os.PathLike)):
        required = [os.fspath(required)]
    elif isinstance(required, Sequence):
        required = [os.fspath(r) for r in required]
    else:
        raise TypeError(f"required must be a path or a sequence of paths; got {type(required).__name__}.")
    exists = os.path.isdir(path)
    missing = [r for r in required if not (exists and os.path.exists(os.path.join(path, r)))]
    if exists and not missing:
        return path
    give = (f"pass the data folder as data_dir=... (--data-dir DIR on the command line) or set the {DATA_ENV} "
            "environment variable to it")
    put = f"; it needs {_how_to_get(missing)}" if missing else ""
    if not exists and default:
        holding = f" holding {_how_to_get(missing)}" if missing else ""
        raise FileNotFoundError(
            f"No data folder given, and aucopt is not run from a source checkout ({path}, the shared/data folder "
            f"beside one, does not exist): make a data folder{holding}, and {give}."
        )
    if not exists:
        raise FileNotFoundError(f"Data folder {path} ({source}) does not exist: give an existing folder (data_dir=..., "
                                f"--data-dir DIR on the command line, or the {DATA_ENV} environment variable){put}.")
    files = "Data file" + ("s" if len(missing) > 1 else "")
    raise FileNotFoundError(
        f"{files} {' and '.join(missing)} not found in {path} ({source}): put {_how_to_get(missing)} there, or "
        f"{give} if the files are elsewhere."
    )


def libsvm_files(name: str, *, data_dir: str | os.PathLike[str] | None = None, test: bool = True,
                 ) -> tuple[str, str, LibsvmSet]:
    """The training and test files of a LIBSVM set of the data folder, with its width and index base.

    Parameters
    ----------
    name : {"adult", "ijcnn1", "reuters"}
        The set (:data:`LIBSVM_SETS`).
    data_dir : str or path-like, default=None
        The data folder (see :func:`get_data_dir`).
    test : bool, default=True
        Whether the test file is needed too (its absence is then an error).

    Returns
    -------
    train : str
        The path of ``libsvm/<name>_<name>.trn.bz2``.
    test : str
        The path of ``libsvm/<name>_<name>.tst.bz2``.
    info : LibsvmSet
        The number of features and whether the files number them from 0, as
        :func:`sklearn.datasets.load_svmlight_file` needs them (``n_features=``,
        ``zero_based=``).

    Raises
    ------
    ValueError
        For a name that is not one of :data:`LIBSVM_SETS`.
    FileNotFoundError
        When the data folder or a needed file is missing (the message says where to download it).

    Examples
    --------
    >>> from sklearn.datasets import load_svmlight_file
    >>> from aucopt.datasets import libsvm_files
    >>> try:
    ...     train, test, info = libsvm_files("adult")
    ...     X, y = load_svmlight_file(train, n_features=info.n_features, zero_based=info.zero_based)
    ... except FileNotFoundError:
    ...     pass  # no data folder here
    """
    if name not in LIBSVM_SETS:
        raise ValueError(f"Unknown LIBSVM set {name!r}: use one of {sorted(LIBSVM_SETS)}.")
    parts = ("trn", "tst") if test else ("trn",)
    folder = get_data_dir(data_dir, required=[_libsvm_relative(name, part) for part in parts])
    train, test_path = (os.path.join(folder, _libsvm_relative(name, part)) for part in ("trn", "tst"))
    return train, test_path, LIBSVM_SETS[name]


def load_coil2000(path: str | os.PathLike[str] | None = None, *, data_dir: str | os.PathLike[str] | None = None,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The CoIL Challenge 2000 caravan-insurance data, split as in the challenge.

    Parameters
    ----------
    path : str, default=None
        The CSV file (plain or gzip-compressed) with one column per attribute and the label
        column ``CARAVAN``; a ``levels.json`` beside it gives the order of the levels of each
        ordered factor. None means ``coil2000/ticdata.csv.gz`` in the data folder.
    data_dir : str, default=None
        The data folder when ``path`` is None (see :func:`get_data_dir`: None means
        ``AUCOPT_DATA`` or the source checkout's ``shared/data``).

    Returns
    -------
    X_train : ndarray of shape (5822, n_features)
        The original training set (rows 0–5,821; 348 buyers).
    y_train : ndarray of shape (5822,)
        1 for "insurance" (a caravan policy), 0 otherwise.
    X_eval : ndarray of shape (4000, n_features)
        The original evaluation set (rows 5,822–9,821; 238 buyers).
    y_eval : ndarray of shape (4000,)
        Its labels.

    Raises
    ------
    FileNotFoundError
        When the CSV file or ``levels.json`` is missing.

    Notes
    -----
    Ordered factor columns become their level index; the nominal customer subtype ``STYPE`` and
    main type ``MOSHOOFD`` are one-hot encoded; other columns are read as numbers. Ataman
    (2007), Sec. 4.5, uses this data set for the scalable LP Ranker.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    The expected file layout, shown on a three-row file:

    >>> import json, os, tempfile
    >>> from aucopt.datasets import load_coil2000
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "levels.json"), "w") as fh:
    ...     json.dump({"MGEMLEEF": ["20-30", "30-40", "40-50"]}, fh)
    >>> with open(os.path.join(folder, "tic.csv"), "w") as fh:
    ...     _ = fh.write("STYPE,MGEMLEEF,AWAPART,CARAVAN\\n"
    ...                  "a,30-40,1,insurance\\nb,20-30,0,noinsurance\\na,40-50,2,noinsurance\\n")
    >>> X_train, y_train, X_eval, y_eval = load_coil2000(os.path.join(folder, "tic.csv"))
    >>> X_train.tolist(), y_train.tolist(), X_eval.shape
    ([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 2.0, 2.0]], [1, 0, 0], (0, 4))
    """
    import pandas as pd

    if path is None:
        path = os.path.join(get_data_dir(data_dir, required="coil2000/ticdata.csv.gz"), "coil2000",
                            "ticdata.csv.gz")
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


#: the scikit-survival data sets of :func:`load_survival`: loader, event column, time column
SKSURV_SETS = {"whas500": ("load_whas500", "fstat", "lenfol"),
               "gbsg2": ("load_gbsg2", "cens", "time"),
               "veterans": ("load_veterans_lung_cancer", "Status", "Survival_in_days"),
               "flchain": ("load_flchain", "death", "futime")}


def load_survival(name: str, *, time: str | None = None, event: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A survival data set as numeric covariates and a structured survival target.

    Parameters
    ----------
    name : {"whas500", "gbsg2", "veterans", "flchain"} or str
        A data set shipped with scikit-survival (an optional dependency), or the path of a CSV
        file.
    time : str, default=None
        The time column of a CSV file (required for a CSV file).
    event : str, default=None
        The event column of a CSV file (bool or 0/1; required for a CSV file).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Numeric covariates: categorical columns one-hot encoded (first level dropped). A CSV file
        gives one row per data row; a scikit-survival set drops its rows with a missing value
        (FLCHAIN's missing ``creatinine``).
    y : structured array of shape (n_samples,)
        Boolean ``event`` and float ``time`` (:func:`aucopt.survival_target`).

    Raises
    ------
    ValueError
        For an unknown name, a path that is not a file, a CSV file without the ``time`` / ``event``
        columns (or with ``time == event``), an empty, malformed or header-only CSV file, a
        missing value or a time that is not a finite number in a CSV file (the message names the
        columns and the lines: no row is dropped), a CSV file with no covariate column besides
        ``time`` and ``event``, or an invalid target.
    ImportError
        For a scikit-survival data set when scikit-survival is not installed.

    Notes
    -----
    FLCHAIN's ``chapter`` column (the cause of death, recorded only for those who died) is
    dropped: it would reveal the outcome.

    Examples
    --------
    >>> import os, tempfile
    >>> from aucopt.datasets import load_survival
    >>> path = os.path.join(tempfile.mkdtemp(), "trial.csv")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("age,arm,T,E\\n61,a,5.0,1\\n70,b,3.5,0\\n55,b,8.0,1\\n")
    >>> X, y = load_survival(path, time="T", event="E")
    >>> X.tolist(), y["event"].tolist(), y["time"].tolist()
    ([[61.0, 0.0], [70.0, 1.0], [55.0, 1.0]], [True, False, True], [5.0, 3.5, 8.0])
    """
    import pandas as pd

    from ._validation import survival_target

    if name in SKSURV_SETS:
        try:
            import sksurv.datasets as sd
        except ImportError as exc:
            raise ImportError(f"The {name!r} data set ships with scikit-survival, which is not installed: "
                              "pip install 'aucopt[survival]' (or pip install scikit-survival).") from exc
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
        if time == event:
            raise ValueError(f"time and event name the same column {time!r}: the event column is the 0/1 "
                             "(or bool) indicator, a different column from the time.")
        frame = read_csv(name, (time, event))  # complete, or an error naming the columns and lines
        t = numeric_column(name, frame, time, "The time")
        frame.pop(time)
        e = frame.pop(event).to_numpy()
        if frame.shape[1] == 0:
            raise ValueError(f"{name} has no covariate column besides time {time!r} and event {event!r}: "
                             "add at least one covariate column.")
        return covariates(frame), survival_target(e, t)
    frame = pd.get_dummies(frame, drop_first=True, dtype=float)
    keep = ~frame.isna().any(axis=1).to_numpy() & np.isfinite(t)
    return frame.to_numpy(float)[keep], survival_target(np.asarray(e)[keep], t[keep])


#: the DeepSurv HDF5 files of :func:`load_deepsurv`, under ``survival/`` in the data folder
DEEPSURV_SETS = {"metabric": "metabric_IHC4_clinical_train_test.h5", "support": "support_train_test.h5",
                 "gbsg": "gbsg_cancer_train_test.h5", "whas": "whas_train_test.h5"}


def load_deepsurv(name: str, *, data_dir: str | os.PathLike[str] | None = None,
                  split: Literal["all", "train", "test"] = "all") -> tuple[np.ndarray, np.ndarray]:
    """A train/test survival split of the DeepSurv repository (Katzman et al. 2018).

    Parameters
    ----------
    name : {"metabric", "support", "gbsg", "whas"}
        The data set; its file is ``survival/<name>_..._train_test.h5`` in the data folder.
    data_dir : str, default=None
        The data folder (see :func:`get_data_dir`).
    split : {"all", "train", "test"}, default="all"
        Which rows: the published training split, test split, or both stacked (train first).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The covariates as published.
    y : structured array of shape (n_samples,)
        Boolean ``event`` and float ``time`` (:func:`aucopt.survival_target`).

    Raises
    ------
    ValueError
        For an unknown ``name`` or ``split``.
    FileNotFoundError
        When the data folder or the file is missing.
    ImportError
        When h5py is not installed (``pip install 'aucopt[survival]'``).

    References
    ----------
    .. [1] Katzman, J. L., Shaham, U., Cloninger, A., Bates, J., Jiang, T., & Kluger, Y. (2018).
       DeepSurv: personalized treatment recommender system using a Cox proportional hazards deep
       neural network. *BMC Medical Research Methodology*, 18, 24.

    Examples
    --------
    >>> from aucopt.datasets import load_deepsurv
    >>> try:
    ...     X, y = load_deepsurv("support", data_dir="/nonexistent")
    ... except FileNotFoundError as exc:
    ...     print(str(exc).split(" (")[0])
    Data folder /nonexistent
    """
    from ._validation import survival_target

    if name not in DEEPSURV_SETS:
        raise ValueError(f"Unknown DeepSurv data set {name!r}: use one of {sorted(DEEPSURV_SETS)}.")
    if split not in ("all", "train", "test"):
        raise ValueError(f"split must be 'all', 'train' or 'test'; got {split!r}.")
    relative = f"survival/{DEEPSURV_SETS[name]}"
    path = os.path.join(get_data_dir(data_dir, required=relative), relative)
    try:
        import h5py
    except ImportError as exc:
        raise ImportError(f"Reading {relative} needs h5py, which is not installed: pip install 'aucopt[survival]' "
                          "(or pip install h5py).") from exc
    parts = ("train", "test") if split == "all" else (split,)
    with h5py.File(path, "r") as fh:
        X = np.vstack([fh[p]["x"][:] for p in parts]).astype(float)
        t = np.concatenate([fh[p]["t"][:] for p in parts]).astype(float)
        e = np.concatenate([fh[p]["e"][:] for p in parts]).astype(bool)
    return X, survival_target(e, t)
