"""An example Ray Tune sweep over the RLlib self-play PPO: learning rates x entropy weights, ranked by the score
against one of the evaluation opponents, which the trainer's callback
(:class:`training.rllib.trainer.OpponentEvaluation`) reports while each trial trains, so Tune sees the curves.

Usage (``--help`` lists the options; needs ``pip install "awale_env[rllib]"``)::

    python -m training.rllib.tune_sweep --iterations 40 --learning-rates 1e-4 3e-4 1e-3 --entropies 0 0.01
    python -m training.rllib.tune_sweep --address auto          # the trials spread over the cluster started here
    tensorboard --logdir runs/tune-GAME                       # every trial's curves, vs_opponents/* among them

Each trial is one RLlib Algorithm (:func:`training.rllib.trainer.ppo_config` with the swept values and the trainer's
options given here: ``--env-runners``, ``--hidden``, ``--minibatch-size``, ...) sampling in its own process (and its
``--env-runners`` actors); Tune runs as many side by side as the cluster has CPUs. The trials' results and
checkpoints go to ``--storage`` (default ``runs/tune-GAME``; Tune's layout), written by the trials where they run: on
more than one node it must be a folder every node shares (NFS) or a bucket (``s3://...``). The sweep prints one
short line per evaluation of a trial and ends with the trials ranked, writes the best trial's policy file into its
last checkpoint (downloaded to ``runs/tune-GAME-best`` from a bucket) and prints the agent spec that plays it
(``rllib:path="..."``: Tune's folder names hold commas and ``=``, so the path is quoted, see agents.registry).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from agents.extras import script_needs_extra
from awale_env.games import DEFAULT_GAME
from training import runs
from training.options import GameName, Seed

with script_needs_extra(__name__):  # agents.rllib says first, in one line, that Ray is missing
    from agents.rllib import POLICY_FILE, SHARED_POLICY, save_policy
    from competition.ray_backend import connect
    from training.rllib.trainer import RLlibPPOConfig, ppo_config, resolved

    from ray import tune  # isort: skip

#: Where an Algorithm checkpoint keeps its trained modules (RLlib's component names).
MODULES_IN_CHECKPOINT = Path("learner_group", "learner", "rl_module")


@dataclass
class SweepConfig:
    """A grid sweep of self-play PPO with Ray Tune."""

    game: GameName = DEFAULT_GAME
    iterations: int = 40
    """training iterations of each trial (a multiple of eval_every, so that every trial ends evaluated)"""
    learning_rates: tuple[float, ...] = (1e-4, 3e-4, 1e-3)
    entropies: tuple[float, ...] = (0.0, 0.01)
    """entropy bonus weights"""
    eval_every: int = 5
    eval_games: int = 20
    eval_opponents: tuple[str, ...] = ("random", "greedy")
    rank_by: str = "greedy"
    """the evaluation opponent whose score ranks the trials"""
    train_batch_size: int = 4000
    minibatch_size: int = 500
    num_epochs: int = 4
    """passes over each iteration's moves"""
    hidden: tuple[int, ...] = (256, 256)
    """hidden layers of the policy and (separately) of the value network"""
    activation: str = "tanh"
    reward: str = "win_loss"
    """win_loss or score_diff"""
    env_runners: int = 0
    """Ray actors sampling games for each trial (0: each trial samples in its own process)"""
    envs_per_runner: int = 8
    storage: Annotated[str | None, runs.computed_default("runs/tune-<game>", "DIR|URI")] = None
    """where Tune writes the trials: a folder, shared by every node (NFS) on more than one, or a bucket (s3://...)"""
    address: Annotated[str | None, runs.computed_default("a Ray of this process", "ADDRESS")] = None
    """Ray cluster to join ("auto": the one started on this machine)"""
    runtime_env: Annotated[str | None, runs.computed_default("none", "JSON|FILE")] = None
    """Ray's runtime environment for the trials: a JSON object or a JSON/YAML file (docs/distributed.md)"""
    seed: Seed = 0
    """seed of the trials (each trial's RLlib seed)"""


def sweep(config: SweepConfig) -> object:
    """Run the sweep; return Tune's ``ResultGrid``."""
    import ray

    base = resolved(RLlibPPOConfig(  # the trainer's checks: a bad option is refused before Ray starts
        game=config.game,
        seed=config.seed,
        env_runners=config.env_runners,
        envs_per_runner=config.envs_per_runner,
        reward=config.reward,
        train_batch_size=config.train_batch_size,
        minibatch_size=config.minibatch_size,
        num_epochs=config.num_epochs,
        hidden=config.hidden,
        activation=config.activation,
        eval_every=config.eval_every,
        eval_games=config.eval_games,
        eval_opponents=config.eval_opponents,
    ))  # fmt: skip
    if config.iterations < 1 or config.iterations % config.eval_every:
        raise ValueError(
            f"--iterations must be a positive multiple of --eval-every ({config.eval_every}), got {config.iterations}"
        )
    if config.rank_by not in config.eval_opponents:
        raise ValueError(f"--rank-by must be one of --eval-opponents ({', '.join(config.eval_opponents)})")
    param_space = ppo_config(base).training(
        lr=tune.grid_search(list(config.learning_rates)),
        entropy_coeff=tune.grid_search(list(config.entropies)),
    )
    metric = f"vs_opponents/{config.rank_by}"
    storage = config.storage or runs.default_run_dir("tune", config.game)
    if not is_uri(storage):
        storage = str(Path(storage).resolve())
    owns_ray = connect(config.address, config.runtime_env)
    try:
        tuner = tune.Tuner(
            "PPO",
            param_space=param_space,
            tune_config=tune.TuneConfig(metric=metric, mode="max"),
            run_config=tune.RunConfig(
                name="ppo_sweep",
                storage_path=storage,
                stop={"training_iteration": config.iterations},
                checkpoint_config=tune.CheckpointConfig(checkpoint_at_end=True),
                verbose=0,  # Tune's tables print each trial's whole RLlib config: TrialLines says what matters
                callbacks=[TrialLines()],
            ),
        )
        results = tuner.fit()
    finally:
        if owns_ray:
            ray.shutdown()
    for result in sorted(results, key=lambda r: -r.metrics.get("vs_opponents", {}).get(config.rank_by, -1.0)):
        print(trial_line(result.config, result.metrics))
    best = results.get_best_result()
    if best.checkpoint is not None:
        local = Path(best.checkpoint.path) if not is_uri(storage) else None
        exported = export_policy(best.checkpoint, local or Path(f"{runs.default_run_dir('tune', config.game)}-best"))
        print(f"best trial's policy: {exported / POLICY_FILE}")
        print(f"play it with the agent spec {runs.play_spec('rllib', exported)}")
    return results


def is_uri(storage: str) -> bool:
    """Whether ``--storage`` names a bucket (``s3://...``, ``gs://...``) rather than a folder."""
    return "://" in storage


def trial_line(training: dict[str, Any], metrics: dict[str, Any]) -> str:
    """A trial in one short line: its swept values, iteration and scores (never its whole RLlib config)."""
    scores = " ".join(f"vs {spec} {score:.0%}" for spec, score in metrics.get("vs_opponents", {}).items())
    return (f"lr={training['lr']:<8g} entropy={training['entropy_coeff']:<6g} "
            f"iteration {metrics.get('training_iteration', 0):>4}  {scores}")  # fmt: skip


def export_policy(checkpoint: Any, directory: Path) -> Path:
    """Write the policy file of agents (:func:`agents.rllib.save_policy`) of a trial's Algorithm checkpoint (Tune's
    ``Checkpoint``) into ``directory``: the checkpoint's own folder when the storage is one, a local folder for a
    bucket. The module is read with RLlib's loader: its files are pickles, trusted here because this sweep has just
    written them."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    with checkpoint.as_directory() as local:  # a bucket's checkpoint downloaded for the while
        module = RLModule.from_checkpoint(str(Path(local) / MODULES_IN_CHECKPOINT / SHARED_POLICY))
    directory.mkdir(parents=True, exist_ok=True)
    return save_policy(module, directory).parent


class TrialLines(tune.Callback):
    """Tune callback: one short line per evaluation of a trial (:func:`trial_line`), and one per failed trial."""

    def on_trial_result(self, iteration: int, trials: list, trial: Any, result: dict, **info: Any) -> None:
        if "vs_opponents" in result:
            print(trial_line(trial.config, result), flush=True)

    def on_trial_error(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
        print(f"trial {trial.trial_id} failed: see {trial.error_file or trial.local_path}", flush=True)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: ``python -m training.rllib.tune_sweep [--option value ...]``."""
    parse_args = {"args": argv, "description": __doc__.splitlines()[0], "prog": "python -m training.rllib.tune_sweep"}
    try:
        sweep(runs.command_line(SweepConfig, **parse_args))
    except ValueError as error:  # a bad option: one line, as the trainers' commands say it
        print("error: " + " ".join(str(error).split()), file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
