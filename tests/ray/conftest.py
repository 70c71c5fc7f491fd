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
