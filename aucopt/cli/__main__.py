"""``python -m aucopt.cli``: the ``aucopt`` command."""

import sys

from ._main import main

sys.exit(main())
