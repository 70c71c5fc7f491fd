"""An example Ray Tune sweep over the RLlib self-play PPO: learning rates x entropy weights, ranked by the score
against one of the evaluation opponents, which the trainer's callback (:class:`training.rllib_ppo.OpponentEvaluation`)
reports while each trial trains, so Tune sees the curves.

Usage (``--help`` lists the options; needs ``pip install "awale_env[rllib]"``)::

    python -m training.tune_ppo_sweep --iterations 40 --learning-rates 1e-4 3e-4 1e-3 --entropies 0 0.01
    python -m training.tune_ppo_sweep --address auto          # the trials spread over the cluster started here
    tensorboard --logdir runs/tune-GAME                       # every trial's curves, vs_opponents/* among them

Each trial is one RLlib Algorithm (:func:`training.rllib_ppo.ppo_config` with the swept values) sampling in its own
process; Tune runs as many side by side as the cluster has CPUs. The trials' results and checkpoints go to
``runs/tune-GAME`` (Tune's layout); the sweep ends by writing the best trial's policy file into its last checkpoint
and printing the agent spec that plays it (``rllib:path=...``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import tyro

from agents.extras import script_needs_extra
from awale_env.games import DEFAULT_GAME, GAMES
from training import runs

with script_needs_extra(__name__):
    from agents.rllib import SHARED_POLICY, save_policy
    from training.ray_backend import connect
    from training.rllib_ppo import RLlibPPOConfig, ppo_config

#: Where an Algorithm checkpoint keeps its trained modules (RLlib's component names).
MODULES_IN_CHECKPOINT = Path("learner_group", "learner", "rl_module")


@dataclass
class SweepConfig:
    """A grid sweep of self-play PPO with Ray Tune."""

    game: Annotated[str, tyro.conf.arg(help=f"the game to learn: {', '.join(GAMES)}")] = DEFAULT_GAME
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
    storage: Annotated[str | None, runs.computed_default("runs/tune-<game>", "DIR")] = None
    """where Tune writes the trials"""
    address: str | None = None
    """Ray cluster to join ("auto": the one started on this machine); default: a Ray of this process"""
    seed: int = 0


def sweep(config: SweepConfig) -> object:
    """Run the sweep; return Tune's ``ResultGrid``."""
    import ray
    from ray import tune

    if config.iterations % config.eval_every:
        raise ValueError(f"--iterations must be a multiple of --eval-every {config.eval_every}: {config.iterations}")
    if config.rank_by not in config.eval_opponents:
        raise ValueError(f"--rank-by must be one of --eval-opponents ({', '.join(config.eval_opponents)})")
    base = RLlibPPOConfig(
        game=config.game,
        seed=config.seed,
        env_runners=0,  # one process per trial: Tune spreads the trials instead
        train_batch_size=config.train_batch_size,
        eval_every=config.eval_every,
        eval_games=config.eval_games,
        eval_opponents=config.eval_opponents,
    )
    param_space = ppo_config(base).training(
        lr=tune.grid_search(list(config.learning_rates)),
        entropy_coeff=tune.grid_search(list(config.entropies)),
    )
    metric = f"vs_opponents/{config.rank_by}"
    storage = Path(config.storage or runs.default_run_dir("tune", config.game)).resolve()
    owns_ray = connect(config.address)
    try:
        tuner = tune.Tuner(
            "PPO",
            param_space=param_space,
            tune_config=tune.TuneConfig(metric=metric, mode="max"),
            run_config=tune.RunConfig(
                name="ppo_sweep",
                storage_path=str(storage),
                stop={"training_iteration": config.iterations},
                checkpoint_config=tune.CheckpointConfig(checkpoint_at_end=True),
                verbose=1,  # the trials' table, without each trial's whole RLlib config
            ),
        )
        results = tuner.fit()
    finally:
        if owns_ray:
            ray.shutdown()
    for result in sorted(results, key=lambda r: -r.metrics.get("vs_opponents", {}).get(config.rank_by, -1.0)):
        training = result.config
        scores = result.metrics.get("vs_opponents", {})
        print(f"lr={training['lr']:<8g} entropy={training['entropy_coeff']:<6g} "
              + " ".join(f"{spec}={score:.0%}" for spec, score in scores.items()))  # fmt: skip
    best = results.get_best_result()
    if best.checkpoint is not None:
        print(f"best trial's policy: rllib:path={export_policy(Path(best.checkpoint.path))}")
    return results


def export_policy(checkpoint: Path) -> Path:
    """Write the policy file of agents (:func:`agents.rllib.save_policy`) into a trial's Algorithm checkpoint, read
    with RLlib's loader: its files are pickles, trusted here because this sweep has just written them."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    module = RLModule.from_checkpoint(str(checkpoint / MODULES_IN_CHECKPOINT / SHARED_POLICY))
    return save_policy(module, checkpoint)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: ``python -m training.tune_ppo_sweep [--option value ...]``."""
    sweep(tyro.cli(SweepConfig, args=argv, description=__doc__.splitlines()[0]))


if __name__ == "__main__":
    main()
