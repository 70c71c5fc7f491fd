#!/usr/bin/env bash
# Ray's tests (tests/ray) in a virtual environment of their own with the project's `rllib` extra: Ray pins its own
# gymnasium, so the main suite's environment keeps the newest. Called by .ci/run; arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${AWALE_RAY_VENV:-.venv-ci-ray}"
python3 -m venv "$venv"
# The CPU build of torch first: any other spelling of the requirement downloads several GB of CUDA builds.
"$venv/bin/pip" install --quiet torch==2.13.0
"$venv/bin/pip" install --quiet -e ".[rllib]" pytest
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/ray "$@"
