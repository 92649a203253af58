"""The Python blocks of the formulation guide (docs/formulations.md) run, in order, as one program."""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "formulations.md"


def test_formulation_guide_code_runs(tmp_path):
    text = GUIDE.read_text(encoding="utf-8")
    blocks = [textwrap.dedent(b) for b in re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)]
    assert len(blocks) >= 5, "the guide lost its worked example"
    # the guide re-declares the shipped top_push to show it; register the copy under another name
    program = "\n\n".join(blocks).replace('@formulation("top_push",', '@formulation("top_push_guide_copy",')
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Warning:" not in done.stderr, f"the guide's code warns:\n{done.stderr[-3000:]}"  # as every docs page
    assert "Problem('my_ranker', LP" in done.stdout
    assert "optimal" in done.stdout and "scs" in done.stdout
