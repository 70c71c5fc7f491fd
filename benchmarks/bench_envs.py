"""Environment speed: the PettingZoo AEC env (with its wrappers), the Gymnasium env against the random opponent,
and the batched vector env in self-play, all under uniformly random legal play; PettingZoo's connect_four_v3 AEC
env measured the same way in the same run is the reference.

Each figure is the median of ``--repeats`` runs after a warm-up, alternating the AEC envs so both see the same
machine load. A step is one ``step()`` call: one ply in the AEC and self-play vector envs (the vector figure
counts every game, num_envs per call), the learner's move plus the opponent's reply in the Gymnasium env. The vector
env is measured for the default game (``vector_*``) and for every registered game (``vector_<game>_*``, self-play and
against the random opponent), each on the one compiled stepper.
Usage: python benchmarks/bench_envs.py [--steps N] [--vector-envs N] [--vector-steps N] [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import warnings
from collections.abc import Callable

import gymnasium
import numpy as np
from provenance import add_out_option, write_result

import awale_env
from awale_env.games import DEFAULT_GAME, GAMES
from awale_env.vector import AwaleVectorEnv


def aec_rate(make_env: Callable[[], object], steps: int, seed: int) -> tuple[float, float]:
    """``step()`` calls per second (wall clock, CPU time) of an AEC env, picking a uniformly random action allowed by
    the mask."""
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        if not env.agents:
            env.reset()
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.integers(len(legal)))]))
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def gym_rate(steps: int, seed: int) -> tuple[float, float]:
    """``step()`` calls per second (wall clock, CPU time) of ``gymnasium.make("awale_env/Awale-v0")`` against the
    random opponent."""
    env = gymnasium.make("awale_env/Awale-v0", opponent="random")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    masks = env.unwrapped.action_masks
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        legal = np.flatnonzero(masks())
        _, _, terminated, truncated, _ = env.step(int(legal[int(rng.integers(len(legal)))]))
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def vector_rate(num_envs: int, steps: int, seed: int, opponent: str | None = None, game: str = DEFAULT_GAME
                ) -> tuple[float, float]:  # fmt: skip
    """Game steps per second (wall clock, CPU time) of the vector env (self-play by default) of ``game``, random legal
    actions drawn from the masks with numpy (vectorised, inside the timing)."""
    env = AwaleVectorEnv(num_envs, opponent=opponent, game=game)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        masks = env.action_masks()
        env.step((rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=1))
    return num_envs * steps / (time.perf_counter() - start), num_envs * steps / (time.process_time() - cpu)


def connect_four() -> tuple[Callable[[], object], Callable[[], object]] | None:
    """PettingZoo's connect_four_v3 (wrapped, raw) env factories (they need pygame), or None without pygame."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        from pettingzoo.classic.connect_four import connect_four
    except ImportError:
        return None
    return connect_four.env, connect_four.raw_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="step() calls per run of the AEC and Gym envs")
    parser.add_argument("--vector-envs", type=int, default=4096)
    parser.add_argument("--vector-steps", type=int, default=300, help="vector step() calls per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    add_out_option(parser, "envs")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    reference = connect_four()
    aec_rate(awale_env.env, 1000, 0)  # warm-up: load the compiled kernels
    gym_rate(1000, 0)
    for game in GAMES:
        vector_rate(args.vector_envs, 5, 0, None, game)
        vector_rate(args.vector_envs, 5, 0, "random", game)
    runs: dict[str, list[float]] = {}

    def add(key: str, rates: tuple[float, float]) -> None:
        runs.setdefault(f"{key}_steps_per_s", []).append(rates[0])
        runs.setdefault(f"{key}_steps_per_cpu_s", []).append(rates[1])

    for seed in range(args.repeats):
        aec_envs = {"aec": awale_env.env, "aec_raw": awale_env.raw_env}
        if reference is not None:
            aec_envs.update(connect_four_aec=reference[0], connect_four_aec_raw=reference[1])
        for key, make_env in aec_envs.items():
            add(key, aec_rate(make_env, args.steps, seed))
        add("gym", gym_rate(args.steps, seed))
        add("vector", vector_rate(args.vector_envs, args.vector_steps, seed))
        add("vector_vs_random", vector_rate(args.vector_envs, args.vector_steps, seed, "random"))
        for game in GAMES:
            add(f"vector_{game}", vector_rate(args.vector_envs, args.vector_steps, seed, None, game))
            add(f"vector_{game}_vs_random", vector_rate(args.vector_envs, args.vector_steps, seed, "random", game))
    result: dict[str, float | int | None] = {key: statistics.median(values) for key, values in runs.items()}
    result["vector_envs"] = args.vector_envs
    c4 = reference is not None
    result["aec_vs_connect_four"] = result["aec_steps_per_s"] / result["connect_four_aec_steps_per_s"] if c4 else None
    print(f"AEC env (wrapped), random masked play:   {result['aec_steps_per_s']:>12,.0f} steps/s")
    print(f"AEC raw_env (no wrappers):               {result['aec_raw_steps_per_s']:>12,.0f} steps/s")
    if c4:
        print(f"connect_four_v3 AEC, measured the same:  {result['connect_four_aec_steps_per_s']:>12,.0f} steps/s")
        print(f"connect_four raw_env (no wrappers):      {result['connect_four_aec_raw_steps_per_s']:>12,.0f} steps/s")
        print(f"  awale AEC / connect_four (wrapped):    {result['aec_vs_connect_four']:>12.2f}x")
    else:
        print("connect_four_v3 not measured: it needs pygame (pip install pygame)")
    print(f"Gymnasium env vs random opponent:        {result['gym_steps_per_s']:>12,.0f} steps/s")
    print(f"vector env, self-play, {args.vector_envs} games:     {result['vector_steps_per_s']:>12,.0f} steps/s")
    print(f"vector env vs random opponent:           {result['vector_vs_random_steps_per_s']:>12,.0f} steps/s")
    for game in GAMES:
        self_play, vs_random = result[f"vector_{game}_steps_per_s"], result[f"vector_{game}_vs_random_steps_per_s"]
        print(f"  {game:<14} self-play {self_play:>12,.0f}, vs random {vs_random:>12,.0f} steps/s")
    if args.json:
        print(json.dumps(result))
    write_result(args.out, result, options={k: v for k, v in vars(args).items() if k not in ("json", "out")})


if __name__ == "__main__":
    main()
