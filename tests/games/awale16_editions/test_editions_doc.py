"""The Python block of docs/editions.md runs as a reader would paste it."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[3] / "docs" / "editions.md"


def test_editions_doc_python_block_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(compile(blocks[0], str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "2R2B3T" in printed and "'transparent': [" in printed
    assert namespace["vec"].num_envs == 256 and namespace["env"].unwrapped.game_spec.name == "awale16_2025"
