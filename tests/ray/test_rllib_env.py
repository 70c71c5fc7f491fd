"""RLlib's env adapter over the AEC env and the toolkit's action-masking module, with Ray installed but not running:
every game of the registry plays whole games through the adapter, and no policy of the module can pick an illegal
action."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import ray
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.utils.torch_utils import FLOAT_MIN

from agents.rllib import ActionMaskingModule, RLlibAgent, build_module, load_policy, save_policy
from awale_env import IllegalMoveError
from awale_env.errors import CheckpointError
from awale_env.rllib_env import ACTION_MASK, RLlibGameEnv, absolute_action, policy_input
from competition.arena import play_game


def test_adapter_plays_a_full_game_without_ray(registry_game):
    env = RLlibGameEnv({"game": registry_game.name})
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=3)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    moves = 0
    while True:
        ((agent, seen),) = observations.items()  # the player to move, alone
        state = env.aec.game
        assert agent == env.possible_agents[state.to_move]
        assert env.observation_spaces[agent].contains(seen)
        legal = np.flatnonzero(seen[ACTION_MASK])
        assert sorted(absolute_action(registry_game, state.to_move, r) for r in legal) == sorted(state.legal_actions())
        observations, rewards, terminateds, truncateds, infos = env.step({agent: int(rng.choice(legal))})
        moves += 1
        assert sum(rewards.values()) == 0
        for name, reward in rewards.items():
            returns[name] += reward
        assert not truncateds["__all__"]
        if terminateds["__all__"]:
            break
    final = env.aec.game
    assert final.is_terminal and moves > 1
    assert set(observations) == set(env.possible_agents)
    assert all(terminateds[agent] for agent in env.possible_agents)
    assert all(not observation[ACTION_MASK].any() for observation in observations.values())
    assert returns["player_0"] == (0.0 if final.winner is None else (1.0 if final.winner == 0 else -1.0))
    assert infos["player_1"]["winner"] == final.winner
    assert not ray.is_initialized()


def test_an_illegal_action_raises(registry_game):
    env = RLlibGameEnv({"game": registry_game.name})
    rng = np.random.default_rng(1)
    observations, _ = env.reset(seed=1)
    while True:  # to the first position with an illegal action
        ((agent, seen),) = observations.items()
        illegal = np.flatnonzero(seen[ACTION_MASK] == 0)
        if len(illegal):
            break
        observations, _, terminateds, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(seen[ACTION_MASK])))})
        assert not terminateds["__all__"], "a game ended with every action legal until its end"
    before = env.aec.game
    with pytest.raises(IllegalMoveError):
        env.step({agent: int(illegal[0])})
    assert env.aec.game is before


def module_of(game, seed: int = 0) -> ActionMaskingModule:
    torch.manual_seed(seed)
    return build_module({"game": game.name, "hidden": [16]})


def positions(game, count: int, rng: np.random.Generator) -> list:
    """Positions of random games, from their start to their end."""
    found, state = [], game.initial(seed=0)
    while len(found) < count:
        if state.is_terminal:
            state = game.initial(seed=len(found))
        found.append(state)
        if not state.is_terminal:
            state = state.play(int(rng.choice(state.legal_actions())))
    return found


def test_module_gives_illegal_actions_no_probability(registry_game):
    rng = np.random.default_rng(1)
    module = module_of(registry_game)
    seen = [policy_input(state) for state in positions(registry_game, 64, rng)]
    batch = {Columns.OBS: {key: torch.from_numpy(np.stack([s[key] for s in seen])) for key in seen[0]}}
    mask = batch[Columns.OBS][ACTION_MASK] > 0
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        assert torch.all(logits[~mask] == FLOAT_MIN)
        assert torch.all(logits[mask] > FLOAT_MIN)
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    playable = mask.any(dim=1)
    draws = TorchCategorical.from_logits(logits[playable]).sample(sample_shape=(500,))
    assert torch.all(torch.gather(mask[playable].expand(500, -1, -1), 2, draws[..., None]))
    assert module.compute_values(batch).shape == (len(seen),)


def test_agent_of_a_module_plays_only_legal_moves(registry_game):
    """Sampled play from an untrained module: play_game raises on any illegal move."""
    module = module_of(registry_game, seed=2)
    players = (RLlibAgent.from_module(module, deterministic=False, seed=0), RLlibAgent.from_module(module))
    final = play_game(players, registry_game.initial(seed=0))
    assert final.is_terminal


def test_policy_file_round_trip_reads_tensors_only(registry_game, tmp_path):
    module = module_of(registry_game, seed=3)
    loaded = load_policy(save_policy(module, tmp_path))
    for name, tensor in module.state_dict().items():
        assert torch.equal(loaded.state_dict()[name], tensor)
    assert loaded.model_config["game"] == registry_game.name


def test_policy_file_carrying_python_objects_is_refused(tmp_path):
    """A pickle that would run code when loaded (here: create a file) is refused before it runs."""
    witness = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(witness), "w"))

    torch.save({"format": "awale_env-rllib-policy-1", "model_config": Payload()}, tmp_path / "policy.pt")
    with pytest.raises(CheckpointError, match="refused"):
        load_policy(tmp_path)
    assert not witness.exists()
    with pytest.raises(CheckpointError, match="not found"):
        load_policy(tmp_path / "elsewhere")
