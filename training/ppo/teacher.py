"""Behaviour cloning for PPO: a MaskablePPO policy's weights learnt from a search agent's moves.

PPO from random weights plateaus well below alpha-beta on the two-colour Awale; alpha-beta with the tuned evaluation
already plays it well and costs milliseconds a move. ``awale train ppo --teacher-games N`` first has the teacher
(``--teacher SPEC``, by default alpha-beta at ``--teacher-depth``) play N games against itself (the imitation
trainer's teacher games, :func:`training.teacher_games.play_teacher_game`: random openings, random tie-breaks),
recording at every move the PPO network's own input (:func:`agents.ppo.policy.observe`: the board and the tactical
features),
the legal moves, the teacher's move, the outcome and alpha-beta's search value. The actor is then trained to the
teacher's move (cross-entropy over the legal moves) and the critic to the outcome mixed with the search value (as the
imitation trainer does), for ``--teacher-epochs`` passes; self-play PPO goes on from there.

With ``--init-from`` the starting policy plays one seat of each game instead (a random legal move in
``--teacher-explore`` of its moves) and the teacher says at each of its positions what it would play: the policy is
trained on the positions it reaches itself (DAgger), to the teacher's moves, kept near where it started by
``--teacher-anchor`` times the KL divergence to the starting policy; the critic's loss is left out (the outcomes are
of games against the teacher; a ring network's shared trunk still moves its value).

The games go to ``<run dir>/teacher/games/chunk-*.npz`` (written atomically, one file per ``--teacher-games-per-
chunk`` games, by ``--teacher-workers`` processes), so a run stopped while they are played goes on from the chunks
already written when the same command runs again; ``<run dir>/teacher.csv`` holds one row per cloning epoch.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

import agents
from agents.checkpoint import atomic_write, load_arrays
from agents.ppo.checkpoint import policy_from_npz
from agents.ppo.policy import MASKED_LOGIT, Policy, input_size, observe, relative_legal_mask
from awale_env.errors import CheckpointError
from awale_env.games import get_game
from competition.progress import Progress
from training import teacher_games
from training.alphazero import imitation

TEACHER_DIR = "teacher"
OPTIONS_FILE = "options.json"
#: The starting policy that plays one seat of the teacher's games (with ``--init-from``), as its ``policy.npz``.
STUDENT_FILE = "student.npz"
#: The arrays of a chunk of teacher games, one row per teacher move.
ARRAYS = ("obs", "mask", "action", "outcome", "score", "scored", "game", "student")
#: Share of the teacher's search value in the critic's target (the rest: the game's outcome).
SCORE_WEIGHT = 0.5
#: Every this many-th game is held out to measure the cloned policy on.
VALIDATION_EVERY = 20


@dataclass(frozen=True)
class TeacherOptions:
    """What the teacher's games depend on (saved beside them: games of other options are not mixed in). ``teacher``
    is an agent spec (None: alpha-beta at ``depth``); ``student`` the SHA-256 of the starting policy that plays one
    seat (:data:`STUDENT_FILE`; None: the teacher plays both), ``explore`` the share of its moves played at random."""

    game: str
    features: str
    seed: int
    games: int
    depth: int
    max_plies: int | None
    games_per_chunk: int
    teacher: str | None = None
    student: str | None = None
    explore: float = 0.0

    @property
    def teacher_spec(self) -> str:
        return self.teacher or f"alphabeta:depth={self.depth}"

    def imitation_config(self, teacher_dir: Path, workers: int) -> imitation.ImitationConfig:
        """The imitation trainer's options that play these games (its openings, chunks and file names)."""
        return imitation.ImitationConfig(
            run_dir=str(teacher_dir), seed=self.seed, game=self.game, games=self.games, teacher_depth=self.depth,
            max_plies=self.max_plies, games_per_chunk=self.games_per_chunk, workers=workers, progress=False,
        )  # fmt: skip


class RecordingTeacher:
    """The teacher agent, which also records, at every move it is asked for, the PPO network's input and the legal
    moves. Alpha-beta reports its search value; another agent's rows are marked as not searched (the critic's target
    is then the outcome alone)."""

    def __init__(self, spec: str, features: str) -> None:
        self.agent = agents.make(spec)
        self.features = features
        self.inputs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []

    @property
    def last_search(self) -> dict[str, Any]:
        search = getattr(self.agent, "last_search", None) or {}
        return search if {"value", "depth"} <= search.keys() else {"value": 0, "depth": 0}

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, state: Any) -> int:
        self.inputs.append(observe(state, state.to_move, self.features))
        self.masks.append(relative_legal_mask(state))
        return self.agent.act(state)

    def take(self) -> tuple[np.ndarray, np.ndarray]:
        """The inputs and masks recorded since the last call."""
        inputs, masks = np.asarray(self.inputs, np.float32), np.asarray(self.masks, np.bool_)
        self.inputs, self.masks = [], []
        return inputs, masks


def student_player(policy: Policy, explore: float, rng: np.random.Generator) -> Any:
    """The starting policy's moves in the teacher's games: its most probable move, or in ``explore`` of its moves a
    random legal one."""

    def play(state: Any) -> int:
        if rng.random() < explore:
            return int(rng.choice(state.legal_actions()))
        return policy.act(state)

    return play


def read_student(teacher_dir: Path, options: TeacherOptions) -> Policy:
    """The starting policy saved beside the games, checked against the hash the options hold."""
    path = teacher_dir / STUDENT_FILE
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != options.student:
        raise CheckpointError(f"{str(path)!r} is not the starting policy these teacher games were played with")
    return policy_from_npz(data, repr(str(path)))


def play_chunk(options: dict[str, Any], teacher_dir: str, chunk: int) -> int:
    """Play the games of ``chunk`` and write their samples to its file (atomically); return the chunk."""
    opts = TeacherOptions(**options)
    config = opts.imitation_config(Path(teacher_dir), workers=0)
    teacher = RecordingTeacher(opts.teacher_spec, opts.features)
    student = None if opts.student is None else read_student(Path(teacher_dir), opts)
    if student is not None:
        student.set_up_play()
    games = []
    for index in teacher_games.chunk_games(config, chunk):
        rng = np.random.default_rng([opts.seed, index, 1])  # the student's random moves: its own stream per game
        play = None if student is None else student_player(student, opts.explore, rng)
        samples = teacher_games.play_teacher_game(config, index, teacher, play)
        samples["obs"], samples["mask"] = teacher.take()
        games.append(samples)
    arrays = {name: np.concatenate([g[name] for g in games]) for name in ARRAYS}
    atomic_write(teacher_games.chunk_path(Path(teacher_dir), chunk), lambda file: np.savez(file, **arrays))
    return chunk


def _play_chunk_job(job: tuple[dict[str, Any], str, int]) -> int:
    return play_chunk(*job)


def check_options(teacher_dir: Path, options: TeacherOptions) -> None:
    """Save ``options`` beside the games, or check that the games already there were played with them (but for their
    number: game i is the same whatever the number of games, so a run asking for more or fewer reuses them)."""
    path = teacher_dir / OPTIONS_FILE
    # the options games had before these existed are not written at their defaults, so those games still match
    defaults = {field.name: field.default for field in fields(TeacherOptions) if field.default is not MISSING}
    wanted = {
        key: value
        for key, value in asdict(options).items()
        if key != "games" and (key not in defaults or defaults[key] != value)
    }
    if path.exists():
        saved = json.loads(path.read_text())
        if saved != wanted:
            raise ValueError(
                f"{teacher_dir} holds teacher games played with {saved}, not {wanted}: remove it or choose another "
                "--run-dir"
            )
        return
    teacher_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda file: file.write(json.dumps(wanted).encode()))


def save_student(teacher_dir: Path, student: Policy) -> str:
    """Write the starting policy beside the teacher's games (unless it is there already); return its SHA-256."""
    data = student.to_npz()
    path = teacher_dir / STUDENT_FILE
    if not path.exists() or path.read_bytes() != data:
        teacher_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda file: file.write(data))
    return hashlib.sha256(data).hexdigest()


def play_games(options: TeacherOptions, teacher_dir: Path, workers: int, progress: Progress) -> None:
    """Play the chunks of teacher games not yet written, in ``workers`` processes (none: here)."""
    check_options(teacher_dir, options)
    config = options.imitation_config(teacher_dir, workers)
    games_dir = teacher_games.chunk_path(teacher_dir, 0).parent
    games_dir.mkdir(parents=True, exist_ok=True)
    for unfinished in games_dir.glob("*.tmp"):  # what a killed run was writing
        unfinished.unlink()
    jobs = [(asdict(options), str(teacher_dir), chunk) for chunk in teacher_games.missing_chunks(config)]
    if workers == 0 or not jobs:
        for job in jobs:
            progress.note(f"teacher games: chunk {_play_chunk_job(job)} of {config.chunks} written")
        return
    with teacher_games.worker_pool(min(workers, len(jobs))) as pool:
        for chunk in pool.imap_unordered(_play_chunk_job, jobs):
            progress.note(f"teacher games: chunk {chunk} of {config.chunks} written")


def read_games(options: TeacherOptions, teacher_dir: Path) -> dict[str, np.ndarray]:
    """The samples of every chunk, checked; CheckpointError naming a damaged file."""
    config = options.imitation_config(teacher_dir, 0)
    size, actions = input_size(options.game, options.features), get_game(options.game).num_actions
    parts = []
    for chunk in range(config.chunks):
        path = teacher_games.chunk_path(teacher_dir, chunk)
        arrays = load_arrays(path.read_bytes(), repr(str(path)))
        n = len(arrays.get("action", ()))
        arrays.setdefault("student", np.zeros(n, np.bool_))  # chunks written before students were
        shapes = {"obs": (n, size), "mask": (n, actions), **{name: (n,) for name in ARRAYS[2:]}}
        if any(name not in arrays or arrays[name].shape != shape for name, shape in shapes.items()):
            raise CheckpointError(f"{str(path)!r} does not hold teacher samples for this policy ({', '.join(shapes)})")
        if n and not (arrays["action"].min() >= 0 and arrays["action"].max() < actions):
            raise CheckpointError(f"{str(path)!r} holds moves outside 0-{actions - 1}")
        parts.append(arrays)
    return {name: np.concatenate([p[name] for p in parts]) for name in ARRAYS}


# --- cloning -------------------------------------------------------------------------------------------------------


def forward(policy: Any, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Masked action logits and values of an SB3 ``MaskableActorCriticPolicy`` (no shared layers)."""
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    logits = torch.where(mask, policy.action_net(latent_pi), torch.tensor(MASKED_LOGIT))
    return logits, policy.value_net(latent_vf).squeeze(-1)


def batch_losses(policy: Any, arrays: tuple[np.ndarray, ...], anchored: bool) -> tuple[torch.Tensor, ...]:
    """Cross-entropy to the teacher's moves, a second loss, the share of moves matched. The second loss is the
    critic's squared error to the value targets (the fourth array, ``second_target``), or with ``anchored`` the KL
    divergence of the actor from the starting policy, whose log-probabilities the fourth array then holds."""
    obs, mask, action, second_target = (torch.from_numpy(a) for a in arrays)
    logits, predicted = forward(policy, obs, mask)
    target = action.long()
    agreement = (logits.argmax(1) == target).float().mean()
    if anchored:
        log_p = torch.log_softmax(logits, 1)
        second = (log_p.exp() * (log_p - second_target)).masked_fill(~mask, 0).sum(1).mean()
    else:
        second = F.mse_loss(predicted, second_target)
    return F.cross_entropy(logits, target), second, agreement


def log_probabilities(policy: Any, obs: np.ndarray, mask: np.ndarray, batch_size: int = 4096) -> np.ndarray:
    """The policy's masked log-probabilities of every action, in batches."""
    policy.eval()
    with torch.no_grad():
        parts = [
            torch.log_softmax(forward(policy, torch.from_numpy(obs[i : i + batch_size]),
                                      torch.from_numpy(mask[i : i + batch_size]))[0], 1).numpy()
            for i in range(0, len(obs), batch_size)
        ]  # fmt: skip
    return np.concatenate(parts) if parts else np.zeros(mask.shape, np.float32)


def clone(
    policy: Any, samples: dict[str, np.ndarray], epochs: int, learning_rate: float, batch_size: int, seed: int,
    anchor: float | None = None,
) -> list[dict[str, float]]:  # fmt: skip
    """Train ``policy`` (in place) on the teacher's samples; one row of losses and agreements per epoch (held-out
    figures on every :data:`VALIDATION_EVERY`-th game). With ``anchor`` (DAgger) only the student's positions are
    learnt, and the critic's loss is replaced by ``anchor`` times the actor's KL divergence from where it started."""
    anchored = anchor is not None
    if anchored:
        samples = {name: array[samples["student"]] for name, array in samples.items()}
        second_target = log_probabilities(policy, samples["obs"], samples["mask"])
    else:
        scale = teacher_games.fit_score_scale(samples["score"], samples["outcome"])
        second_target = teacher_games.value_targets(samples, scale, SCORE_WEIGHT)
    weight = anchor if anchored else 1.0
    second_name = "kl" if anchored else "value_loss"
    held = samples["game"] % VALIDATION_EVERY == 0
    columns = (samples["obs"], samples["mask"], samples["action"], second_target)
    train_set = tuple(a[~held] for a in columns)
    held_set = tuple(a[held] for a in columns)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    steps = max(len(train_set[0]) // batch_size, 1)
    rows = []
    for epoch in range(epochs):
        policy.train()
        order = rng.permutation(len(train_set[0]))
        totals = np.zeros(3)
        for step in range(steps):
            for group in optimizer.param_groups:  # linear decay to 0 over the epochs
                group["lr"] = learning_rate * (1 - (epoch + step / steps) / epochs)
            rows_ = order[step * batch_size : (step + 1) * batch_size]
            policy_loss, second_loss, agreement = batch_losses(policy, tuple(a[rows_] for a in train_set), anchored)
            optimizer.zero_grad(set_to_none=True)
            (policy_loss + weight * second_loss).backward()
            optimizer.step()
            totals += [policy_loss.item(), second_loss.item(), agreement.item()]
        policy.eval()
        with torch.no_grad():
            held_losses = batch_losses(policy, held_set, anchored) if held.any() else [float("nan")] * 3
        held_out = [float(x) for x in held_losses]
        names = ("policy_loss", second_name, "agreement")
        row = dict(zip(names, (float(x) for x in totals / steps)))
        row |= dict(zip((f"val_{name}" for name in names), held_out))
        rows.append({"epoch": epoch + 1, **{k: round(v, 5) for k, v in row.items()}})
    return rows
