"""The settings of an AlphaZero run (:class:`AlphaZeroConfig`, every field a command-line option of ``awale train
alphazero``), apart from the trainer so that its self-play workers (processes or Ray actors) read them without the
trainer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Annotated, Any

from agents.alphazero.search_config import SearchConfig
from agents.extras import needs_extra
from competition.pool import BACKENDS
from training import runs
from training.options import NetworkOptions, RunOptions, TorchThreads, bounded, check_run_options

#: The options a resume may change: the run's length, its workers, its reference matches and how it runs here.
RESUMABLE = (
    "generations",
    "workers",
    "reference_every",
    "references",
    "reference_games",
    "reference_simulations",
    "snapshot_every",
    "torch_threads",
    "progress",
    "backend",
    "address",
    "runtime_env",
)

#: The most games x simulations of one batched search (its trees: about 20 bytes per node, a node per move of each
#: simulation: up to 2.7 GB for a game of 64 moves).
MAX_SEARCH_NODES = 1 << 21
MAX_SAMPLE_REUSE = 1000.0


@dataclass
class AlphaZeroConfig(NetworkOptions, SearchConfig, RunOptions):
    """Hyper-parameters of an AlphaZero run (all settable from the command line): the network's shape
    (:class:`NetworkOptions`), the self-play search's settings (:class:`SearchConfig`: ``--simulations``,
    ``--search puct|gumbel``, ``--c-puct``...) and the run's (:class:`RunOptions`)."""

    resume: Annotated[bool, runs.resume_option(RESUMABLE)] = False
    generations: Annotated[int, bounded(1, runs.MAX_COUNT)] = 200
    """generations to train (self-play, training, evaluation)"""
    # network (its shape: NetworkOptions)
    init_from: Annotated[str | None, runs.computed_default("a new network", "CHECKPOINT")] = None
    """start from the network of this AlphaZero checkpoint (a run's best.pt, the shipped network's file), of the
    run's game and shape, instead of a new one"""
    # self-play (its search: SearchConfig)
    temperature_moves: Annotated[int, bounded(0, runs.MAX_PLIES)] = 16
    """plies played in proportion to visit counts (temperature 1) before playing the most visited move"""
    max_plies: Annotated[int | None, bounded(1, runs.MAX_PLIES, default="the game's ply limit", metavar="INT")] = None
    """ply limit of the self-play and gating games"""
    workers: Annotated[int, bounded(0, runs.MAX_WORKERS)] = 2
    """self-play worker processes (0: self-play in the learner's process), or Ray actors with --backend ray"""
    backend: str = "process"
    """where self-play runs: process (worker processes here) or ray (Ray actors; needs the rllib extra)"""
    address: Annotated[str | None, runs.computed_default("start Ray here", "ADDRESS")] = None
    """with --backend ray, the Ray cluster to join ("auto": the one started here)"""
    runtime_env: Annotated[str | None, runs.computed_default("none", "JSON|FILE")] = None
    """with --backend ray, Ray's runtime environment for the actors: a JSON object or a JSON/YAML file (working_dir,
    py_modules, pip; docs/distributed.md)"""
    games_per_worker: Annotated[int, bounded(1, 4096)] = 128
    """games each worker plays side by side (the network's batch size)"""
    moves_per_generation: Annotated[int, bounded(1, runs.MAX_PLIES)] = 24
    """moves each worker plays in each of its games per generation"""
    # training
    replay_size: Annotated[int, bounded(1, 5_000_000)] = 150_000
    """samples kept in the replay buffer"""
    min_replay: Annotated[int, bounded(0, 5_000_000)] = 4_000
    """samples needed before training starts"""
    batch_size: Annotated[int, bounded(1, 65_536)] = 256
    """samples per training step"""
    sample_reuse: Annotated[float, bounded(0, MAX_SAMPLE_REUSE, open=True, integer=False)] = 4.0
    """training steps per generation = new samples * sample_reuse / batch_size"""
    learning_rate: Annotated[float, bounded(0, open=True, integer=False)] = 1e-3
    """AdamW learning rate"""
    weight_decay: Annotated[float, bounded(0, integer=False)] = 1e-4
    """AdamW weight decay"""
    value_loss_weight: Annotated[float, bounded(0, integer=False)] = 1.0
    """weight of the value loss against the policy loss"""
    augment: bool = True
    """train on a random rotation of each sample, in a game whose board has rotations (Game.symmetry_step)"""
    torch_threads: TorchThreads = 1
    """torch threads of the learner (each worker uses one)"""
    # evaluation
    gate_every: Annotated[int, bounded(1, runs.MAX_COUNT)] = 4
    """generations between gating matches (candidate vs best)"""
    gate_games: Annotated[int, bounded(1, 4096)] = 64
    """games of a gating match (pairs with seats swapped)"""
    gate_simulations: Annotated[int, bounded(1, 100_000)] = 64
    """simulations per move in gating matches"""
    gate_threshold: Annotated[float, bounded(0, 1, integer=False)] = 0.55
    """score the candidate needs against the best network to replace it"""
    reference_every: Annotated[int, bounded(0, runs.MAX_COUNT)] = 20
    """generations between reference matches (0: never)"""
    references: tuple[str, ...] = ("greedy", "alphabeta:depth=4", "mcts:simulations=2000")
    """arena agent specs the best network plays"""
    reference_games: Annotated[int, bounded(1, 100_000)] = 10
    """games against each reference (even: pairs with seats swapped)"""
    reference_simulations: Annotated[int, bounded(1, 100_000)] = 100
    """simulations per move of the best network in reference matches"""
    snapshot_every: Annotated[int, bounded(0, runs.MAX_COUNT)] = 0
    """generations between copies of best.pt kept as snapshots/gen_<generation>.pt, for learning curves (0: none)"""

    def __post_init__(self) -> None:
        if not runs.parsing():  # on the command line, runs.parse checks once tyro is done
            self.check()

    def check(self) -> None:
        """ValueError naming the first bad option and what it allows; run whenever a configuration is
        built, from Python, a command line or a run's config.json."""
        check_run_options(self)
        SearchConfig.check(self, runs.option)
        for games, simulations in (("games_per_worker", "simulations"), ("gate_games", "gate_simulations")):
            if getattr(self, games) * getattr(self, simulations) > MAX_SEARCH_NODES:
                raise ValueError(
                    f"{runs.option(games)} x {runs.option(simulations)} must be at most {MAX_SEARCH_NODES:,} (the "
                    f"search trees of a batch of games), got {getattr(self, games)} x {getattr(self, simulations)}"
                )
        if self.min_replay > self.replay_size:
            raise ValueError(f"--min-replay must be at most --replay-size ({self.replay_size}), got {self.min_replay}")
        if self.backend not in BACKENDS:
            raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.backend == "ray":
            if self.workers < 1:
                raise ValueError("--backend ray plays on --workers Ray actors: --workers must be at least 1")
            with needs_extra("--backend ray"):  # a missing Ray said before the run directory is made
                import ray  # noqa: F401
        for name in ("gate_games", "reference_games"):
            if getattr(self, name) % 2:
                raise ValueError(f"{name} must be even (pairs with seats swapped), got {getattr(self, name)}")
        self.network_config()
        if self.reference_every:
            self._check_references()

    def _check_references(self) -> None:
        """Fail now, not at the first reference match (whose errors a run only reports), on a reference agent that
        cannot be built or does not play the game."""
        from agents import make  # the registry builds agents lazily: cheap for the usual references
        from agents.base import game_refusal

        for spec in self.references:
            refusal = game_refusal(make(spec), spec, self.game)
            if refusal is not None:
                raise ValueError(f"references: {refusal}")

    def search_config(self, simulations: int | None = None) -> SearchConfig:
        """The self-play search's settings (with ``simulations`` per move instead of the run's)."""
        return SearchConfig.of(self, simulations=simulations or self.simulations)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["references"] = list(self.references)
        return data
