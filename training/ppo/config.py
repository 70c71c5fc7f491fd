"""The options of a self-play PPO run (:class:`Args`, every field a command-line option of ``awale train ppo``, with
its bounds), and the checks that refuse bad ones before anything is built (:func:`resolved`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import agents
from agents.base import MAX_DEPTH, game_refusal
from agents.ppo import pretrained_path
from agents.ppo.checkpoint import SHAPE_OPTIONS, open_checkpoint, read_config
from agents.ppo.policy import ACTIVATIONS, FEATURES, MAX_LAYERS, MAX_WIDTH, RING_KIND, default_features, input_size
from awale_env.errors import CheckpointError
from awale_env.games import get_game
from training import runs
from training.options import NetworkOptions, RunOptions, Seed, TorchThreads, bounded, check_run_options

TRAINER_NAME = "ppo"

#: The options a resume may change: the run's length, its evaluations and checkpoints, and how it runs here.
RESUMABLE = (
    "total_timesteps",
    "eval_every",
    "eval_games",
    "eval_opponents",
    "checkpoint_every",
    "keep_checkpoints",
    "torch_threads",
    "progress",
    "vec_env",
    "teacher_workers",
)

NETWORKS = tuple(SHAPE_OPTIONS)
MAX_ROLLOUT = 1 << 20
#: Where the n_envs games are stepped (rl-baselines3-zoo's ``--vec-env``): SB3's DummyVecEnv or SubprocVecEnv.
VEC_ENVS = ("dummy", "subproc")


@dataclass
class Args(NetworkOptions, RunOptions):
    """Self-play PPO on a game of the toolkit. The defaults train in well under 20 minutes on 2 CPU cores. The ring
    network's shape is the AlphaZero trainer's options (:class:`NetworkOptions`)."""

    resume: Annotated[bool, runs.resume_option(RESUMABLE)] = False
    seed: Seed = 1
    total_timesteps: Annotated[int, bounded(1, runs.MAX_COUNT)] = 1_500_000
    """learner moves to train for"""
    n_envs: Annotated[int, bounded(1, 1024)] = 16
    """games played side by side"""
    vec_env: str = "dummy"
    """where those games are stepped: dummy (in the learner's process) or subproc (one worker process each, so
    searching opponents such as an MCTS league think in parallel)"""
    n_steps: Annotated[int, bounded(1, 1 << 20)] = 256
    """moves per game slot per update (an update learns from n_envs * n_steps moves)"""
    batch_size: Annotated[int, bounded(2, 1 << 20)] = 1024
    """moves per gradient step (minibatch) of an epoch"""
    n_epochs: Annotated[int, bounded(1, 1000)] = 4
    """passes over an update's moves"""
    learning_rate: Annotated[float, bounded(0, open=True, integer=False)] = 1e-3
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0"""
    gamma: Annotated[float, bounded(0, 1, integer=False)] = 0.99
    """discount factor of the rewards"""
    gae_lambda: Annotated[float, bounded(0, 1, integer=False)] = 0.95
    """lambda of the generalized advantage estimate (bias against variance)"""
    clip_range: Annotated[float, bounded(0, open=True, integer=False)] = 0.2
    """how far from 1 the ratio of the new policy's probabilities to the old one's is clipped"""
    ent_coef: Annotated[float, bounded(0, integer=False)] = 0.01
    """weight of the entropy bonus in the loss"""
    vf_coef: Annotated[float, bounded(0, integer=False)] = 0.5
    """weight of the value loss in the loss"""
    max_grad_norm: Annotated[float, bounded(0, open=True, integer=False)] = 0.5
    """the gradient's norm is clipped to this"""
    target_kl: Annotated[float | None, bounded(0, open=True, integer=False, default="no limit", metavar="FLOAT")] = None
    """stop an update's epochs early once the approximate KL to the policy before it passes this (SB3's target_kl)"""
    network: str = "mlp"
    """mlp (two networks of --net-arch) or ring (the AlphaZero agent's residual network, both heads on one trunk,
    of --channels, --blocks and --value-hidden)"""
    net_arch: tuple[int, ...] = (128, 128)
    """hidden layers of the policy and (separately) of the value network (--network mlp)"""
    activation: str = "tanh"
    """tanh or relu (--network mlp)"""
    features: Annotated[
        str | None,
        runs.computed_default(
            "the --init-from checkpoint's, else board for --network ring, else tactics where the game has them", "STR"
        ),
    ] = None
    """the network's input: board (the env's observation) or tactics (board + each move's captures and the reply's;
    a ring network sees them as more input channels, added to an --init-from board network with zero weights)"""
    max_plies: Annotated[int | None, bounded(1, runs.MAX_PLIES, default="the game's ply limit", metavar="INT")] = None
    """the ply limit of the games"""
    shaping: Annotated[float, bounded(0, integer=False)] = 1.0
    """weight of the capture-difference reward ((own - opponent's captures) / the game's seeds) added to +1/-1/0"""
    pool_random: Annotated[float, bounded(0, integer=False)] = 0.1
    """chance that a game is played against the random agent"""
    pool_greedy: Annotated[float, bounded(0, integer=False)] = 0.3
    """chance that a game is played against the greedy agent"""
    pool_snapshots: Annotated[float, bounded(0, integer=False)] = 0.6
    """chance that a game is played against a frozen snapshot of the learner (the others until the first)"""
    league: tuple[str, ...] = ()
    """agent specs of the league, fixed opponents of the pool (e.g. alphabeta:depth=2 alphabeta:depth=4)"""
    pool_league: Annotated[float, bounded(0, integer=False)] = 0.0
    """chance that a game is played against one of the league (drawn uniformly)"""
    snapshot_every: Annotated[int, bounded(1, runs.MAX_COUNT)] = 10
    """updates between snapshots added to the pool"""
    pool_size: Annotated[int, bounded(1, 1000)] = 20
    """snapshots kept (the oldest is dropped)"""
    recent_bias: Annotated[float, bounded(0, 1, open=True, integer=False)] = 0.85
    """a snapshot k snapshots older than the newest is drawn with weight recent_bias**k"""
    snapshot_deterministic: bool = False
    """snapshots play their most probable move instead of sampling their policy"""
    eval_every: Annotated[int, bounded(1, runs.MAX_COUNT)] = 100_000
    """learner moves between evaluations"""
    eval_games: Annotated[int, bounded(1, 100_000)] = 60
    """games per evaluation opponent (even: mirrored pairs from random openings, seats swapped)"""
    eval_opponents: tuple[str, ...] = ("random", "greedy", "alphabeta:depth=2")
    """agent specs the learner is evaluated against"""
    checkpoint_every: Annotated[int, bounded(1, runs.MAX_COUNT)] = 100_000
    """learner moves between checkpoints (one is also written at the end)"""
    keep_checkpoints: Annotated[int, bounded(1, 1000)] = 5
    """step_*.zip files kept (last.zip always holds the newest)"""
    torch_threads: TorchThreads = 1
    """torch threads of the learner"""
    teacher_games: Annotated[int, bounded(0, runs.MAX_COUNT)] = 0
    """games the teacher plays to clone before self-play (0: none): against itself, or with --init-from against the
    starting policy, which then learns the teacher's moves in the positions it reaches (DAgger)"""
    teacher: Annotated[str | None, runs.computed_default("alpha-beta at --teacher-depth", "SPEC")] = None
    """the teacher's agent spec, e.g. alphazero:pretrained,simulations=600"""
    teacher_depth: Annotated[int, bounded(1, MAX_DEPTH)] = 6
    """depth of the default teacher, alpha-beta (the game's tuned evaluation)"""
    teacher_explore: Annotated[float, bounded(0, 1, integer=False)] = 0.1
    """with --init-from: share of the starting policy's moves in the teacher's games played at random instead"""
    teacher_anchor: Annotated[float, bounded(0, integer=False)] = 1.0
    """with --init-from: weight of the KL divergence from the starting policy in the cloning loss"""
    teacher_epochs: Annotated[int, bounded(1, 1000)] = 8
    """passes of behaviour cloning over the teacher's moves"""
    teacher_learning_rate: Annotated[float, bounded(0, open=True, integer=False)] = 1e-3
    """Adam learning rate of behaviour cloning (decayed linearly to 0)"""
    teacher_games_per_chunk: Annotated[int, bounded(1, 100_000)] = 50
    """teacher games per file (a worker's unit of work)"""
    teacher_workers: Annotated[int, bounded(0, runs.MAX_WORKERS)] = 2
    """processes playing the teacher's games"""
    init_from: Annotated[str | None, runs.computed_default("random weights", "CHECKPOINT")] = None
    """a PPO checkpoint to start from instead of random weights (a run's step_*.zip or last.zip, or pretrained: the
    policy shipped for --game), or with --network ring an AlphaZero network (alphazero:pretrained, the one shipped for
    --game, or alphazero:path=FILE.pt); its game and network shape must be this run's, the optimizer starts afresh
    with this run's options"""


def from_alphazero(init_from: str | None) -> bool:
    """Whether ``--init-from`` names an AlphaZero network (``alphazero:...``) rather than a PPO checkpoint."""
    return init_from is not None and init_from.strip().lower().startswith("alphazero:")


def init_from_path(args: Args) -> Path:
    """The file of the PPO checkpoint ``--init-from`` names: ``pretrained`` is the policy shipped for the game."""
    return pretrained_path(args.game) if args.init_from == "pretrained" else Path(args.init_from)


def checkpoint_features(args: Args) -> str | None:
    """The features of the PPO checkpoint ``--init-from`` names (``pretrained``: the policy shipped for the game),
    which a run that gives no ``--features`` takes: it can only start from that network with them, as SB3's ``load``
    takes a file's network. None for no such checkpoint (an AlphaZero network, a file that is missing or not one:
    :func:`training.ppo.checkpoints.initial_checkpoint` then says what is wrong)."""
    if args.init_from is None or from_alphazero(args.init_from):
        return None
    try:
        with open_checkpoint(init_from_path(args)) as archive:
            features = read_config(archive)["args"].get("features")
    except (CheckpointError, OSError):
        return None
    return features if features in FEATURES else None


def resolved(args: Args) -> Args:
    """``args`` with the game's defaults filled in (run directory, features, ply limit), as checkpoints record them;
    ValueError for bad options."""
    check_run_options(args)
    game = get_game(args.game)
    args = dataclasses.replace(
        args,
        **runs.game_defaults(args, TRAINER_NAME),
        features=args.features
        or checkpoint_features(args)
        or ("board" if args.network == RING_KIND else default_features(game)),
        eval_opponents=tuple(args.eval_opponents),
        league=tuple(args.league),
        net_arch=tuple(args.net_arch),
    )
    check_args(args)
    return args


def check_args(args: Args) -> None:
    """Refuse bad options before anything is built (``args`` resolved by :func:`resolved`, its types and bounds
    checked): ValueError naming the option and what it allows."""
    pools = ("pool_random", "pool_greedy", "pool_league", "pool_snapshots")
    if sum(getattr(args, name) for name in pools) <= 0:
        raise ValueError("--pool-random, --pool-greedy, --pool-league and --pool-snapshots must not all be 0")
    if args.pool_league > 0 and not args.league:
        raise ValueError("--pool-league needs agents in --league (e.g. --league alphabeta:depth=2)")
    if args.vec_env not in VEC_ENVS:
        raise ValueError(f"--vec-env must be one of {', '.join(VEC_ENVS)}, got {args.vec_env!r}")
    if args.network not in NETWORKS:
        raise ValueError(f"--network must be one of {', '.join(NETWORKS)}, got {args.network!r}")
    if args.network == RING_KIND and args.teacher_games and args.init_from is None:
        raise ValueError(
            "--teacher-games from random weights clones into the MLP; a ring network starts from --init-from "
            "(alphazero:pretrained or a checkpoint), and then the teacher corrects it"
        )
    if args.teacher is not None and not args.teacher_games:
        raise ValueError("--teacher plays the teacher's games: give --teacher-games too")
    dagger_only = [
        f"--{name.replace('_', '-')}"
        for name in ("teacher_explore", "teacher_anchor")
        if getattr(args, name) != getattr(Args, name)
    ]
    if dagger_only and not (args.teacher_games and args.init_from is not None):
        raise ValueError(f"{' and '.join(dagger_only)}: for DAgger only, give --teacher-games and --init-from too")
    if from_alphazero(args.init_from) and args.network != RING_KIND:
        raise ValueError(f"--init-from {args.init_from} is an AlphaZero network: it needs --network ring")
    if args.n_envs * args.n_steps > MAX_ROLLOUT:
        raise ValueError(
            f"--n-envs x --n-steps must be at most {MAX_ROLLOUT:,} (the moves of an update, held in memory), got "
            f"{args.n_envs} x {args.n_steps}"
        )
    if args.eval_games % 2:
        raise ValueError(f"--eval-games must be even (each opening is played from both seats), got {args.eval_games}")
    try:
        input_size(args.game, args.features)
    except ValueError as error:
        raise ValueError(f"--features: {error}") from None
    if args.activation not in ACTIVATIONS:
        raise ValueError(f"--activation must be one of {', '.join(ACTIVATIONS)}, got {args.activation!r}")
    if not args.net_arch or min(args.net_arch) < 1:
        raise ValueError(f"--net-arch needs at least one positive layer width, got {args.net_arch}")
    if len(args.net_arch) > MAX_LAYERS or max(args.net_arch) > MAX_WIDTH:
        raise ValueError(f"--net-arch holds at most {MAX_LAYERS} layers of {MAX_WIDTH} units, got {args.net_arch}")
    for spec in (*args.eval_opponents, *args.league):
        agents.parse_spec(spec)
    if args.teacher is not None:  # not resumable: a saved --teacher that no longer builds cannot be replaced anyway
        check_agent("--teacher", args.teacher, args.game)


def check_agents(args: Args) -> None:
    """Build the agents of ``--eval-opponents`` and ``--league`` (``args`` resolved), as :func:`check_args` builds
    the teacher: a bad parameter (``alphabeta:depth=0``), a missing or damaged file or an agent of another game is
    refused before the run's directory is touched, not at its first evaluation. The trainer calls it as a run starts
    rather than :func:`resolved` (which checks a resumed run's saved options too): a resume may replace saved
    --eval-opponents that no longer build (a checkpoint since moved)."""
    for option, specs in (("--eval-opponents", args.eval_opponents), ("--league", args.league)):
        for spec in dict.fromkeys(specs):
            check_agent(option, spec, args.game)


def check_agent(option: str, spec: str, game: str) -> None:
    """Build the agent of ``spec``, given to ``option``: ValueError naming the option, the spec and what is wrong
    for one that cannot be built or does not play ``game``."""
    try:
        agent = agents.make(spec)
    except agents.AgentSpecError as error:
        raise ValueError(f"{option}: {error}") from None
    refusal = game_refusal(agent, spec, game)
    if refusal is not None:
        raise ValueError(f"{option}: {refusal}")
