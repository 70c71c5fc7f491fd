"""Every Python block of docs/envs.md runs, in order, sharing one namespace as a reader would paste them."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "envs.md"


def test_envs_doc_python_blocks_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 6 and printed[2].startswith("(1024, 35)")
    assert printed[3].startswith("oware: ") and printed[4].startswith("hawalis: ")
    assert printed[5] == "(256, 29) (256, 14)"
    assert namespace["terminated"].dtype == bool and namespace["done"]
