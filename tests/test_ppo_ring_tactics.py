"""``awale train ppo --network ring --features tactics``: the ring network sees each move's tactical features as more
input channels at the move's position; a board network (a ring checkpoint, an AlphaZero network) gains them with
zero weights, so it plays as before until PPO trains them; its file, its play and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from random_positions import random_states  # noqa: E402
from ring_runs import ring_args as ring_run_args  # noqa: E402
from ring_runs import run_and_resume  # noqa: E402

import agents  # noqa: E402
from agents.alphazero.agent import pretrained_path as alphazero_path  # noqa: E402
from agents.alphazero.folded import FoldedNet  # noqa: E402
from agents.alphazero.network import (  # noqa: E402
    NetworkConfig,
    build_network,
    load_network,
    network_from_checkpoint,
    read_checkpoint,
    save_checkpoint,
)
from agents.ppo import PPOAgent  # noqa: E402
from agents.ppo.checkpoint import policy_from_npz, read_training_checkpoint  # noqa: E402
from agents.ppo.policy import has_tactics, observe  # noqa: E402
from agents.ppo.ring import RingPolicyNet, with_tactics  # noqa: E402
from awale_env.errors import CheckpointError  # noqa: E402
from awale_env.games import DEFAULT_GAME, GAMES, get_game  # noqa: E402
from training.ppo.config import resolved  # noqa: E402
from training.ppo.trainer import Args, train  # noqa: E402

TACTICS_GAMES = [name for name in GAMES if has_tactics(name)]


def ring_args(run_dir, **changes) -> Args:
    return ring_run_args(run_dir, **{"features": "tactics", **changes})


def observations(game: str, count: int, seed: int) -> np.ndarray:
    """Tactics observations of random positions of ``game``, from the mover's side."""
    return np.stack([observe(s, s.to_move, "tactics") for s in random_states(game, count, seed=seed)])


@pytest.mark.parametrize("game", TACTICS_GAMES)
def test_each_moves_features_are_two_channels_at_its_position(game):
    """Relative action a: its capture at position a // P in channel a % P of the tactical block, the reply's in
    channel P + a % P; nothing else there."""
    rules = get_game(game)
    net = build_network(NetworkConfig(channels=4, blocks=1, game=game, tactics=True))
    obs = observations(game, 6, seed=1)
    planes = net.planes(torch.from_numpy(obs)).numpy()
    per, actions, size = rules.actions_per_position, rules.num_actions, rules.obs_size
    block = planes[:, -2 * per :, :]
    expected = np.zeros_like(block)
    for a in range(actions):
        expected[:, a % per, a // per] = obs[:, size + a]
        expected[:, per + a % per, a // per] = obs[:, size + actions + a]
    np.testing.assert_array_equal(block, expected)
    assert obs[:, size:].any()  # the positions do capture something somewhere
    board = build_network(NetworkConfig(channels=4, blocks=1, game=game))
    np.testing.assert_array_equal(planes[:, : -2 * per], board.planes(torch.from_numpy(obs[:, :size])).numpy())


@pytest.mark.parametrize("game", TACTICS_GAMES)
def test_the_folded_forward_pass_is_the_networks(game):
    torch.manual_seed(0)
    net = build_network(NetworkConfig(channels=8, blocks=2, game=game, tactics=True)).eval()
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_(0, 0.3)
    obs = observations(game, 9, seed=2)
    logits, values = FoldedNet(net)(obs)
    with torch.no_grad():
        expected_logits, expected_values = net(torch.from_numpy(obs))
    np.testing.assert_allclose(logits, expected_logits.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, expected_values.numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=r"expected observations of shape \(B, "):
        FoldedNet(net)(obs[:, : get_game(game).obs_size])  # a board observation: refused, never read past its end


def test_a_board_network_gains_the_features_with_zero_weights_and_plays_as_before():
    source = load_network(alphazero_path(DEFAULT_GAME))
    wider = with_tactics(source)
    assert wider.config.tactics and wider.stem.weight.shape[1] == source.stem.weight.shape[1] + 4
    obs = observations(DEFAULT_GAME, 12, seed=3)
    with torch.no_grad():
        before = source(torch.from_numpy(obs[:, : get_game(DEFAULT_GAME).obs_size]))
        after = wider(torch.from_numpy(obs))
    for old, new in zip(before, after):
        torch.testing.assert_close(new, old)
    with pytest.raises(ValueError, match="already sees"):
        with_tactics(wider)


def test_an_alphazero_checkpoint_stays_as_it_was_and_one_claiming_tactics_is_refused(tmp_path):
    assert "tactics" not in NetworkConfig().to_dict()
    assert NetworkConfig(tactics=True).to_dict()["tactics"] is True
    with pytest.raises(ValueError, match="tactics must be true or false"):
        NetworkConfig(tactics=1)
    path = tmp_path / "net.pt"
    save_checkpoint(path, build_network(NetworkConfig(channels=4, blocks=1)))
    payload = read_checkpoint(path)
    assert network_from_checkpoint(payload).config == NetworkConfig(channels=4, blocks=1)
    payload["network"]["tactics"] = True
    with pytest.raises(CheckpointError, match="'tactics' is not a field of an AlphaZero network"):
        network_from_checkpoint(payload)


@pytest.fixture(scope="module")
def board_run(tmp_path_factory):
    """A tiny ring run on the board alone, started from the AlphaZero network: a board policy to widen."""
    run_dir = tmp_path_factory.mktemp("board") / "run"
    train(ring_args(run_dir, features="board", init_from="alphazero:pretrained", seed=4))
    return run_dir


@pytest.fixture(scope="module")
def from_board(board_run, tmp_path_factory):
    """A tiny tactics run started from the board policy of :func:`board_run`, resumed once."""
    source = board_run / "checkpoints" / "last.zip"
    return run_and_resume(tmp_path_factory.mktemp("tactics") / "run", features="tactics", init_from=str(source), seed=5)


def test_move_0_plays_the_board_policy_then_ppo_trains_the_features(board_run, from_board):
    board = PPOAgent.load(board_run / "checkpoints" / "last.zip")
    first = PPOAgent.load(from_board / "checkpoints" / "step_000000000.zip")
    last = PPOAgent.load(from_board / "checkpoints" / "last.zip")
    assert first.net.features == last.net.features == "tactics" and board.net.features == "board"
    states = random_states(DEFAULT_GAME, 16, seed=4)
    assert [first.act(s) for s in states] == [board.act(s) for s in states]
    size = get_game(DEFAULT_GAME).obs_size
    tactic_weights = last.net.arrays["state.stem.weight"][:, -4:]
    assert (
        not first.net.arrays["state.stem.weight"][:, -4:].any() and np.abs(tactic_weights).sum() > 0
    )  # PPO moved them
    obs = observations(DEFAULT_GAME, 8, seed=5)
    np.testing.assert_allclose(first.net.logits(obs), board.net.logits(obs[:, :size]), atol=1e-4)
    checkpoint = read_training_checkpoint(from_board / "checkpoints" / "last.zip")
    assert checkpoint.num_timesteps == 512 and checkpoint.args["features"] == "tactics"
    assert checkpoint.pool and all(net.features == "tactics" for _, net in checkpoint.pool)


def test_a_run_from_the_shipped_policy_starts_from_it(tmp_path):
    """The shipped policy sees the tactics: a tactics run starts from it as it is, a board run is refused."""
    shipped = agents.make("ppo:pretrained")
    assert shipped.net.features == "tactics"
    final = train(ring_args(tmp_path / "run", init_from="pretrained", seed=8, total_timesteps=64, n_steps=32,
                            eval_every=64, checkpoint_every=64))  # fmt: skip
    first = PPOAgent.load(final.parent / "step_000000000.zip")
    obs = observations(DEFAULT_GAME, 8, seed=9)
    np.testing.assert_allclose(first.net.logits(obs), shipped.net.logits(obs), atol=1e-5)
    with pytest.raises(ValueError, match=r"--features tactics \(this run: board\)"):
        train(ring_args(tmp_path / "board", features="board", init_from="pretrained"))
    assert not (tmp_path / "board").exists()


def test_a_tactics_policy_plays_whole_games_from_its_file(from_board):
    agent = agents.make(f"ppo:path={from_board / 'checkpoints' / 'last.zip'}")
    state, other = get_game(DEFAULT_GAME).initial(), agents.make("greedy", seed=1)
    while not state.is_terminal:
        player = agent if state.to_move == 0 else other
        move = player.act(state)
        assert move in state.legal_actions()
        state = state.play(move)
    policy = RingPolicyNet(with_tactics(load_network(alphazero_path(DEFAULT_GAME))))
    again = policy_from_npz(policy.to_npz(), "policy.npz")
    assert again.features == "tactics" and again.config == policy.config


def test_a_run_from_alphazero_starts_from_its_prior(tmp_path):
    final = train(ring_args(tmp_path / "run", init_from="alphazero:pretrained", seed=6, total_timesteps=64,
                            n_steps=32, eval_every=64, checkpoint_every=64))  # fmt: skip
    first = PPOAgent.load(final.parent / "step_000000000.zip")
    source = load_network(alphazero_path(DEFAULT_GAME))
    obs = observations(DEFAULT_GAME, 8, seed=7)
    with torch.no_grad():
        prior = source(torch.from_numpy(obs[:, : get_game(DEFAULT_GAME).obs_size]))[0].numpy()
    np.testing.assert_allclose(first.net.logits(obs), prior, atol=1e-4)


def test_a_run_that_names_no_features_takes_those_of_its_init_from_checkpoint(tmp_path):
    """``--init-from pretrained --network ring`` fine-tunes the shipped policy as it is (it sees the tactics); an
    AlphaZero network or no --init-from leaves the network's default."""
    assert resolved(ring_run_args(tmp_path / "a", init_from="pretrained")).features == "tactics"
    assert resolved(ring_run_args(tmp_path / "b")).features == "board"
    assert resolved(ring_run_args(tmp_path / "c", init_from="alphazero:pretrained")).features == "board"
    assert resolved(ring_run_args(tmp_path / "d", init_from="pretrained", features="board")).features == "board"
    assert resolved(ring_run_args(tmp_path / "e", init_from=str(tmp_path / "missing.zip"))).features == "board"


def test_a_tactics_network_does_not_start_a_board_run(from_board, tmp_path):
    """Features are added, never taken away: a board run from a tactics checkpoint is refused, naming them."""
    with pytest.raises(ValueError, match=r"--features tactics \(this run: board\)"):
        train(ring_args(tmp_path / "run", features="board", init_from=str(from_board / "checkpoints" / "last.zip")))
    assert not (tmp_path / "run").exists()
