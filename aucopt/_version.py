"""The version of aucopt: the one place it is written (``pyproject.toml`` reads it from here)."""

__version__ = "0.3.0.dev0"
