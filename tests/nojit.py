"""Run test code in a fresh interpreter, compiled or as plain Python (``NUMBA_DISABLE_JIT=1``): the fallback of
every compiled kernel must compute exactly what the compiled code does, and only a new process can switch numba off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).parent


def run_python(code: str, jit: bool = False) -> Any:
    """Run ``code``, which prints JSON on its last line, with numba off (or on, with ``jit``); return that JSON.

    The tests folder and the repository are on the path, so ``code`` can import the test modules and their helpers.
    """
    env = {**os.environ, "NUMBA_DISABLE_JIT": "0" if jit else "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), str(TESTS.parent), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])
