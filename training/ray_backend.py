"""Ray actors for AlphaZero self-play and the arena: ``--backend ray`` (``--address`` to join a running cluster).

The process pool stays the default on one machine; Ray spreads the same work over a cluster (docs/distributed.md).
Two entry points, called by the trainers:

* :class:`RaySelfPlayPool` has the interface of :class:`training.alphazero.SelfPlayPool` (``start(net)``,
  ``collect()``, ``close()``), so a run on Ray keeps the same metrics, checkpoints and gating. Each of the
  ``workers`` actors holds a network and its ``games_per_worker`` games; every generation it receives the new
  weights (one copy in Ray's object store, shared by all actors) and plays ``moves_per_generation`` moves.
* :func:`run_tasks` plays arena games (:class:`training.arena.GameTask`) on ``workers`` actors, each building its
  agents once, as the arena's worker processes do; results come back in task order and are identical to a local
  run's for the same seed.

Nothing is read from or written to a file system the nodes would have to share with the driver: the driver reads the
weights files of the agent specs (``path=``) once and puts their bytes in Ray's object store
(:func:`ship_weights`), where each arena actor builds its agents from them (:func:`agents.registry.make_from_weights`);
self-play weights travel the same way; every output (run directories, journals, results) is written by the driver.

A lost actor (its process killed, its node gone) is replaced by a new one and its job is run again: an arena game is
replayed whole; a self-play worker restarts its games from new openings seeded by the generation (as a resumed run
does: games in flight are not part of a checkpoint) and plays the generation again with the same weights. The run
goes on, says so in one line on stderr (:func:`report`), and counts it: ``replaced`` (the actors lost), the
self-play stats ``actors_replaced`` and ``games_restarted`` (columns of ``metrics.csv``), the arena's replayed games.

:func:`connect` joins a cluster (or starts a Ray here) with an optional runtime environment (``--runtime-env``: the
package and its dependencies shipped to every node), and fails within seconds, in one line, when the cluster's
address answers nothing (a cluster stopped without ``ray stop`` leaves its address behind, and ``ray.init`` would
retry for minutes).

This module imports Ray (``pip install "awale_env[rllib]"``); the trainers import it only for ``--backend ray``.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from agents.alphazero.network import build_network
from agents.alphazero.selfplay import Samples
from agents.extras import needs_extra
from agents.registry import WeightsFile, make, make_from_weights, read_weights
from training import arena
from training.alphazero import AlphaZeroConfig, load_weights, play_generation, self_play_games, weights_bytes

with needs_extra("--backend ray"):  # without the extra: one line saying what to install
    import ray
    from ray.exceptions import NodeDiedError, RayActorError, WorkerCrashedError

#: What ``ray.get`` raises when the actor running a call is gone.
LOST_ACTOR_ERRORS = (RayActorError, WorkerCrashedError, NodeDiedError)
#: Seconds to wait for a cluster's address to accept a connection before saying it is not there.
PROBE_SECONDS = 5.0


class ClusterUnreachableError(ConnectionError):
    """No Ray cluster answers at the address to join (the commands end with this one line)."""


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


def cluster_address(address: str) -> str | None:
    """The ``host:port`` a driver joins for ``address`` (Ray's own resolution: ``RAY_ADDRESS``, then for "auto"
    the address ``ray start`` left in Ray's temporary folder), checked to accept a connection within
    :data:`PROBE_SECONDS`; None for a Ray client address (``ray://``), which Ray checks itself.
    ClusterUnreachableError otherwise, in one line."""
    from ray._private.services import canonicalize_bootstrap_address  # the resolution ray.init does first

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
    host, _, port = resolved.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except (OSError, ValueError) as error:
        origin = "RAY_ADDRESS" if os.environ.get("RAY_ADDRESS") else "the address the last `ray start` left here"
        where = origin if address == "auto" else f"--address {address}"
        raise ClusterUnreachableError(
            f"no Ray cluster answers at {resolved} ({where}): {getattr(error, 'strerror', None) or error}; a "
            "cluster stopped without `ray stop` leaves its address behind: start it again (ray start --head) or "
            "leave --address out to start Ray here"
        ) from None
    return resolved


def connect(address: str | None, runtime_env_option: str | None = None) -> bool:
    """Join the Ray cluster at ``address`` ("auto": the one started on this machine by ``ray start``), or, when
    ``address`` is None, start a Ray for this process (not whatever cluster ``ray start`` last left on this machine;
    a job submitted to a cluster still joins it through its ``RAY_ADDRESS``), with the runtime environment of
    ``runtime_env_option`` (:func:`runtime_env`). Nothing if Ray is already initialized (its runtime environment is
    then the one given to ``ray.init`` or to ``ray job submit``). True when this call initialized Ray (the caller
    shuts it down). ClusterUnreachableError within seconds when the address answers nothing."""
    environment = runtime_env(runtime_env_option)
    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS") or "local"
    if address != "local":
        cluster_address(address)
    ray.init(address=address, runtime_env=environment, include_dashboard=False)
    return True


def report(message: str) -> None:
    """One line on stderr about what the toolkit did after a fault (above any progress bar)."""
    tqdm.write(f"ray: {message}", file=sys.stderr)


def lost_reason(error: BaseException) -> str:
    """Why an actor was lost, in a few words (Ray's own message spans many lines)."""
    first = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
    return type(error).__name__ + (f": {first[:160]}" if first else "")


def ship_weights(specs: Iterable[str], game: str) -> ray.ObjectRef:
    """Read, on the driver, the weights file of every spec that names one (``path=``) and put their bytes in Ray's
    object store, once: what :class:`ArenaActor` builds its agents from (the files need not exist on its node)."""
    weights = {}
    for spec in dict.fromkeys(specs):
        shipped = read_weights(spec, game)
        if shipped is not None:
            weights[spec] = shipped
    return ray.put(weights)


@ray.remote(num_cpus=1)
class SelfPlayActor:
    """One self-play worker: a network and the games of worker ``worker``, started at ``start_generation``."""

    def __init__(self, config: dict[str, Any], worker: int, start_generation: int) -> None:
        torch.set_num_threads(1)
        self.config = AlphaZeroConfig(**{**config, "references": tuple(config["references"])})
        self.net = build_network(self.config.network_config())
        self.games = self_play_games(self.config, worker, start_generation)

    def play(self, weights: bytes) -> tuple[Samples, dict[str, float]]:
        """Load the generation's weights and play its moves; the finished games' samples and the stats."""
        load_weights(self.net, weights)
        return play_generation(self.games, self.net, self.config.moves_per_generation)


@ray.remote(num_cpus=1)
class ArenaActor:
    """Plays arena tasks; its agents are built on first use and kept (:func:`training.arena.run_task`), from the
    weights shipped by the driver (:func:`ship_weights`, resolved by Ray) for the specs that name a file."""

    def __init__(self, weights: dict[str, WeightsFile] | None = None) -> None:
        self.weights = weights or {}
        self.agents: dict[str, Any] = {}

    def agent(self, spec: str) -> Any:
        if spec not in self.agents:
            shipped = self.weights.get(spec)
            self.agents[spec] = make(spec) if shipped is None else make_from_weights(spec, shipped)
        return self.agents[spec]

    def play(self, task: arena.GameTask) -> arena.GameResult:
        return arena.run_task(task, self.agent)


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
        """Replace actor ``index``, lost with ``error``, and say so in one line ending with ``redo``."""
        ray.kill(self.handles[index], no_restart=True)  # it may be half alive (its node unreachable)
        self.handles[index] = self.make(index)
        self.replaced += 1
        reason = "" if error is None else f" ({lost_reason(error)})"
        report(f"{self.kind} {index} lost{reason}; replaced by a new actor, {redo}")

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
        except LOST_ACTOR_ERRORS as error:
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


class RaySelfPlayPool:
    """AlphaZero self-play on ``config.workers`` Ray actors (see the module docstring); the interface of
    :class:`training.alphazero.SelfPlayPool`. Joins ``config.address`` (or starts Ray here)."""

    def __init__(self, config: AlphaZeroConfig, start_generation: int) -> None:
        self.config = config
        self.generation = start_generation
        self.owns_ray = connect(config.address, config.runtime_env)
        settings = config.to_dict()
        make = lambda w: SelfPlayActor.remote(settings, w, self.generation)  # noqa: E731
        self.actors = Actors(make, config.workers, "self-play actor")
        self.weights: ray.ObjectRef | None = None

    @property
    def replaced(self) -> int:
        """Actors lost and replaced so far."""
        return self.actors.replaced

    def start(self, net: torch.nn.Module) -> None:
        """Start a generation of self-play with ``net``'s current weights."""
        self.weights = ray.put(weights_bytes(net))
        self.calls = {w: handle.play.remote(self.weights) for w, handle in enumerate(self.actors.handles)}

    def collect(self) -> tuple[Samples, dict[str, float]]:
        """Wait for the generation; samples in worker order and summed stats, as the process pool gives them."""
        calls = self.calls

        def call(handle: Any, worker: int) -> ray.ObjectRef:
            first = calls.pop(worker, None)  # the call started by start(); a replacement actor gets a new one
            return first if first is not None else handle.play.remote(self.weights)

        def redo(worker: int) -> str:
            return (f"its {self.config.games_per_worker} games restart from new openings and play generation "
                    f"{self.generation + 1} again")  # fmt: skip

        replaced = self.actors.replaced
        parts = run_jobs(self.actors, call, range(len(self.actors)), pinned=True, redo=redo)
        self.generation += 1
        total = {key: sum(stats[key] for _, stats in parts) for key in parts[0][1]}
        total["seconds"] = max(stats["seconds"] for _, stats in parts)
        total["actors_replaced"] = self.actors.replaced - replaced
        total["games_restarted"] = total["actors_replaced"] * self.config.games_per_worker
        return Samples.concatenate([samples for samples, _ in parts], self.config.game), total

    def close(self, wait: bool = True) -> None:
        """End the actors (and Ray, if this pool started it); ``wait`` is the process pool's and means nothing
        here: an actor's generation is of no use once the run stops."""
        self.actors.kill()
        if self.owns_ray:
            ray.shutdown()


def run_tasks(
    tasks: list[arena.GameTask],
    workers: int,
    address: str | None,
    done: Callable[[arena.GameResult], None] | None = None,
    replayed: Callable[[arena.GameTask], None] | None = None,
    runtime_env_option: str | None = None,
) -> list[arena.GameResult]:
    """Play arena tasks on ``workers`` Ray actors (at ``address``, or a Ray started here, with the runtime
    environment of ``runtime_env_option``); results in task order, ``done(result)`` as each game ends and
    ``replayed(task)`` for each game played again after its actor was lost."""
    if workers < 1:
        raise ValueError(f"the arena on Ray plays on --workers actors: give at least 1, got {workers}")
    owns_ray = connect(address, runtime_env_option)
    actors = None
    try:
        weights = ship_weights((spec for task in tasks for spec in task.specs), tasks[0].game if tasks else "")

        def redo(task: arena.GameTask) -> str:
            if replayed is not None:
                replayed(task)
            return f"game {task.index} ({task.specs[0]} vs {task.specs[1]}) is played again whole"

        actors = Actors(lambda _: ArenaActor.remote(weights), min(workers, len(tasks)) or 1, "arena actor")
        play = lambda handle, task: handle.play.remote(task)  # noqa: E731
        return run_jobs(actors, play, tasks, pinned=False, done=done, redo=redo)
    finally:
        if actors is not None:
            actors.kill()
        if owns_ray:
            ray.shutdown()
