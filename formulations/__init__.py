"""Shipped formulations, one short declarative file each (installed as ``aucopt.formulations``).

Adding a formulation = adding a module here that defines ``@formulation(...)``-decorated
functions; every module in this package is imported (and so registered) on first use.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
