"""The environments of every registered game, beyond the contract every game keeps (tests/test_contract.py runs
``awale_env.testing.check_game``: PettingZoo's and Gymnasium's checkers, masks, observations, rewards, illegal moves
and the vector env against the State API): the games' own facts and options, the factories and ids, pickling,
Stable-Baselines3's checker, the Gymnasium env's opponents, and the vector env's opponents and same-step autoreset."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import gymnasium
import numpy as np
import pettingzoo
import pytest
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import agents
import awale_env
from awale_env import IllegalMoveError
from awale_env.batched import move_reward
from awale_env.games import DEFAULT_GAME, GAMES, game_of, get_game
from awale_env.games.hawalis import State as HawalisState
from awale_env.games.oware import State as OwareState
from awale_env.gym_env import AwaleEnv
from awale_env.vector import AwaleVectorEnv

# --- the games ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "sizes", "state_type"),
    [
        ("awale16", (32, 35, 400), awale_env.State),
        ("oware", (6, 15, 1000), OwareState),
        ("hawalis", (14, 29, 1000), HawalisState),
    ],  # fmt: skip
)
def test_the_first_games_and_their_sizes(name, sizes, state_type):
    game = get_game(name)
    assert DEFAULT_GAME == "awale16" and next(iter(GAMES)) == DEFAULT_GAME
    assert get_game(game) is game and game.name == name and game.state_type is state_type
    assert (game.num_actions, game.obs_size, game.default_max_plies) == sizes


def test_the_registry_loads_a_game_s_package_when_the_game_is_first_named():
    """Importing the registry loads no game (nor numba), reading DEFAULT_GAME the default game's package alone,
    naming a game loads its package, listing the games loads them all (the default first, then the packages' order);
    a package of machinery is no game."""
    script = (
        "import json, sys\n"
        "import awale_env\n"
        "from awale_env.games import GAMES, PACKAGES, get_game\n"
        "loaded = lambda: [p for p in PACKAGES if f'awale_env.games.{p}' in sys.modules]\n"
        "steps = [loaded() + ['numba'] * ('numba' in sys.modules)]\n"
        "from awale_env.games import DEFAULT_GAME\n"
        "steps += [loaded()]\n"
        "get_game('oware').initial()\n"
        "steps += [loaded(), ['editions' in GAMES, 'nothing' in GAMES, 3 in GAMES], list(GAMES), loaded()]\n"
        "print(json.dumps(steps))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    imported, first, named, absent, listed, everything = json.loads(done.stdout)
    assert (
        imported == []
        and first == [DEFAULT_GAME]
        and named == [DEFAULT_GAME, "oware"]
        and absent == [False, False, False]
    )
    assert listed == list(GAMES) and listed[0] == DEFAULT_GAME and sorted(listed[1:]) == listed[1:]
    assert everything == sorted(everything) and {"editions", *listed} == set(everything)


def test_moves_are_written_by_the_game():
    assert get_game("awale16").format_move(27) == "14B" and get_game("awale16").parse_move("14B") == 27
    assert get_game("oware").format_move(5) == "5" and get_game("hawalis").parse_move("13") == 13
    with pytest.raises(IllegalMoveError, match="0-5"):
        get_game("oware").format_move(6)
    with pytest.raises(IllegalMoveError, match="0-13"):
        get_game("hawalis").parse_move("14")


def test_initial_options_pass_through_and_seed_the_first_player():
    assert get_game("oware").initial(preset="openspiel").rules.name == "openspiel"
    assert get_game("hawalis").initial(endless_move="illegal").rules.endless_move == "illegal"
    firsts = {get_game("oware").initial(seed=s).to_move for s in range(20)}
    assert firsts == {0, 1}
    assert all(get_game("oware").initial(seed=s) == get_game("oware").initial(seed=s) for s in range(20))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: get_game("chess"), "unknown game 'chess'; the games are 'awale16', "),
        (lambda: get_game("hawalis").initial(preset="texts"), "options are max_plies, seed, first_player"),
        (lambda: get_game("awale16").initial(endless_move="loses"), "its options are max_plies, seed$"),
        (lambda: get_game("oware").initial(grand_slam="sometimes"), "grand_slam must be one of"),
        (lambda: game_of("a state"), "'str' is not the State of a"),
    ],
)
def test_bad_games_and_options_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- PettingZoo ------------------------------------------------------------------------------------------------------


def test_ids_and_factories(registry_game):
    game = registry_game
    factories = [awale_env.env] if game.name == DEFAULT_GAME else [getattr(awale_env, f"{game.name}_env")]
    envs = [pettingzoo.make("aec", f"awale_env/{game.title.lower()}-v0", max_plies=50)]
    envs += [factory(max_plies=50) for factory in factories]
    for env in envs:
        raw = env.unwrapped
        assert raw.game_spec is game and raw.max_plies == 50 and raw.metadata["name"] == f"{game.title.lower()}_v0"
        env.reset(seed=0)
        assert type(raw.game) is game.state_type and raw.game.max_plies == 50
        assert env.action_space("player_0").n == game.num_actions
        assert env.observation_space("player_1")["observation"].shape == (game.obs_size,)
    assert awale_env.env(game=game.name).unwrapped.max_plies == game.default_max_plies
    assert awale_env.env(game=game.name, max_plies=None).unwrapped.game.max_plies is None
    assert awale_env.raw_env.metadata["name"] == "awale_v0"  # the class keeps the default game's


def test_oware_random_first_player_follows_the_reset_seed():
    env = awale_env.oware_env()
    firsts = []
    for seed in range(12):
        env.reset(seed=seed)
        first = env.agent_selection
        env.reset(seed=seed)
        assert env.agent_selection == first == f"player_{env.unwrapped.game.to_move}"
        firsts.append(first)
    assert set(firsts) == {"player_0", "player_1"}
    env.reset(seed=7)
    after_seed = [(env.reset(), env.agent_selection)[1] for _ in range(8)]
    env.reset(seed=7)
    assert [(env.reset(), env.agent_selection)[1] for _ in range(8)] == after_seed  # unseeded resets follow the seed
    assert awale_env.oware_env(first_player=1).unwrapped.game.to_move == 1


def test_options_are_checked_and_pickled():
    with pytest.raises(ValueError, match="unknown game 'go'"):
        awale_env.env(game="go")
    with pytest.raises(ValueError, match="'preset' for the game 'hawalis'; its rule options are first_player"):
        awale_env.hawalis_env(preset="texts")
    with pytest.raises(ValueError, match="reset"):
        awale_env.oware_env(seed=1)
    with pytest.raises(ValueError, match="endless_move must be"):
        awale_env.hawalis_env(endless_move="sometimes")
    with pytest.raises(ValueError, match="max_plies"):
        awale_env.oware_env(max_plies=0)
    env = pickle.loads(pickle.dumps(awale_env.oware_env(preset="openspiel", reward="score_diff", max_plies=90)))
    env.reset(seed=1)
    raw = env.unwrapped
    assert raw.game.rules.name == "openspiel" and raw.reward == "score_diff" and raw.game.max_plies == 90


# --- Gymnasium ------------------------------------------------------------------------------------------------------


def test_sb3_env_checker_passes(game_config):
    game, options = game_config
    sb3_check_env(AwaleEnv(game=game.name, **options, reward="score_diff", max_plies=80), warn=True)
    env = gymnasium.make(f"awale_env/{game.title}-v0", **options, opponent="greedy", learner_seat="random")
    assert env.unwrapped.game_spec is game


@pytest.mark.parametrize("opponent", ["random", "greedy", "object", "callable"])
def test_gym_episodes_against_every_kind_of_opponent(registry_game, opponent):
    opponents = {"object": agents.make("random"), "callable": lambda state: state.legal_actions()[-1]}
    env = AwaleEnv(game=registry_game.name, opponent=opponents.get(opponent, opponent), learner_seat="random",
                   max_plies=150)  # fmt: skip
    rng = np.random.default_rng(1)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        total = 0.0
        while True:
            state, seat = env.game, env.learner
            assert state.to_move == seat and not state.is_terminal and info["learner_seat"] == seat
            np.testing.assert_array_equal(obs, state.observation_tensor(seat))
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += reward
            if terminated:
                break
        final = env.game
        assert final.is_terminal and total == final.returns()[seat]
        assert info["winner"] == final.winner and info["end_reason"] == final.end_reason
        assert info["stores"] == final.stores and not env.action_masks().any()


def test_gym_illegal_action_ends_the_episode(registry_game):
    env = AwaleEnv(game=registry_game.name, opponent=lambda state: state.legal_actions()[0])
    env.reset(seed=0)
    while env.action_masks().all():
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["end_reason"] == "illegal_action" and info["illegal_action"] == illegal
    assert info["winner"] == 1 - env.learner and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=f"integer 0-{env.action_space.n - 1}"):
        env.step(env.action_space.n)


def test_gym_seeds_make_oware_episodes_reproducible():
    def episode(seed):
        env = AwaleEnv(game="oware", opponent="random", learner_seat="random")
        obs, info = env.reset(seed=seed)
        trace = [(env.game.ply, info["learner_seat"], obs.tobytes())]
        for _ in range(6):
            obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(obs.tobytes())
        return trace

    assert episode(11) == episode(11)
    # the random first player: with the learner at seat 0, the opponent sometimes moves first
    plies = set()
    env = AwaleEnv(game="oware")
    for seed in range(10):
        env.reset(seed=seed)
        plies.add(env.game.ply)
    assert plies == {0, 1}


def test_gym_bad_options_are_named():
    with pytest.raises(ValueError, match="unknown game"):
        AwaleEnv(game="senet")
    with pytest.raises(ValueError, match="unknown option\\(s\\) 'endless_move' for the game 'oware'"):
        gymnasium.make("awale_env/Oware-v0", endless_move="loses")
    with pytest.raises(ValueError, match="grand_slam must be one of"):
        AwaleEnv(game="oware", grand_slam="always")
    with pytest.raises(ValueError, match="reset"):
        AwaleEnv(game="hawalis", seed=3)
    assert AwaleEnv(game="hawalis").max_plies == 1000 and AwaleEnv(game="hawalis", max_plies=None).max_plies is None


# --- the batched vector env -----------------------------------------------------------------------------------------


def same_position(a, b) -> bool:
    """Stores, player to move, ply and both views (not the history a State may keep, such as Oware's repetitions)."""
    views = all(np.array_equal(a.observation_tensor(p), b.observation_tensor(p)) for p in (0, 1))
    return views and (a.stores, a.to_move, a.ply) == (b.stores, b.to_move, b.ply)


def pick_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game (0 where none is legal)."""
    return np.where(masks.any(1), (rng.random(masks.shape) * masks).argmax(1), 0)


def replies(state, learner: int, mode: int, game):
    """Every (position, reward of the learner) the opponent's legal moves can lead to from ``state`` until the learner
    is to move or the game is over: none, one, or several in a row (a Kalah move can give another turn)."""
    if state.is_terminal or state.to_move == learner:
        yield state, 0.0
        return
    for reply in state.legal_actions():
        child = state.play(reply)
        for final, reward in replies(child, learner, mode, game):
            yield final, reward - move_reward(mode, game, state, child)


def test_vector_random_opponent_replies_with_legal_moves(game_config):
    game, options = game_config
    n = 8
    vec = AwaleVectorEnv(n, opponent="random", learner_seat="random", max_plies=60, game=game.name, **options)
    obs, info = vec.reset(seed=1)
    rng = np.random.default_rng(3)
    seats = set()
    restarting = np.zeros(n, dtype=bool)
    for _ in range(80):
        states = [vec.state(i) for i in range(n)]
        seats.update(int(vec.learner[i]) for i in range(n) if not restarting[i])
        actions = pick_actions(info["action_mask"], rng)
        obs, rewards, terminated, _, info = vec.step(actions)
        for i, s in enumerate(states):
            if restarting[i]:  # next-step autoreset: this step only restarted the game
                assert rewards[i] == 0 and not terminated[i]
                restarting[i] = False
                continue
            after = s.play(int(actions[i]))
            mode = vec._reward_mode
            own = move_reward(mode, game, s, after)
            outcomes = [(final, own + reward) for final, reward in replies(after, int(vec.learner[i]), mode, game)]
            matches = [
                (final, reward)
                for final, reward in outcomes
                if final.is_terminal == terminated[i] and (final.is_terminal or final.to_move == vec.learner[i])
                and (same_position(final, vec.state(i)) or final.is_terminal)
            ]  # fmt: skip
            assert matches, f"game {i}: no legal reply leads to the env's position"
            assert rewards[i] in [pytest.approx(reward) for _, reward in matches]
            if terminated[i]:
                assert vec.outcomes[info["outcome"][i]] in {final.end_reason for final, _ in matches}
                restarting[i] = True
    assert seats == {0, 1}


def test_vector_same_step_autoreset_and_agent_opponents(registry_game):
    vec = AwaleVectorEnv(6, opponent="greedy", learner_seat="random", max_plies=30, autoreset_mode="SameStep",
                         game=registry_game.name)  # fmt: skip
    obs, info = vec.reset(seed=5)
    rng = np.random.default_rng(5)
    finished = 0
    for _ in range(60):
        for i in range(6):
            s = vec.state(i)
            assert s.to_move == vec.learner[i] and not s.is_terminal
            np.testing.assert_array_equal(info["action_mask"][i], s.legal_mask())
        obs, rewards, terminated, _, info = vec.step(pick_actions(info["action_mask"], rng))
        for i in np.flatnonzero(terminated):
            restarted = vec.state(i)  # the learner has not moved since: its store is empty (the opponent's moves
            assert restarted.stores[vec.learner[i]] == 0 and info["_final_obs"][i]  # may be several); last view kept
            assert vec.outcomes[info["outcome"][i]] is not None and vec.observation_space.contains(info["final_obs"])
            finished += 1
    assert finished > 0


def test_vector_options():
    assert AwaleVectorEnv(2, game="oware", preset="openspiel").games.initial_state.rules.name == "openspiel"
    with pytest.raises(ValueError, match="ply limit"):
        AwaleVectorEnv(2, game="oware", max_plies=None)
    with pytest.raises(ValueError, match="unknown option\\(s\\) 'preset' for the game 'hawalis'"):
        AwaleVectorEnv(2, game="hawalis", preset="texts")
    with pytest.raises(ValueError, match="unknown game"):
        AwaleVectorEnv(2, game="mancala")
