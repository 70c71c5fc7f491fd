#!/usr/bin/env bash
# Ray's tests (tests/ray) in a virtual environment of their own with the project's `rllib` extra: Ray pins its own
# gymnasium, so the main suite's environment keeps the newest. Called by .ci/run; arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${AWALE_RAY_VENV:-.venv-ci-ray}"
stage() { printf '\n== .ci/ray_tests.sh %s: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
stage "the virtual environment $venv, torch 2.13.0 (CPU build) and the project with its rllib extra"
python3 -m venv "$venv"
# The CPU build of torch first: any other spelling of the requirement downloads several GB of CUDA builds.
"$venv/bin/pip" install --quiet torch==2.13.0
"$venv/bin/pip" install --quiet -e ".[rllib]" pytest
stage "tests/ray (Ray started here for each test; the numba kernels compile on a fresh clone)"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/ray "$@"
