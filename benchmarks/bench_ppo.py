"""Throughput of self-play PPO's pieces: the learner's env (moves/s) against each kind of pool opponent, with each
feature set, a short MaskablePPO run (collection + updates, moves/s), and sb3-contrib's own ``MaskablePPO("MlpPolicy",
gymnasium.make("awale_env/Awale-v0"))`` with torch's default threads and with one (the README's advice to give SB3
one thread on a small machine).

    python benchmarks/bench_ppo.py [--moves 20000] [--ppo-moves 65536] [--sb3-moves 4096] [--json]

Figures are the median of ``--repeats`` runs; the machine may be shared, so compare numbers from one run only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

import numpy as np
from provenance import add_out_option, write_result

import agents
from agents.ppo import PPOAgent
from agents.ppo.policy import PolicyNet, input_size
from agents.ppo.sb3 import LearnerView
from awale_env.games import DEFAULT_GAME, get_game
from awale_env.gym_env import AwaleEnv
from training.ppo.config import Args


def random_net(features: str) -> PolicyNet:
    """An untrained network of the default shape, to time snapshot opponents."""
    rng = np.random.default_rng(0)
    sizes = [input_size(DEFAULT_GAME, features), *Args.net_arch, get_game(DEFAULT_GAME).num_actions]
    weights = [rng.normal(0, 0.1, (a, b)) for a, b in zip(sizes[:-1], sizes[1:])]
    return PolicyNet(weights, [np.zeros(b) for b in sizes[1:]], "tanh", features)


def env_rate(opponent: str, features: str, moves: int) -> float:
    """Learner moves per second through LearnerView, the learner playing uniformly random legal moves."""
    player = (
        PPOAgent.from_net(random_net(features), deterministic=False, seed=0) if opponent == "snapshot" else opponent
    )
    env = LearnerView(AwaleEnv(opponent=player, learner_seat="random"), shaping=1.0, features=features)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(moves):
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            env.reset()
    return moves / (time.perf_counter() - start)


def ppo_rate(moves: int) -> float:
    """Moves per second of a default-configured run (no evaluation), collection and updates together."""
    from training.ppo.trainer import train  # torch: not for --help

    with tempfile.TemporaryDirectory() as run_dir:
        args = Args(
            run_dir=run_dir,
            total_timesteps=moves,
            eval_every=10**9,
            eval_games=2,
            eval_opponents=("random",),
            checkpoint_every=10**9,
            progress=False,
        )
        start = time.perf_counter()
        train(args)
        return moves / (time.perf_counter() - start)


def sb3_rate(moves: int, threads: int) -> float:
    """Moves per second of a plain ``MaskablePPO("MlpPolicy", ...)`` on the Gymnasium env with ``threads`` torch
    threads, after a warm-up rollout."""
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO

    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        model = MaskablePPO("MlpPolicy", gymnasium.make("awale_env/Awale-v0"), seed=0)
        model.learn(model.n_steps)  # warm-up: the first rollout and update
        done, start = model.num_timesteps, time.perf_counter()
        model.learn(moves, reset_num_timesteps=False)  # SB3 completes the rollout it is in: count what it played
        return (model.num_timesteps - done) / (time.perf_counter() - start)
    finally:
        torch.set_num_threads(previous)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=20_000, help="learner moves per env measurement")
    parser.add_argument("--ppo-moves", type=int, default=65_536, help="moves of the short PPO run (0 to skip)")
    parser.add_argument("--sb3-moves", type=int, default=4096, help="moves of each plain MaskablePPO run (0 to skip)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    add_out_option(parser, "ppo")
    options = parser.parse_args()
    agents.make("greedy")  # import and compile before timing
    results: dict[str, float] = {}
    for features in ("board", "tactics"):
        for opponent in ("random", "greedy", "snapshot"):
            rates = [env_rate(opponent, features, options.moves) for _ in range(options.repeats)]
            results[f"env_{features}_vs_{opponent}"] = round(statistics.median(rates))
            print(f"env, {features} features, vs {opponent}: {results[f'env_{features}_vs_{opponent}']} moves/s")
    if options.ppo_moves:
        results["ppo_default_moves_per_s"] = round(ppo_rate(options.ppo_moves))
        print(f"MaskablePPO with the default Args (no evaluation): {results['ppo_default_moves_per_s']} moves/s")
    if options.sb3_moves:
        import torch

        results["sb3_default_threads"] = torch.get_num_threads()
        results["sb3_default_threads_moves_per_s"] = round(sb3_rate(options.sb3_moves, torch.get_num_threads()))
        results["sb3_one_thread_moves_per_s"] = round(sb3_rate(options.sb3_moves, 1))
        default, one = results["sb3_default_threads_moves_per_s"], results["sb3_one_thread_moves_per_s"]
        threads = results["sb3_default_threads"]
        print(f"plain MaskablePPO: {default} moves/s with torch's {threads} threads, {one} with one")
    if options.json:
        print(json.dumps(results))
    write_result(options.out, results, options={k: v for k, v in vars(options).items() if k not in ("json", "out")})


if __name__ == "__main__":
    main()
