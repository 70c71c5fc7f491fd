"""The Ray tests' fixture: a Ray of this process, started in local mode for one test and shut down after it (never
``ray start``: a test leaves no cluster behind). The tests run in their own virtual environment with the ``rllib``
extra (``.ci/ray_tests.sh``); each module skips itself where Ray is not installed. They ask for ``ray.rllib``, not
``ray``: without Ray, ``import ray`` finds this very directory (``tests/`` is on pytest's path) as a namespace
package."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def local_ray() -> Iterator[Any]:
    """Ray started on this machine for the test (2 CPUs), shut down after it."""
    pytest.importorskip("ray.rllib")
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False)
    try:
        yield ray
    finally:
        ray.shutdown()


#: A node on which the toolkit is not installed: its workers' ``sitecustomize`` (on the node's PYTHONPATH) finds the
#: toolkit's packages only on PYTHONPATH entries, where a runtime environment's ``py_modules`` put them, not in the
#: virtual environment (where the tests' editable install is) nor in the working directory.
NOT_INSTALLED = """
import os
import sys
from importlib.machinery import PathFinder

HERE = os.path.dirname(os.path.abspath(__file__))


class NotInstalled:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name not in ("awale_env", "agents", "competition", "training", "awale_apps"):
            return None
        entries = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
        spec = PathFinder.find_spec(name, [entry for entry in entries if os.path.abspath(entry) != HERE])
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return spec


sys.meta_path.insert(0, NotInstalled)
"""


@pytest.fixture
def without_toolkit(tmp_path: Any) -> dict[str, str]:
    """The ``env_vars`` of a node (``Cluster.add_node``) on which the toolkit is not installed."""
    folder = tmp_path / "not_installed"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(NOT_INSTALLED)
    return {"PYTHONPATH": str(folder)}


@pytest.fixture
def signal_handlers_put_back() -> Iterator[None]:
    """Not for Ray's tests: the main suite's guard (tests/conftest.py) fails a test that leaves SIGINT's or SIGTERM's
    handler changed, and Ray's driver installs its own SIGTERM handler in ``ray.init`` (Tune its SIGINT one), which
    stay after ``ray.shutdown()``: every test of a Ray started in this process would fail."""
    yield
