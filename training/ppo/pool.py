"""The opponents of self-play PPO: the pool each game's opponent is drawn from (random, greedy, the league, frozen
snapshots of the learner), the envs that play against it, and the evaluation games behind the run's win rates.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

import agents
from agents.ppo import PPOAgent
from agents.ppo.policy import Policy
from agents.ppo.sb3 import sb3_env
from competition.parent_death import die_with_parent
from competition.pool import workers_ignore_interrupts
from training.ppo.config import Args


class OpponentPool:
    """Random, greedy, the league and frozen snapshots of the learner; :meth:`sample` draws the next game's
    opponent."""

    KINDS = ("random", "greedy", "league", "snapshot")

    def __init__(self, args: Args) -> None:
        weights = np.array([args.pool_random, args.pool_greedy, args.pool_league, args.pool_snapshots], dtype=float)
        if (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(f"pool weights must be >= 0 with a positive sum, got {weights.tolist()}")
        if not 0 < args.recent_bias <= 1:
            raise ValueError(f"recent_bias must be in (0, 1], got {args.recent_bias}")
        if args.pool_league > 0 and not args.league:
            raise ValueError("--pool-league needs agents in --league")
        self.league = tuple(args.league)
        self.weights = weights
        self.recent_bias = args.recent_bias
        self.size = args.pool_size
        self.deterministic = args.snapshot_deterministic
        self.snapshots: list[tuple[int, Policy]] = []  # (learner moves when taken, policy), oldest first

    def add(self, step: int, net: Policy) -> None:
        self.snapshots.append((step, net))
        del self.snapshots[: -self.size]

    def sample(self, rng: np.random.Generator, fixed: dict[str, Any]) -> tuple[str, Any]:
        """A (label, player) pair; ``fixed`` holds the caller's own random and greedy agents and league (by spec)."""
        weights = self.weights if self.snapshots else self.weights * [1, 1, 1, 0]
        kind = self.KINDS[int(rng.choice(len(self.KINDS), p=weights / weights.sum()))]
        if kind == "league":
            kind = self.league[int(rng.integers(len(self.league)))]
        if kind != "snapshot":
            return kind, fixed[kind]
        ages = np.arange(len(self.snapshots))[::-1]
        recency = self.recent_bias**ages
        index = int(rng.choice(len(self.snapshots), p=recency / recency.sum()))
        step, net = self.snapshots[index]
        label = f"snapshot@{step}"
        return label, PPOAgent.from_net(net, label, self.deterministic, seed=int(rng.integers(2**31)))


class PoolOpponent:
    """The opponent object of one environment: at every ``reset`` (a new game) it draws a player from the pool."""

    def __init__(self, pool: OpponentPool, seed: int) -> None:
        self.pool = pool
        self.rng = np.random.default_rng(seed)
        self.fixed = {"random": agents.make("random", seed=seed), "greedy": agents.make("greedy", seed=seed + 1)}
        for offset, spec in enumerate(pool.league, 2):
            self.fixed[spec] = agents.make(spec)
            agents.reset_agent(self.fixed[spec], seed + offset)
        self.label, self.player = "random", self.fixed["random"]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            for offset, agent in enumerate(self.fixed.values()):
                agents.reset_agent(agent, seed + offset)
        self.label, self.player = self.pool.sample(self.rng, self.fixed)

    def act(self, state: Any) -> int:
        return self.player.act(state)


class PoolEnv(gymnasium.Wrapper):
    """A learner's env with the pool its opponents come from: in a worker process of ``--vec-env subproc``, the
    pool is that process's copy, which the learner's new snapshots reach through :meth:`add_snapshot`."""

    def __init__(self, env: gymnasium.Env, pool: OpponentPool) -> None:
        super().__init__(env)
        self.pool = pool

    def add_snapshot(self, step: int, net: Policy) -> None:
        self.pool.add(step, net)


def make_env(pool: OpponentPool, args: Args, seed: int, learner: int | None = None) -> Callable[[], gymnasium.Env]:
    """What builds one learner's env; in a worker process of ``--vec-env subproc`` (``learner``: the learner's pid),
    that process dies with the learner (:func:`die_with_parent`), even in the middle of a step: a learner killed
    with SIGKILL would otherwise leave its workers stepping games (an MCTS league thinking) until their step ends."""

    def build() -> gymnasium.Env:
        if learner is not None:
            die_with_parent(learner)
        torch.set_num_threads(args.torch_threads)  # in a worker process: its snapshots play on as many threads
        env = sb3_env(args.game, PoolOpponent(pool, seed), args.features, args.shaping, "random", args.max_plies)
        return PoolEnv(env, pool)

    return build


def learner_envs(pool: OpponentPool, args: Args, seed: int) -> VecEnv:
    """The ``args.n_envs`` games the learner plays, stepped in its own process (``--vec-env dummy``: one pool for
    all) or each in a worker process (``subproc``: started with Ctrl-C ignored, which reaches the learner alone;
    :func:`close_envs` ends them, and a worker dies with its learner however the learner ends)."""
    if args.vec_env == "dummy":
        return DummyVecEnv([make_env(pool, args, seed * 1000 + i) for i in range(args.n_envs)])
    builders = [make_env(pool, args, seed * 1000 + i, learner=os.getpid()) for i in range(args.n_envs)]
    with workers_ignore_interrupts():
        return SubprocVecEnv(builders, start_method="spawn")  # spawn: a new process keeps the ignored Ctrl-C


#: Seconds the worker processes are given to stop once asked (each may finish its step under way); then they are killed.
WORKER_GRACE_S = 5.0


def close_envs(env: VecEnv) -> None:
    """Close the learner's envs. Worker processes are asked to stop, given :data:`WORKER_GRACE_S` in all, then killed:
    after a step that Ctrl-C or SIGTERM interrupted, SB3's own ``close`` would wait for answers it had already read
    (for ever) or for an opponent still thinking."""
    if not isinstance(env, SubprocVecEnv):
        env.close()
        return
    for remote in env.remotes:
        with contextlib.suppress(OSError):  # a worker that died has closed its end
            remote.send(("close", None))
    deadline = time.monotonic() + WORKER_GRACE_S
    for process in env.processes:
        process.join(timeout=max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()
    for remote in env.remotes:
        remote.close()
    env.closed = True


# --- evaluation ----------------------------------------------------------------------------------------------------

LEARNER = "learner"
OPENING_PLIES = 4  # random plies before each evaluation pair of games, as in the arena's round robins


def evaluate(
    net: Policy, opponent: str, games: int, seed: int | list[int], max_plies: int | None = None
) -> dict[str, Any]:
    """Play ``games`` games (mirrored pairs sharing a random opening, seats swapped) of the deterministic policy
    against ``opponent`` (a spec) on the policy's game; return the counts and the win rate. Draws only on its own
    seeded generator, so evaluating does not change the course of training."""
    game = net.game
    limit = game.default_max_plies if max_plies is None else max_plies
    learner = PPOAgent.from_net(net, name=LEARNER)
    other = agents.make(opponent)
    rng = np.random.default_rng(seed)
    counts = {"wins": 0, "draws": 0, "losses": 0}
    for _ in range(games // 2):
        opening = game.initial(max_plies=limit, seed=int(rng.integers(2**63)))
        for _ in range(OPENING_PLIES):
            if not opening.is_terminal:
                opening = opening.play(int(rng.choice(opening.legal_actions())))
        for learner_seat in (0, 1):
            agents.reset_agent(other, int(rng.integers(2**31)))
            state = opening
            while not state.is_terminal:
                state = state.play((learner if state.to_move == learner_seat else other).act(state))
            key = "draws" if state.winner is None else "wins" if state.winner == learner_seat else "losses"
            counts[key] += 1
    return {"games": games, **counts, "win_rate": counts["wins"] / games}
