"""Run test code in a fresh interpreter, compiled or as plain Python (``NUMBA_DISABLE_JIT=1``): the fallback of
every compiled kernel must compute exactly what the compiled code does, and only a new process can switch numba off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def run_python(code: str, jit: bool = False) -> Any:
    """Run ``code``, which prints JSON on its last line, with numba off (or on, with ``jit``); return that JSON.

    The fresh interpreter's path is this one's, with the tests' folders pytest put on it, so ``code`` can import the
    test modules and their helpers wherever they are.
    """
    env = {**os.environ, "NUMBA_DISABLE_JIT": "0" if jit else "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [*sys.path, env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])
