"""The modeling layer: declarative formulations, the sparse builder and the standard-form problem.

A formulation (one file in the top-level ``formulations/`` folder, importable as
``aucopt.formulations``) is a function ``f(m, **params)`` registered with :func:`formulation`; it
states the mathematics with the operators of :class:`Model`. ``Formulation.build`` emits a
:class:`Problem` (sparse, lifted standard form) that any backend in :mod:`aucopt.solvers` solves.
"""

from ._model import (
    BYTES_PER_NONZERO,
    Affine,
    Constraint,
    Formulation,
    Model,
    Quadratic,
    Variable,
    available_formulations,
    formulation,
    get_formulation,
)
from .problem import Problem

__all__ = ["Model", "Formulation", "formulation", "get_formulation", "available_formulations", "Problem",
           "Affine", "Variable", "Constraint", "Quadratic", "BYTES_PER_NONZERO"]
