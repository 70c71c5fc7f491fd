"""The pure-Python fallback (NUMBA_DISABLE_JIT=1) computes exactly what the compiled kernels compute."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jit_fingerprint import fingerprint


def test_pure_python_fallback_is_identical():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    script = Path(__file__).with_name("jit_fingerprint.py")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.splitlines()[-1]) == json.loads(json.dumps(fingerprint()))
