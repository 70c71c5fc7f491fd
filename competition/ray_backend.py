"""Ray actors for the toolkit's parallel work: ``--backend ray`` (``--address`` to join a running cluster).

The process pools stay the default on one machine; Ray spreads the same work over a cluster (docs/distributed.md).
This module holds what every use shares: :func:`connect`, :class:`Actors` (replaced when lost) and :func:`run_jobs`,
and the games of the arena and of tournaments: :func:`run_tasks` plays game tasks
(:mod:`competition.tasks`: each has a ``play(agent)`` method) on ``workers`` actors, each building its agents
once, as the pool's worker processes do; results come back in task order and are identical to a local run's for the
same seed. AlphaZero self-play on Ray builds on it (:mod:`training.alphazero.ray_selfplay`).

Nothing is read from or written to a file system the nodes would have to share with the driver: the driver reads the
weights files of the agent specs (``path=``) once and puts their bytes in Ray's object store
(:func:`ship_weights`), where each task actor builds its agents from them (:func:`agents.registry.make_from_weights`);
self-play weights travel the same way; every output (run directories, journals, results) is written by the driver.

A lost actor (its process killed, its node gone) is replaced by a new one and its job is run again: a game is
replayed whole; a self-play worker restarts its games (:mod:`training.alphazero.ray_selfplay`). The run goes on, says
so in one line on stderr (:func:`report`), and counts it: ``replaced`` (the actors lost), the self-play stats
``actors_replaced`` and ``games_restarted`` (columns of ``metrics.csv``), the arena's replayed games. An actor that
fails to start (its class cannot be imported on its node: the toolkit is not there) is not replaced: a new one would
fail the same way, so the run stops with :class:`ActorStartError`, one line naming the node.

:func:`connect` joins a cluster (or starts a Ray here) with an optional runtime environment (``--runtime-env``: the
package and its dependencies shipped to every node), and fails within seconds, in one line, when no Ray cluster this
driver may join answers at the address (a cluster stopped without ``ray stop`` leaves its address behind, and
``ray.init`` would retry for minutes; another program may listen there; the head may refuse the driver's token or
versions): it asks the head for its versions as ``ray.init`` does first.

This module imports Ray (``pip install "awale_env[rllib]"``); callers import it only for ``--backend ray``.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agents.extras import needs_extra
from agents.registry import WeightsFile, make, make_from_weights, read_weights
from competition.tasks import PreparedAgents

with needs_extra("--backend ray"):  # without the extra: one line saying what to install
    import ray
    from ray.exceptions import NodeDiedError, RayActorError, RayTaskError, WorkerCrashedError

#: What ``ray.get`` raises when the actor running a call is gone.
LOST_ACTOR_ERRORS = (RayActorError, WorkerCrashedError, NodeDiedError)
#: Seconds to wait for a cluster's head to answer before saying it is not there.
PROBE_SECONDS = 5.0
#: Seconds a replacement actor waits for a CPU to be free before the line reporting it says it waits for one.
FREE_CPU_SECONDS = 2.0
#: Every top-level package of the distribution: what to ship to a node that lacks the toolkit (``awale bot``, which a
#: tournament's programs run, is in awale_apps).
TOOLKIT_PACKAGES = ("awale_env", "agents", "competition", "training", "awale_apps")
#: The ``--runtime-env`` that ships them (docs/distributed.md, "Shipping the package").
PY_MODULES = json.dumps({"py_modules": list(TOOLKIT_PACKAGES)})


class ClusterUnreachableError(ConnectionError):
    """No Ray cluster this driver may join answers at the address (nothing there, something else, a head refusing
    its token or versions): the commands end with this one line."""


class ActorStartError(OSError):
    """An actor failed to start on a node (the toolkit missing there, most often): a new one would fail the same way,
    so the run stops with this one line naming the node. An OSError (Python's EnvironmentError: the node's environment
    is at fault), which the commands end with in one line."""


def runtime_env(option: str | None) -> dict[str, Any] | None:
    """The runtime environment of ``--runtime-env``: a JSON object, or a JSON or YAML file holding one (Ray's
    ``runtime_env``: ``working_dir``, ``py_modules``, ``pip``, ``env_vars``, ...). ValueError names what is wrong."""
    if option is None or not option.strip():
        return None
    text, source, is_yaml = option, "--runtime-env", False
    if not option.lstrip().startswith("{"):
        path = Path(option).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ValueError(f"--runtime-env is a JSON object or a JSON/YAML file: cannot read {path}: "
                             f"{error.strerror or error}") from None  # fmt: skip
        source, is_yaml = f"--runtime-env {path}", path.suffix.lower() in (".yaml", ".yml")
    try:
        if is_yaml:
            import yaml  # a dependency of Ray

            value = yaml.safe_load(text)
        else:
            value = json.loads(text)
    except Exception as error:  # json.JSONDecodeError, yaml.YAMLError
        raise ValueError(
            f"{source} is not valid {'YAML' if is_yaml else 'JSON'}: {' '.join(str(error).split())}"
        ) from None
    if not isinstance(value, dict):
        raise ValueError(f"{source} must hold an object (keys such as working_dir, py_modules, pip), got {value!r}")
    return value


def cluster_address(address: str, origin: str = "--address") -> str | None:
    """The ``host:port`` a driver joins for ``address`` (Ray's own resolution: ``RAY_ADDRESS``, then for "auto"
    the address ``ray start`` left in Ray's temporary folder), given by ``origin`` (``--address`` or
    ``RAY_ADDRESS``), checked within :data:`PROBE_SECONDS` to be a Ray cluster this driver may join
    (:func:`check_cluster`); None for a Ray client address (``ray://``), which Ray checks itself.
    ClusterUnreachableError otherwise, in one line."""
    from ray._private.services import canonicalize_bootstrap_address  # the resolution ray.init does first

    from_environment = bool(os.environ.get("RAY_ADDRESS")) and (origin == "RAY_ADDRESS" or address == "auto")
    way_out = "unset RAY_ADDRESS" if from_environment else "leave --address out"
    if address.startswith("ray://") or os.environ.get("RAY_ADDRESS", "").startswith("ray://"):
        return None
    try:
        resolved = canonicalize_bootstrap_address(address)
    except ConnectionError:
        raise ClusterUnreachableError(
            f"no Ray cluster to join at --address {address}: none was started on this machine (ray start --head), "
            "and RAY_ADDRESS is not set; give the head's address (HOST:6379) or leave --address out to start Ray here"
        ) from None
    if resolved is None:
        return None
    if from_environment:
        where = f"RAY_ADDRESS={os.environ['RAY_ADDRESS']}"
    else:
        where = "the address the last `ray start` left here" if address == "auto" else f"{origin} {address}"
    check_cluster(resolved, where, way_out)
    return resolved


def check_cluster(address: str, where: str, way_out: str) -> None:
    """Ask the head at ``address`` (named by ``where`` in messages) for the cluster's Ray and Python versions, as
    ``ray.init`` does first, within :data:`PROBE_SECONDS`: ClusterUnreachableError in one line when nothing answers,
    something other than a Ray head answers, the head refuses this driver's authentication token, or the versions are
    not this driver's (Ray refuses a driver of other versions). ``way_out`` ends the first case's message."""
    import grpc  # Ray's own dependencies: the GCS protocol and the channel ray.init opens (token, TLS)
    from ray._common.usage.usage_constants import CLUSTER_METADATA_KEY
    from ray._private.grpc_utils import init_grpc_channel
    from ray._private.ray_constants import KV_NAMESPACE_CLUSTER
    from ray._private.utils import check_version_info
    from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc

    channel = init_grpc_channel(address)
    try:
        request = gcs_service_pb2.InternalKVGetRequest(key=CLUSTER_METADATA_KEY, namespace=KV_NAMESPACE_CLUSTER)
        reply = gcs_service_pb2_grpc.InternalKVGcsServiceStub(channel).InternalKVGet(request, timeout=PROBE_SECONDS)
    except grpc.RpcError as error:
        code, details = error.code(), " ".join((error.details() or "").split())
        if code == grpc.StatusCode.UNAUTHENTICATED:
            raise ClusterUnreachableError(
                f"the Ray cluster at {address} ({where}) refuses this driver's authentication token ({details}): "
                "export RAY_AUTH_MODE=token and the head's token (RAY_AUTH_TOKEN, or ~/.ray/auth_token)"
            ) from None
        if code == grpc.StatusCode.UNAVAILABLE:
            reason = details.rpartition(": ")[2][:200] or "unavailable"
        elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
            reason = f"nothing answered within {PROBE_SECONDS:g} s"
        else:
            reason = f"what answers is not a Ray cluster's head ({code.name}: {details[:200]})"
        raise ClusterUnreachableError(
            f"no Ray cluster answers at {address} ({where}): {reason}; a cluster stopped without `ray stop` leaves "
            f"its address behind: start it again (ray start --head) or {way_out} to start Ray here"
        ) from None
    finally:
        channel.close()
    try:
        metadata = json.loads(reply.value)
        check_version_info(metadata, "this driver")
    except (ValueError, KeyError, TypeError, AttributeError):
        return  # a head still starting has not written its versions yet: ray.init checks them
    except RuntimeError:  # Ray's "Version mismatch" (its own check, with its own Python match level)
        from ray._private.utils import compute_version_info

        ours, python = compute_version_info()
        raise ClusterUnreachableError(
            f"the Ray cluster at {address} ({where}) runs Ray {metadata['ray_version']} on Python "
            f"{metadata['python_version']}, this driver Ray {ours} on Python {python}: Ray refuses a driver of other "
            "versions; run it in the cluster's environment (docs/distributed.md)"
        ) from None


def connect(address: str | None, runtime_env_option: str | None = None) -> bool:
    """Join the Ray cluster at ``address`` ("auto": the one started on this machine by ``ray start``), or, when
    ``address`` is None, start a Ray for this process (not whatever cluster ``ray start`` last left on this machine;
    a job submitted to a cluster still joins it through its ``RAY_ADDRESS``), with the runtime environment of
    ``runtime_env_option`` (:func:`runtime_env`). Nothing if Ray is already initialized (its runtime environment is
    then the one given to ``ray.init`` or to ``ray job submit``). True when this call initialized Ray (the caller
    shuts it down). ClusterUnreachableError within seconds when no Ray cluster this driver may join answers there."""
    environment = runtime_env(runtime_env_option)
    if ray.is_initialized():
        return False
    origin = "--address"
    if address is None and os.environ.get("RAY_ADDRESS"):
        address, origin = os.environ["RAY_ADDRESS"], "RAY_ADDRESS"
    address = address or "local"
    if address != "local":
        cluster_address(address, origin)
    ray.init(address=address, runtime_env=environment, include_dashboard=False)
    return True


def report(message: str) -> None:
    """One line on stderr about what the toolkit did after a fault (above any progress bar)."""
    tqdm.write(f"ray: {message}", file=sys.stderr)


def lost_reason(error: BaseException) -> str:
    """Why an actor was lost, in a few words (Ray's own message spans many lines)."""
    first = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
    return type(error).__name__ + (f": {first[:160]}" if first else "")


def start_failure(error: BaseException, actor: str) -> ActorStartError | None:
    """The ActorStartError of ``actor``, lost because its creation failed (Ray's ``actor_init_failed``: its class
    could not be imported on its node, or its ``__init__`` raised), naming it, its node and the error; None for an
    actor lost after it started (killed, its node gone), which a new actor replaces."""
    if not getattr(error, "actor_init_failed", False):
        return None
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # Ray colours the task's name
    raised = re.findall(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception): .*)$", text, flags=re.MULTILINE)
    cause = raised[-1].strip()[:300] if raised else lost_reason(error)
    if "ImportError" in cause or "ModuleNotFoundError" in cause or "failed to import" in text:
        advice = ("the node lacks the toolkit or one of its dependencies in the driver's version: install it there, "
                  f"or ship the toolkit with --runtime-env '{PY_MODULES}' (docs/distributed.md)")  # fmt: skip
    else:
        advice = "a new actor would fail the same way"
    return ActorStartError(f"{actor} cannot start on node {actor_node(error, text)}: {cause}; {advice}")


def actor_node(error: BaseException, text: str) -> str:
    """The node of a dead actor: its address and Ray's node ID (from the cluster's actor table), or the address in
    Ray's message when the table does not say."""
    try:
        from ray._private.state import actors as actor_table  # Ray's table of actors, without the dashboard

        address = actor_table(getattr(error, "actor_id", None))["Address"]
        return f"{address['IPAddress']} (node ID {address['NodeID']})"
    except Exception:  # a debugging API of Ray's: anything it raises leaves the address of the message
        found = re.search(r"\bip=([^,)\s]+)", text)
        return found[1] if found else "unknown"


def free_cpu(seconds: float = FREE_CPU_SECONDS) -> bool:
    """Whether a CPU is free in the cluster within ``seconds`` (a lost actor's CPU is given back a moment after it
    dies; a node that left takes its CPUs with it)."""
    deadline = time.monotonic() + seconds
    while ray.available_resources().get("CPU", 0.0) < 1:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def ship_weights(tasks: Sequence[Any]) -> ray.ObjectRef:
    """Read, on the driver, the weights file of every agent spec of ``tasks`` that names one (``path=``) and put their
    bytes in Ray's object store, once: what :class:`TaskActor` builds its agents from (the files need not exist on
    its node)."""
    weights: dict[str, WeightsFile] = {}
    for task in tasks:
        for spec in task.agent_specs:
            if spec not in weights:
                shipped = read_weights(spec, task.game)
                if shipped is not None:
                    weights[spec] = shipped
    return ray.put(weights)


@ray.remote(num_cpus=1)
class TaskActor:
    """Plays game tasks (anything with a ``play(agents)`` method: an arena game, a tournament game between programs);
    a task's agents are built on first use and kept in the actor, and warmed up before their first move, as in the
    pool's worker processes (:class:`~competition.tasks.PreparedAgents`: a fresh actor compiles or loads
    its kernels before the clock, not inside a timed move), from the weights shipped by the driver
    (:func:`ship_weights`, resolved by Ray) for the specs that name a file."""

    def __init__(self, weights: dict[str, WeightsFile] | None = None) -> None:
        self.weights = weights or {}
        self.agents = PreparedAgents(self.build)

    def build(self, spec: str) -> Any:
        shipped = self.weights.get(spec)
        return make(spec) if shipped is None else make_from_weights(spec, shipped)

    def play(self, task: Any) -> Any:
        return task.play(self.agents)


class Actors:
    """``count`` actors made by ``make(index)``; :meth:`replace` swaps a lost one for a new one."""

    def __init__(self, make: Callable[[int], Any], count: int, kind: str = "actor") -> None:
        self.make = make
        self.kind = kind
        self.handles = [make(index) for index in range(count)]
        self.replaced = 0

    def __len__(self) -> int:
        return len(self.handles)

    def replace(self, index: int, error: BaseException | None = None, redo: str = "its work is done again") -> None:
        """Replace actor ``index``, lost with ``error``, and say so in one line ending with ``redo``: replaced by a new
        actor, or, when no CPU is free in the cluster (its node gone, the others full), a new actor that waits for
        one."""
        ray.kill(self.handles[index], no_restart=True)  # it may be half alive (its node unreachable)
        placed = free_cpu()
        self.handles[index] = self.make(index)
        self.replaced += 1
        reason = "" if error is None else f" ({lost_reason(error)})"
        how = "replaced by a new actor" if placed else "a new actor takes its place once a CPU is free (none is now)"
        report(f"{self.kind} {index} lost{reason}; {how}, {redo}")

    def kill(self) -> None:
        for handle in self.handles:
            ray.kill(handle, no_restart=True)


def run_jobs(
    actors: Actors,
    call: Callable[[Any, Any], ray.ObjectRef],
    jobs: Sequence[Any],
    pinned: bool,
    done: Callable[[Any], None] | None = None,
    redo: Callable[[Any], str] = lambda job: "its job runs again",
) -> list[Any]:
    """Run every job as ``call(actor, job)`` and return the results in job order. ``pinned``: job i runs on actor i
    (the actor holds its state); otherwise each idle actor takes the next job. A job whose actor is lost runs again
    on its replacement (``redo(job)`` says how, in the line reporting it); ``done(result)`` is called after each
    finished job. Unpinned, an actor left idle also plays a copy of a job sent again to a replacement, whose actor
    may wait for a free CPU for good (its node gone, the others full): the first copy to end counts (a job's result
    does not depend on where it runs)."""
    results: list[Any] = [None] * len(jobs)
    finished = [False] * len(jobs)
    pending: dict[ray.ObjectRef, tuple[int, int]] = {}
    waiting = deque(range(len(jobs)))
    sent_again: list[int] = []  # jobs given to a replacement actor, in order

    def submit(job: int, actor: int) -> None:
        pending[call(actors.handles[actor], jobs[job])] = (job, actor)

    def copies(job: int) -> int:
        return sum(1 for other, _ in pending.values() if other == job)

    for actor in range(len(actors)):
        if waiting:
            submit(waiting.popleft(), actor)
    while not all(finished):
        (ref,), _ = ray.wait(list(pending), num_returns=1)
        job, actor = pending.pop(ref)
        try:
            result = ray.get(ref)
        except RayTaskError as error:  # the job's own error (a failed preparation): raised as the process pool does
            raise error.cause from error
        except LOST_ACTOR_ERRORS as error:
            failure = start_failure(error, f"{actors.kind} {actor}")
            if failure is not None:
                raise failure from None
            if finished[job]:  # a copy of a job done elsewhere
                actors.replace(actor, error, "its job was done elsewhere")
                if waiting and not pinned:
                    submit(waiting.popleft(), actor)
                continue
            actors.replace(actor, error, redo(jobs[job]))
            submit(job, actor)
            sent_again.append(job)
            continue
        if not finished[job]:
            finished[job], results[job] = True, result
            if done is not None:
                done(result)
        if pinned:
            continue
        if waiting:
            submit(waiting.popleft(), actor)
            continue
        stuck = next((other for other in sent_again if not finished[other] and copies(other) < 2), None)
        if stuck is not None:
            submit(stuck, actor)
    return results


def run_tasks(
    tasks: Sequence[Any],
    workers: int,
    address: str | None,
    done: Callable[[Any], None] | None = None,
    replayed: Callable[[Any], None] | None = None,
    runtime_env_option: str | None = None,
    kind: str = "arena actor",
) -> list[Any]:
    """Play game tasks (``task.play(agent)``: :mod:`competition.tasks`) on ``workers`` Ray actors (at
    ``address``, or a Ray started here, with the runtime environment of ``runtime_env_option``); results in task
    order, ``done(result)`` as each game ends and ``replayed(task)`` for each game played again after its actor was
    lost (``kind`` names the actors in the line that says so)."""
    if workers < 1:
        raise ValueError(f"games on Ray are played on --workers actors: give at least 1, got {workers}")
    owns_ray = connect(address, runtime_env_option)
    actors = None
    try:
        weights = ship_weights(tasks)

        def redo(task: Any) -> str:
            if replayed is not None:
                replayed(task)
            return f"{task.label} is played again whole"

        actors = Actors(lambda _: TaskActor.remote(weights), min(workers, len(tasks)) or 1, kind)
        play = lambda handle, task: handle.play.remote(task)  # noqa: E731
        return run_jobs(actors, play, tasks, pinned=False, done=done, redo=redo)
    finally:
        if actors is not None:
            actors.kill()
        if owns_ray:
            ray.shutdown()
