"""Shipped formulations, one short declarative file each (installed as ``aucopt.formulations``).

Adding a formulation = adding a module here that defines ``@formulation(...)``-decorated
functions (see :func:`aucopt.modeling.formulation`); every module in this package is imported,
and so registered, on first use of :func:`aucopt.get_formulation` or
:func:`aucopt.available_formulations`.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
