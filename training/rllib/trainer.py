"""Self-play PPO with RLlib (new API stack) on any game of the toolkit: one shared policy plays both seats.

Usage (every field of :class:`RLlibPPOConfig` is an option; ``--help`` lists them; needs ``pip install
"awale_env[rllib]"``)::

    python -m training.rllib.trainer --game GAME              # into runs/rllib-GAME
    python -m training.rllib.trainer --game GAME --resume     # continue it from its last checkpoint
    python -m training.rllib.trainer --address auto           # on the Ray cluster started here (docs/distributed.md)
    tensorboard --logdir runs/rllib-GAME/tb

:func:`ppo_config` is the ready RLlib configuration (the env :class:`awale_env.rllib_env.RLlibGameEnv`, the module
:class:`agents.rllib.ActionMaskingModule`, one policy ``shared_policy`` for both agents,
``disable_env_checking=True``), usable on its own with ``config.build_algo()`` or Ray Tune
(``training/rllib/tune_sweep.py``). Every ``eval_every`` iterations the callback :class:`OpponentEvaluation` plays the
policy (its most probable legal move) against each evaluation opponent and adds the scores to RLlib's result
(``result["vs_opponents"]["greedy"]``), so Tune sees them as curves; this trainer also writes them to TensorBoard and
``metrics.csv``. The run directory follows :mod:`training.runs`: ``config.json``, ``tb/``, ``metrics.csv`` and
``checkpoint/``: RLlib's Algorithm checkpoint, which ``--resume`` continues (RLlib's files are pickles: a resume
trusts its run directory), and ``policy.pt``, the policy as tensors only, which ``rllib:path=RUN/checkpoint`` plays
(the arena, ``awale play``, the web page) without unpickling anything. Each checkpoint's policy and clock
(``policy.pt``, ``trainer.json``) are also kept as ``checkpoints/iter_<iteration>/``, the latest
``--keep-checkpoints`` of them: the points of a learning curve (``python -m training.baselines measure RUN``), each
played by ``rllib:path=RUN/checkpoints/iter_<iteration>``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np

import agents
from agents.base import game_refusal, reset_agent
from agents.extras import script_needs_extra

with script_needs_extra(__name__):
    from agents.rllib import ACTIVATIONS, POLICY_FILE, SHARED_POLICY, ActionMaskingModule, RLlibAgent, save_policy
from awale_env.errors import CheckpointError
from awale_env.games import get_game
from awale_env.gym_env import check_options
from competition import arena
from competition.progress import Clock, Progress
from training import run_logs, runs
from training.options import RunOptions, bounded, check_run_options
from training.rllib.files import KEPT_DIR, TRAINER_FILE, kept_checkpoints

TRAINER_NAME = "rllib"
#: The Algorithm checkpoint of a run (the latest), relative to its directory.
CHECKPOINT_DIR = "checkpoint"
CHECKPOINT = f"{CHECKPOINT_DIR}/{TRAINER_FILE}"
#: The options a resume may change: the run's length, its evaluations and checkpoints, and where it runs.
RESUMABLE = ("iterations", "eval_every", "eval_games", "eval_opponents", "checkpoint_every", "keep_checkpoints",
             "address", "runtime_env", "progress")  # fmt: skip


@dataclass
class RLlibPPOConfig(RunOptions):
    """Self-play PPO with RLlib: one policy for both seats, evaluated against fixed opponents as it trains."""

    resume: Annotated[bool, runs.resume_option(RESUMABLE)] = False
    iterations: Annotated[int, bounded(1, runs.MAX_COUNT)] = 200
    """training iterations (each samples train_batch_size moves, then learns from them)"""
    address: Annotated[str | None, runs.computed_default("a Ray of this process", "ADDRESS")] = None
    """Ray cluster to join ("auto": the one started on this machine by `ray start`)"""
    runtime_env: Annotated[str | None, runs.computed_default("none", "JSON|FILE")] = None
    """Ray's runtime environment for the env runners: a JSON object or a JSON/YAML file (working_dir, py_modules,
    pip; docs/distributed.md)"""
    env_runners: Annotated[int, bounded(0, runs.MAX_WORKERS)] = 1
    """Ray actors sampling games (0: sample in this process)"""
    envs_per_runner: Annotated[int, bounded(1, 1024)] = 8
    """games each sampler plays side by side"""
    reward: str = "win_loss"
    """win_loss (+1/-1/0 at the end) or score_diff (each capture's share of the seeds, zero-sum)"""
    train_batch_size: Annotated[int, bounded(1, 1 << 20)] = 4000
    """moves (of both seats) per iteration"""
    minibatch_size: Annotated[int, bounded(1, 1 << 20)] = 500
    """moves per gradient step of an epoch"""
    num_epochs: Annotated[int, bounded(1, 1000)] = 4
    """passes over each iteration's moves"""
    learning_rate: Annotated[float, bounded(0, open=True, integer=False)] = 3e-4
    """Adam learning rate"""
    gamma: Annotated[float, bounded(0, 1, integer=False)] = 0.99
    """discount factor of the rewards"""
    gae_lambda: Annotated[float, bounded(0, 1, integer=False)] = 0.95
    """lambda of the generalized advantage estimate (bias against variance)"""
    clip: Annotated[float, bounded(0, open=True, integer=False)] = 0.2
    """PPO's clip of the probability ratio"""
    entropy: Annotated[float, bounded(0, integer=False)] = 0.01
    """weight of the entropy bonus"""
    vf_coef: Annotated[float, bounded(0, integer=False)] = 0.5
    """weight of the value loss"""
    hidden: tuple[int, ...] = (256, 256)
    """hidden layers of the policy and (separately) of the value network"""
    activation: str = "tanh"
    """tanh or relu"""
    eval_every: Annotated[int, bounded(1, runs.MAX_COUNT)] = 5
    """iterations between evaluations (and one after the last iteration)"""
    eval_games: Annotated[int, bounded(1, 100_000)] = 20
    """games per evaluation opponent (even: mirrored pairs with seats swapped, random openings)"""
    eval_opponents: tuple[str, ...] = ("random", "greedy")
    """agent specs the policy is evaluated against"""
    checkpoint_every: Annotated[int, bounded(1, runs.MAX_COUNT)] = 5
    """iterations between checkpoints (one is also written after the last iteration)"""
    keep_checkpoints: Annotated[int, bounded(0, 1000)] = 5
    """past checkpoints whose policy and clock are kept as checkpoints/iter_<iteration>/ (checkpoint/ always holds
    the newest whole; 0: none)"""


def resolved(config: RLlibPPOConfig) -> RLlibPPOConfig:
    """``config`` with its run directory filled in and its options checked (ValueError names the bad one)."""
    check_run_options(config)
    config = dataclasses.replace(
        config,
        run_dir=config.run_dir or runs.default_run_dir(TRAINER_NAME, config.game),
        hidden=tuple(config.hidden),
        eval_opponents=tuple(config.eval_opponents),
    )
    if config.minibatch_size > config.train_batch_size:
        most = config.train_batch_size
        raise ValueError(f"--minibatch-size must be at most --train-batch-size ({most}), got {config.minibatch_size}")
    if config.eval_games % 2:
        raise ValueError(f"--eval-games must be even (each opening is played from both seats), got {config.eval_games}")
    if config.activation not in ACTIVATIONS:
        raise ValueError(f"--activation must be one of {', '.join(ACTIVATIONS)}, got {config.activation!r}")
    if not config.hidden or min(config.hidden) < 1 or len(config.hidden) > 16 or max(config.hidden) > 4096:
        raise ValueError(f"--hidden must be 1 to 16 layer sizes from 1 to 4096, got {config.hidden}")
    for spec in config.eval_opponents:
        refusal = game_refusal(agents.make(spec), spec, config.game)
        if refusal is not None:
            raise ValueError(f"--eval-opponents: {refusal}")
    check_options(None, config.reward, None)
    return config


def shared_policy(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """RLlib's policy mapping: every agent plays the one shared policy (a module-level function, so checkpoints
    that pickle the config load anywhere)."""
    return SHARED_POLICY


@dataclass(frozen=True)
class OpponentEvaluation:
    """RLlib ``on_train_result`` callback: every ``every`` iterations, the shared policy (its most probable legal
    move) plays ``games`` games against each agent of ``opponents`` (mirrored pairs from random openings of
    ``opening_plies``, as in the arena) and its scores (wins + draws / 2 over games) go into the iteration's result
    under ``vs_opponents``, where Tune and the trainer read them."""

    game: str
    opponents: tuple[str, ...] = ("random", "greedy")
    games: int = 20
    every: int = 5
    seed: int = 0
    opening_plies: int = 4

    def __call__(self, *, algorithm: Any, result: dict[str, Any], **kwargs: Any) -> None:
        iteration = int(result["training_iteration"])
        if iteration % self.every == 0:
            result["vs_opponents"] = self.scores(algorithm.get_module(SHARED_POLICY), iteration)

    def scores(self, module: ActionMaskingModule, iteration: int) -> dict[str, float]:
        """The policy's score against each opponent, games seeded by ``(seed, iteration)``."""
        player = RLlibAgent.from_module(module, name=TRAINER_NAME)
        rules = get_game(self.game)
        scores = {}
        for spec in self.opponents:
            opponent = agents.make(spec)
            seed = int(np.random.default_rng([self.seed, iteration]).integers(2**31))
            tasks = arena.make_tasks([TRAINER_NAME, spec], self.games, seed, self.opening_plies,
                                     rules.default_max_plies, rules.name)  # fmt: skip
            points = 0.0
            for task in tasks:
                seats = tuple(player if name == TRAINER_NAME else opponent for name in task.specs)
                for agent, agent_seed in zip(seats, task.agent_seeds):
                    reset_agent(agent, agent_seed)
                state = task.initial()
                for action in task.opening:
                    state = state.play(action)
                final = arena.play_game(seats, state)  # raises on an illegal move
                mine = task.specs.index(TRAINER_NAME)
                points += 0.5 if final.winner is None else float(final.winner == mine)
            scores[spec] = points / len(tasks)
        return scores


def opponent_evaluation(config: RLlibPPOConfig) -> OpponentEvaluation:
    """The evaluation callback of a run."""
    return OpponentEvaluation(config.game, config.eval_opponents, config.eval_games, config.eval_every, config.seed)


def ppo_config(config: RLlibPPOConfig | None = None) -> Any:
    """The ready RLlib ``PPOConfig`` of a self-play run (default options: :class:`RLlibPPOConfig`'s)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from awale_env.rllib_env import RLlibGameEnv

    config = resolved(config or RLlibPPOConfig())
    model = {"game": config.game, "hidden": list(config.hidden), "activation": config.activation}
    module = RLModuleSpec(module_class=ActionMaskingModule, model_config=model)
    env_config = {"game": config.game, "reward": config.reward}
    return (
        PPOConfig()
        .environment(RLlibGameEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=config.env_runners, num_envs_per_env_runner=config.envs_per_runner)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
        .training(
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            clip_param=config.clip,
            entropy_coeff=config.entropy,
            vf_loss_coeff=config.vf_coef,
            train_batch_size_per_learner=config.train_batch_size,
            minibatch_size=config.minibatch_size,
            num_epochs=config.num_epochs,
        )
        .callbacks(on_train_result=opponent_evaluation(config))
        .debugging(seed=config.seed)
    )


def metrics_row(result: dict[str, Any]) -> dict[str, Any]:
    """The figures of an iteration's RLlib result that the run logs (the scores only after an evaluation)."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(SHARED_POLICY, {})
    steps = result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0))
    sampled = runners.get("num_env_steps_sampled", 0)
    row = {
        "iteration": int(result["training_iteration"]),
        "env_steps": int(steps),
        "env_steps_per_s": sampled / max(result.get("time_this_iter_s", 0.0), 1e-9),
        "mean_game_plies": runners.get("episode_len_mean", float("nan")),
        "first_player_return": runners.get("agent_episode_returns_mean", {}).get("player_0", float("nan")),
    }
    for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "vf_explained_var"):
        row[key] = learner.get(key, float("nan"))
    faults = result.get("fault_tolerance", {})  # RLlib's count of its env runners: healthy ones, restarts so far
    row["env_runners_healthy"] = int(faults.get("num_healthy_workers", 0))
    row["env_runner_restarts"] = int(faults.get("num_remote_worker_restarts", 0))
    for spec, score in result.get("vs_opponents", {}).items():
        row[f"vs_{runs.tag(spec)}"] = score
    return row


def env_runners_note(healthy: int, wanted: int, row: dict[str, Any]) -> str:
    """The line a run prints when the number of its healthy env runners changes (a runner lost, or back)."""
    if healthy >= wanted:
        return f"ray: all {wanted} env runners sample again (env_runner_restarts: {row['env_runner_restarts']})"
    return (f"ray: {wanted - healthy} of {wanted} env runners lost (their process or node); RLlib samples with the "
            f"others and brings a runner back once Ray has restarted it ({row['env_steps']:,} moves sampled so far; "
            "env_runners_healthy in metrics.csv)")  # fmt: skip


def save_checkpoint(algorithm: Any, run_dir: Path, elapsed: float, keep: int = 0) -> None:
    """Write the Algorithm's state and the policy file of agents (:func:`agents.rllib.save_policy`) to
    ``run_dir/checkpoint`` whole or not at all: into a fresh directory first, the trainer's file last, then swapped
    in; with ``keep``, its policy and trainer files are also kept (:func:`keep_checkpoint`)."""
    final = run_dir / CHECKPOINT_DIR
    fresh, old = final.with_name(final.name + ".tmp"), final.with_name(final.name + ".old")
    for leftover in (fresh, old):
        shutil.rmtree(leftover, ignore_errors=True)
    algorithm.save_to_path(str(fresh.resolve()))
    save_policy(algorithm.get_module(SHARED_POLICY), fresh)
    (fresh / TRAINER_FILE).write_text(json.dumps({"iteration": algorithm.iteration, "elapsed": elapsed}))
    if final.exists():
        final.rename(old)
    fresh.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    if keep:
        keep_checkpoint(final, run_dir, algorithm.iteration, keep)


def keep_checkpoint(checkpoint: Path, run_dir: Path, iteration: int, keep: int) -> None:
    """Copy the policy and trainer files of ``checkpoint`` to ``run_dir/checkpoints/iter_<iteration>/`` (whole or not
    at all: the trainer's file marks it complete) and drop the oldest kept beyond ``keep``."""
    final = run_dir / KEPT_DIR / f"iter_{iteration:06d}"
    fresh = final.with_name(final.name + ".tmp")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    for name in (POLICY_FILE, TRAINER_FILE):
        shutil.copyfile(checkpoint / name, fresh / name)
    shutil.rmtree(final, ignore_errors=True)
    fresh.rename(final)
    for old in list(kept_checkpoints(run_dir).values())[:-keep]:
        shutil.rmtree(old)


def saved_elapsed(run_dir: Path) -> float:
    """The seconds the run has trained, from its checkpoint's trainer file; ValueError naming the file and the field
    for a damaged one."""
    path = run_dir / CHECKPOINT
    saved = runs.read_json(path, "checkpoint file")
    elapsed = saved.get("elapsed") if isinstance(saved, dict) else None
    if isinstance(elapsed, bool) or not isinstance(elapsed, (int, float)) or not 0 <= elapsed < float("inf"):
        raise ValueError(f"{path}: 'elapsed' must be a number of seconds, got {elapsed!r}")
    return float(elapsed)


def restore(algorithm: Any, checkpoint: Path) -> None:
    """``algorithm``'s state restored from the run's ``checkpoint``; CheckpointError naming it and RLlib's reason if
    its files are missing or damaged (RLlib raises whatever its reader meets: a missing file, a truncated pickle)."""
    try:
        algorithm.restore_from_path(str(checkpoint))
    except Exception as error:
        reason = " ".join(f"{type(error).__name__}: {error}".split())
        raise CheckpointError(
            f"{checkpoint}: RLlib cannot restore the run from it ({reason[:300]}): resume from an intact copy of the "
            "run directory, or start a new run"
        ) from error


def train(config: RLlibPPOConfig) -> Path:
    """Train (or with ``config.resume`` continue) a run; return its checkpoint directory."""
    import ray

    from competition.ray_backend import connect

    config, run_dir = runs.check_start(TRAINER, config)
    elapsed = saved_elapsed(run_dir) if config.resume else 0.0
    with ExitStack() as cleanup:  # whatever fails, what was started is ended, the last first
        if connect(config.address, config.runtime_env):  # a Ray this call started (not the caller's): shut down
            cleanup.callback(ray.shutdown)
        algorithm = ppo_config(config).build_algo()
        cleanup.callback(algorithm.stop)
        if config.resume:
            restore(algorithm, (run_dir / CHECKPOINT_DIR).resolve())
        runs.prepare(TRAINER, config)  # what the run goes on from is read: its first writes
        done = algorithm.iteration
        log = run_logs.CsvLog(run_dir / "metrics.csv", "iteration")
        log.keep_until(done)  # forget what a stopped run logged after its checkpoint
        writer = cleanup.enter_context(closing(run_logs.tensorboard_writer(run_dir, done)))
        clock = Clock(elapsed)
        progress = cleanup.enter_context(
            closing(Progress(TRAINER_NAME, config.iterations, done, "iteration", clock, config.progress))
        )
        healthy = config.env_runners
        while algorithm.iteration < config.iterations:
            result = algorithm.train()
            last = algorithm.iteration >= config.iterations
            if last and "vs_opponents" not in result:  # every run ends with an evaluation
                module = algorithm.get_module(SHARED_POLICY)
                result["vs_opponents"] = opponent_evaluation(config).scores(module, algorithm.iteration)
            row = metrics_row(result)
            for key, value in row.items():
                if key != "iteration":
                    writer.add_scalar(key, value, row["iteration"])
            writer.flush()
            log.append([row])
            if row["env_runners_healthy"] != healthy:
                healthy = row["env_runners_healthy"]
                progress.note(env_runners_note(healthy, config.env_runners, row))
            progress.update(1)
            scores = " ".join(f"{spec}={score:.0%}" for spec, score in result.get("vs_opponents", {}).items())
            progress.status(f"{row['env_steps_per_s']:,.0f} steps/s" + (f", {scores}" if scores else ""))
            if last or algorithm.iteration % config.checkpoint_every == 0:
                save_checkpoint(algorithm, run_dir, clock.elapsed(), config.keep_checkpoints)
    return run_dir / CHECKPOINT_DIR


TRAINER = runs.Trainer(TRAINER_NAME, RLlibPPOConfig, resolved, train, CHECKPOINT, RESUMABLE)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: ``python -m training.rllib.trainer [--option value ...]``; ends with the spec that
    plays the trained policy."""
    checkpoint = runs.main(TRAINER, argv, runs.summary(__doc__))
    print(f"policy: {checkpoint / POLICY_FILE}")
    print(f"play it with the agent spec {runs.play_spec('rllib', checkpoint)}")


if __name__ == "__main__":
    main()
