"""The editions' pure-Python fallback (NUMBA_DISABLE_JIT=1) computes exactly what their compiled kernels compute."""

from __future__ import annotations

import json

from editions_fingerprint import fingerprint
from nojit import run_python


def test_pure_python_fallback_is_identical():
    script = "import json, editions_fingerprint as f; print(json.dumps(f.fingerprint()))"
    assert run_python(script) == json.loads(json.dumps(fingerprint()))
