"""Joining Ray: a cluster address that answers nothing (a cluster stopped without ``ray stop`` leaves it behind)
ends a command within seconds in one line, and ``--runtime-env`` reaches the actors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")

import ray

from competition.ray_backend import ClusterUnreachableError, cluster_address, connect, runtime_env

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
    for given in ("auto", None):  # --address auto, or no --address: the address is RAY_ADDRESS's, and named so
        with pytest.raises(ClusterUnreachableError) as raised:
            connect(given)
        assert f"(RAY_ADDRESS={address})" in str(raised.value) and "unset RAY_ADDRESS" in str(raised.value)
        assert "--address" not in str(raised.value)
    assert time.monotonic() - started < FAIL_WITHIN_SECONDS
    assert not ray.is_initialized()


def test_a_program_that_is_not_ray_at_the_address_is_no_cluster():
    """Something accepts connections at the address (another program took the port of a stopped cluster): the
    driver asks for the head's versions, as ray.init does first, and is answered by no Ray."""
    listener = socket.socket()
    listener.bind(("", 0))  # every interface: Ray resolves 127.0.0.1 to this machine's address
    listener.listen()

    def answer() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.sendall(b"HTTP/1.0 200 OK\r\n\r\nhello")

    threading.Thread(target=answer, daemon=True).start()
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    started = time.monotonic()
    try:
        with pytest.raises(
            ClusterUnreachableError, match=f"^no Ray cluster answers at \\S+ \\(--address {address}\\)"
        ) as raised:
            connect(address)
    finally:
        listener.close()
    assert "Connection refused" not in str(raised.value)  # it reached the program, which is no Ray
    assert time.monotonic() - started < FAIL_WITHIN_SECONDS
    assert not ray.is_initialized()


def test_a_cluster_of_other_versions_refuses_the_driver_in_one_line(monkeypatch):
    """The head answers with its Ray and Python versions; a driver of other versions (here: told it runs Ray 2.0.0) is
    refused before ray.init, in one line naming both; the same head with the driver's versions is joined."""
    from ray._private import utils
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    try:
        assert cluster_address(cluster.address) == cluster.address
        python = ".".join(map(str, sys.version_info[:3]))
        monkeypatch.setattr(utils, "compute_version_info", lambda: ("2.0.0", python))
        with pytest.raises(ClusterUnreachableError) as raised:
            connect(cluster.address)
        message = str(raised.value)
        assert f"runs Ray {ray.__version__} on Python {python}, this driver Ray 2.0.0 on Python {python}" in message
        assert "\n" not in message and not ray.is_initialized()
    finally:
        cluster.shutdown()


@pytest.mark.parametrize(
    "command",
    [
        ["-m", "awale_apps", "arena", "--agents", "random", "greedy", "--backend", "ray", "--address", "auto"],
        ["-m", "training.rllib.trainer", "--address", "auto", "--no-progress"],
        ["-m", "awale_apps", "tournament", "players.toml", "--backend", "ray", "--address", "auto", "--db", "t.db"],
        ["-m", "awale_apps", "train", "alphazero", "--backend", "ray", "--address", "auto", "--run-dir", "run"],
    ],
    ids=["arena", "rllib", "tournament", "alphazero"],
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
    assert not (tmp_path / "run").exists()  # nor AlphaZero's run directory


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
