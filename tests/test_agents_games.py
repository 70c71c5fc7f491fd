"""The agents, the arena and the CLI on every registered game (and rule variant, tests/conftest.py): legal complete
games, tactics, exact agreement with plain minimax, determinism, round robins, and the ``--game`` option of
``awale play`` and ``awale arena``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import game_configs
from nojit import run_python
from reference_minimax import child_value, minimax
from typer.testing import CliRunner

from agents import AGENTS, Limit, make
from agents.alphabeta import AlphaBetaAgent
from agents.base import game_refusal
from agents.mcts import MCTSAgent
from agents.negamax import WIN
from agents.registry import check_spec
from awale_apps.cli import app
from awale_env.games import get_game
from competition.arena import play_game, round_robin

#: Each registered agent's cheap spec (``AgentEntry.example``): a new agent joins the tests below by naming one.
SPECS = tuple(entry.example for entry in AGENTS.values() if entry.example is not None)
runner = CliRunner()


def start(name: str, options: dict, max_plies: int | None = 1000, seed: int = 0):
    return get_game(name).initial(max_plies=max_plies, seed=seed, **options)


def random_positions(
    name: str, options: dict, count: int, seed: int, max_plies: int | None = 1000, plies: int = 150
) -> list:
    """Live positions reached by up to ``plies`` random moves (Oware's keep their repetition sets)."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = start(name, options, max_plies, seed=int(rng.integers(2**31)))
        for _ in range(int(rng.integers(0, plies))):
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal:
            positions.append(state)
    return positions


def test_every_registered_agent_names_a_cheap_spec_of_itself():
    assert [name for name, entry in AGENTS.items() if entry.example is None] == ["rllib"]  # needs a trained checkpoint
    for name, entry in AGENTS.items():
        assert entry.example is None or check_spec(entry.example)[0] == name


def players(game) -> list:
    """An agent of each of :data:`SPECS` that plays ``game``; those that do not refuse it in words naming it."""
    agents = []
    for i, spec in enumerate(SPECS):
        agent = make(spec, seed=i)
        refusal = game_refusal(agent, spec, game.name)
        if refusal is None:
            agents.append(agent)
        else:
            assert repr(game.name) in refusal and spec in refusal
    return agents


def test_every_agent_plays_legal_complete_games(game_config):
    game, options = game_config
    agents = players(game)
    assert len(agents) >= 4  # the classical agents play every game
    for i, agent in enumerate(agents):
        pair = (agent, agents[(i + 1) % len(agents)])
        final = play_game(pair, start(game.name, options, max_plies=120, seed=i))  # raises on an illegal move
        assert final.is_terminal and final.end_reason is not None


def test_every_agent_plays_within_the_limit_given_with_the_move(game_config):
    """``act(state, limit)``: the budget travels with the move (a searching agent uses the kinds it has)."""
    game, options = game_config
    for agent in players(game):
        for state in random_positions(game.name, options, 2, seed=5):
            assert agent.act(state, Limit(time=30.0, depth=1, simulations=3)) in state.legal_actions()


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alphabeta_value_equals_plain_minimax(game_config, depth):
    game, options = game_config
    # The search alone: a root a game's endgame table holds is not searched (tests/games/kalah/test_kalah_endgame.py).
    agent = AlphaBetaAgent(depth=depth, table_bits=12, seed=0, eval="score", endgame=False)  # minimax's leaves
    for state in random_positions(game.name, options, 6, seed=depth):
        agent.reset()
        move = agent.search(state)
        expected = minimax(state, depth, endgame=False)
        assert agent.last_search["value"] == expected, repr(state)
        assert child_value(state, move, depth, endgame=False) == expected, "the move played must achieve the value"


def test_alphabeta_takes_the_oware_capture_that_wins_at_once():
    # OpenSpiel rules: a store of 25 ends the game. Pit 5's seed lands in pit 6 (1 -> 2) and captures it: 24 + 2.
    board = [1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0]
    state = get_game("oware").state_type.from_position(board, (24, 20), to_move=0, preset="openspiel")
    assert state.play(5).winner == 0 and not state.play(0).is_terminal
    for depth in (1, 3, 5):
        agent = AlphaBetaAgent(depth=depth, seed=depth)
        assert agent.act(state) == 5
        assert agent.last_search["value"] == WIN - 1


def test_alphabeta_takes_the_hawalis_capture_that_wins_at_once():
    # South's pit 12 sows one seed into the empty inner pit 13, which faces North's inner pit 7 and captures it with
    # North's outer pit 6 behind it: North's last two seeds, so North, to move, has none and loses.
    south, north = [0] * 14, [0] * 14
    south[12], south[4] = 1, 1
    north[7], north[6] = 1, 1
    state = get_game("hawalis").state_type.from_position(south, north, to_move=0)
    winning = [a for a in state.legal_actions() if state.play(a).winner == 0]
    assert winning and len(winning) < len(state.legal_actions())
    for depth in (1, 3):
        assert AlphaBetaAgent(depth=depth, seed=depth).act(state) in winning


def test_alphabeta_avoids_a_move_that_loses_at_once(game_config):
    """Positions where some moves let the opponent win at once and others do not (found by random play with a fixed
    seed): depth 2 plays none of the losing ones."""
    game, options = game_config
    found = 0
    for state in random_positions(game.name, options, 300, seed=7, max_plies=None, plies=600):
        safe, losing = [], []
        for a in state.legal_actions():
            child = state.play(a)
            if not child.is_terminal and child.to_move != state.to_move:  # the opponent's reply
                loses = any(child.play(b).winner == 1 - state.to_move for b in child.legal_actions())
                (losing if loses else safe).append(a)
        if safe and losing:
            found += 1
            # The search's own choice: at a root its endgame table holds, alpha-beta plays the widest final margin.
            agent = AlphaBetaAgent(depth=2, seed=found, endgame=False)
            assert agent.act(state) not in losing, repr(state)
    assert found >= 1


def test_mcts_is_deterministic_under_a_seed(game_config):
    name, options = game_config[0].name, game_config[1]

    def game(seed: int) -> list:
        agent, state, out = MCTSAgent(simulations=60, seed=seed), start(name, options, seed=3), []
        for _ in range(8):
            if state.is_terminal:
                break
            out.append((agent.act(state), sorted(agent.action_visits().items())))
            state = state.play(out[-1][0])
        return out

    first = game(5)
    assert game(5) == first
    assert game(6) != first


@pytest.mark.parametrize(("name", "options"), [("oware", {"preset": "openspiel"}), ("hawalis", {})])
def test_round_robin_on_another_game(name, options):
    specs = ["random", "greedy", "alphabeta:depth=1"]
    result = round_robin(specs, 2, seed=4, max_plies=150, progress=False, game=name, **options)
    assert result.game == name and len(result.games) == 6
    assert sum(s.games for s in result.standings) == 12
    again = round_robin(specs, 2, seed=4, max_plies=150, progress=False, game=name, **options)
    assert again.games == result.games


def test_round_robin_refuses_bad_games_and_agents():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        round_robin(["random", "greedy"], 2, progress=False, game="chess")
    with pytest.raises(ValueError, match="its options: first_player, endless_move"):
        round_robin(["random", "greedy"], 2, progress=False, game="hawalis", preset="openspiel")
    with pytest.raises(ValueError, match="grand_slam must be one of"):
        round_robin(["random", "greedy"], 2, progress=False, game="oware", grand_slam="sometimes")


def test_alphazero_refuses_another_game():
    pytest.importorskip("torch")
    agent = make("alphazero:simulations=4")
    with pytest.raises(ValueError, match="plays awale16 only"):
        agent.act(start("oware", {}))


def test_cli_arena_on_oware():
    args = ["arena", "--game", "oware", "--rule", "preset=openspiel", "--agents", "random", "--agents", "greedy"]
    result = runner.invoke(app, [*args, "--games", "2", "--max-plies", "200", "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.output.strip().splitlines()[-1])
    assert {row["agent"] for row in table} == {"random", "greedy"} and sum(r["games"] for r in table) == 4


def test_cli_play_hawalis_through_piped_stdin_with_bad_input():
    moves = "hello\n99\n0\nundo\n3\nquit\n"
    result = runner.invoke(app, ["play", "--game", "hawalis", "--opponent", "greedy:seed=1"], input=moves)
    out = result.output
    assert result.exit_code == 0, out
    assert "malformed move 'hello'" in out and "0-13" in out
    assert "malformed move '99'" in out
    assert "greedy plays" in out and "captured: South" in out
    assert "game abandoned" in out and "Traceback" not in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "--game", "go"], "unknown game 'go'; the games are 'awale16', "),
        (["arena", "--game", "oware", "--rule", "slam=1", "--agents", "random"], "unknown rule flag(s) slam"),
        (["play", "--game", "hawalis", "--rule", "endless_move=never"], "endless_move must be 'loses' or 'illegal'"),
    ],
)
def test_cli_bad_game_options_give_one_line_errors(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def fallback_searches() -> list:
    """What alpha-beta and MCTS find in the first positions of every game and rule variant (run with and without
    NUMBA_DISABLE_JIT=1)."""
    out = []
    for game, rules in game_configs():
        state, mcts = game.initial(seed=2, **rules), MCTSAgent(simulations=40, seed=3)
        for _ in range(2):
            alphabeta = AlphaBetaAgent(depth=3, table_bits=12, seed=2)
            out.append([alphabeta.act(state), alphabeta.last_search["value"], alphabeta.last_search["nodes"]])
            state = state.play(mcts.act(state))
            out.append(sorted(mcts.action_visits().items()))
    return out


def test_pure_python_fallback_gives_identical_searches():
    """The per-game kernels dispatch in Python too: NUMBA_DISABLE_JIT=1 searches exactly as the compiled code (this
    process's, its kernels loaded already)."""
    code = "import json, test_agents_games as t; print(json.dumps(t.fallback_searches()))"
    assert run_python(code) == json.loads(json.dumps(fallback_searches()))
