"""Joining Ray: a cluster address that answers nothing (a cluster stopped without ``ray stop`` leaves it behind)
ends a command within seconds in one line, and ``--runtime-env`` reaches the actors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")

import ray

from training.ray_backend import ClusterUnreachableError, connect, runtime_env

ROOT = Path(__file__).resolve().parents[2]
#: The issue's bound: ``ray.init`` retried a dead address for more than 120 s.
FAIL_WITHIN_SECONDS = 30


def dead_address() -> str:
    """``127.0.0.1:PORT`` with nothing listening on PORT."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def test_a_dead_address_fails_at_once_without_starting_ray(monkeypatch):
    address = dead_address()
    started = time.monotonic()
    with pytest.raises(ClusterUnreachableError, match=f"no Ray cluster answers at .* \\(--address {address}\\)"):
        connect(address)
    monkeypatch.setenv("RAY_ADDRESS", address)
    with pytest.raises(ClusterUnreachableError, match="RAY_ADDRESS"):
        connect("auto")
    assert time.monotonic() - started < FAIL_WITHIN_SECONDS
    assert not ray.is_initialized()


@pytest.mark.parametrize(
    "command",
    [
        ["-m", "awale_apps", "arena", "--agents", "random", "greedy", "--backend", "ray", "--address", "auto"],
        ["-m", "training.rllib_ppo", "--address", "auto", "--no-progress"],
        ["-m", "awale_apps", "tournament", "players.toml", "--backend", "ray", "--address", "auto", "--db", "t.db"],
    ],
    ids=["arena", "rllib", "tournament"],
)
def test_a_stale_address_file_ends_a_command_in_one_line(tmp_path, command):
    """``ray start`` leaves the head's address in Ray's temporary folder (here ``RAY_TMPDIR``); a cluster stopped
    without ``ray stop`` leaves it there, and ``--address auto`` reads it."""
    ray_tmp = tmp_path / "ray"
    ray_tmp.mkdir()
    (ray_tmp / "ray_current_cluster").write_text(dead_address())
    (tmp_path / "players.toml").write_text(
        '[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\nagent = "greedy"\n'
    )
    environment = {**os.environ, "RAY_TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    environment.pop("RAY_ADDRESS", None)
    started = time.monotonic()
    done = subprocess.run([sys.executable, *command], cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert time.monotonic() - started < FAIL_WITHIN_SECONDS + 20  # the interpreter's imports (torch, Ray) besides
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("error: no Ray cluster answers at "), done.stderr
    assert done.stderr.count("\n") == 1 and "ray stop" in done.stderr
    assert not (tmp_path / "t.db").exists()  # nothing started, not even the tournament's store


def test_runtime_env_option_reaches_the_actors(tmp_path):
    settings = tmp_path / "runtime_env.yaml"
    settings.write_text("env_vars:\n  AWALE_RUNTIME_ENV_TEST: shipped\n")
    assert runtime_env(str(settings)) == {"env_vars": {"AWALE_RUNTIME_ENV_TEST": "shipped"}}
    assert connect(None, str(settings)) is True
    try:

        @ray.remote(num_cpus=1)
        def read() -> str | None:
            return os.environ.get("AWALE_RUNTIME_ENV_TEST")

        assert ray.get(read.remote()) == "shipped"
    finally:
        ray.shutdown()


@pytest.mark.parametrize(
    "option, words", [("{not json", "--runtime-env is not valid JSON"), ("no/such/env.yaml", "cannot read")]
)
def test_bad_runtime_env_options_say_what_is_wrong(option, words):
    with pytest.raises(ValueError, match=words):
        runtime_env(option)


def test_a_runtime_env_file_must_hold_an_object(tmp_path):
    listed = tmp_path / "env.json"
    listed.write_text("[1, 2]")
    with pytest.raises(ValueError, match="must hold an object"):
        runtime_env(str(listed))
