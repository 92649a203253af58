"""An image scraper for sphinx-gallery that writes what each example drew, for the test suite.

When ``AUCOPT_GALLERY_REPORT`` names a folder, every code block's open pyplot figures (their axes'
titles, labels, image counts and line data) are appended to ``<folder>/<gallery>__<example>.json``
before the matplotlib scraper saves and closes them. tests/test_examples.py reads these reports,
so that each example is executed once in a test run, by the documentation build. Without the
variable the scraper does nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def figure_report(block, block_vars, gallery_conf) -> str:
    """Append the open figures' description to the example's report; no reST of its own."""
    folder = os.environ.get("AUCOPT_GALLERY_REPORT")
    if not folder:
        return ""
    import matplotlib.pyplot as plt

    source = Path(block_vars["src_file"])
    report = Path(folder) / f"{source.parent.name}__{source.stem}.json"
    figures = json.loads(report.read_text()) if report.exists() else []
    for number in plt.get_fignums():
        figures.append([{"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                         "n_images": len(ax.images),
                         "lines": [[list(map(float, line.get_xdata())), list(map(float, line.get_ydata()))]
                                   for line in ax.lines]}
                        for ax in plt.figure(number).axes])
    report.write_text(json.dumps(figures))
    return ""
