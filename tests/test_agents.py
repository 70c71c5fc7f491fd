"""The agent protocol, the spec-string factory and the baseline agents."""

from __future__ import annotations

import shutil

import pytest
from nojit import run_python

from agents import (
    AGENTS,
    Agent,
    AgentEntry,
    AgentSpecError,
    GreedyAgent,
    Limit,
    RandomAgent,
    format_spec,
    known_agents,
    make,
    parse_spec,
)
from agents.registry import SEED
from awale_env import State


def play_out(agent, opponent, seed_state: State, plies: int = 30) -> list[int]:
    state, moves = seed_state, []
    for _ in range(plies):
        if state.is_terminal:
            break
        mover = agent if state.to_move == 0 else opponent
        moves.append(mover.act(state))
        state = state.play(moves[-1])
    return moves


def test_make_builds_every_classical_agent_with_typed_parameters():
    assert isinstance(make("random"), RandomAgent)
    assert isinstance(make("greedy:seed=3"), GreedyAgent)
    ab = make("alphabeta:depth=3,time=0.5")
    assert (ab.depth, ab.time) == (3, 0.5)
    mcts = make("mcts:simulations=20,c=2,seed=1")
    assert (mcts.simulations, mcts.c) == (20, 2.0)
    for agent in (ab, mcts, make("random")):
        assert isinstance(agent, Agent)
        assert agent.act(State.initial()) in State.initial().legal_actions()


def test_overrides_win_over_the_spec_and_specs_tolerate_spaces():
    assert make(" mcts : simulations = 7 ", simulations=9).simulations == 9
    assert parse_spec("alphabeta:depth=8") == ("alphabeta", {"depth": "8"})


#: A trial folder as Ray Tune names it: the swept values, with commas and ``=``, are part of the name.
TUNE_TRIAL = "PPO_RLlibGameEnv_6b2c1_00000_0_entropy_coeff=0.0100,lr=0.0003_2026-11-25_10-00-00"


def test_a_path_in_a_tune_trial_folder_plays_when_quoted(tmp_path):
    from agents.alphazero.agent import pretrained_path

    network = tmp_path / TUNE_TRIAL / "checkpoint_000000" / "best.pt"
    network.parent.mkdir(parents=True)
    shutil.copy(pretrained_path(), network)
    with pytest.raises(AgentSpecError, match="no parameter 'lr'"):  # unquoted, the comma splits the path
        make(f"alphazero:path={network},simulations=2")
    spec = format_spec("alphazero", {"path": str(network), "simulations": 2})
    assert spec == f'alphazero:path="{network}",simulations=2'
    agent = make(spec)
    assert agent.path == network and agent.config.simulations == 2
    assert make(f"alphazero:path='{network}',simulations=2").path == network  # single quotes too


@pytest.mark.parametrize(
    "value", ["plain", "a,b", "k=v,x=y", "C:/runs/x", 'say "hi"', "it's", "'both\" quotes'", " edge ", "", "a b"]
)
def test_format_spec_quotes_what_parse_spec_reads_back(value):
    spec = format_spec("rllib", {"path": value, "deterministic": False, "seed": 3})
    assert parse_spec(spec) == ("rllib", {"path": value, "deterministic": "false", "seed": "3"})
    assert format_spec("alphazero", {"pretrained": True}) == "alphazero:pretrained"


def test_quoted_values_double_their_quote_character():
    assert parse_spec("rllib:path='it''s, here'")[1] == {"path": "it's, here"}
    assert parse_spec('rllib:path="a ""b"" c",seed=1')[1] == {"path": 'a "b" c', "seed": "1"}
    assert parse_spec("rllib:path=plain'quote")[1] == {"path": "plain'quote"}  # a quote inside a plain value


class FlagAgent(RandomAgent):
    """A stand-in for agents with a flag parameter (like ``alphazero:pretrained``)."""

    def __init__(self, pretrained: bool = False, seed: int | None = None) -> None:
        super().__init__(seed)
        self.pretrained = pretrained


def test_new_agents_register_with_one_entry_and_bare_words_are_flags(monkeypatch):
    entry = AgentEntry("test_agents:FlagAgent", "test agent", {"pretrained": (bool, "a flag"), **SEED})
    monkeypatch.setitem(AGENTS, "flagged", entry)
    assert make("flagged:pretrained").pretrained is True
    assert make("flagged:pretrained=false,seed=2").pretrained is False
    assert "flagged: test agent [pretrained=bool, seed=int]" in known_agents()
    with pytest.raises(AgentSpecError, match="pretrained must be bool"):
        make("flagged:pretrained=maybe")


@pytest.mark.parametrize(
    "spec, words",
    [
        ("nosuch", ["unknown agent 'nosuch'", "alphabeta", "mcts", "depth=int"]),
        ("alphabeta:depht=3", ["no parameter 'depht'", "depth"]),
        ("alphabeta:depth=deep", ["depth must be int", "'deep'"]),
        ("alphabeta:depth", ["depth needs a value"]),
        ("alphabeta:depth=0", ["depth must be a positive int"]),
        ("mcts:simulations=-5", ["simulations must be a positive int"]),
        ("mcts:time=inf", ["time must be a positive float", "inf"]),  # a search that would never return
        ("alphabeta:time=nan", ["time must be a positive float", "nan"]),
        ("random:seed=-1", ["seed must be a non-negative integer"]),
        ("", ["non-empty string"]),
        ("random:seed=1,seed=2", ["'seed' is given twice", "once"]),
        ("ppo:path=", ["path= is empty", "weights file"]),
        ("alphazero:path=' '", ["path= is empty"]),
        ('alphazero:path="runs/a,b', ["malformed parameters", "quotes"]),  # a quote never closed
        ('alphazero:path="a"b', ["malformed parameters"]),  # text after the closing quote
    ],
)
def test_bad_specs_raise_a_clear_error(spec, words):
    with pytest.raises(AgentSpecError) as info:
        make(spec)
    for word in words:
        assert word in str(info.value)
    assert isinstance(info.value, ValueError)


def test_random_agent_is_reproducible_and_reset_reseeds():
    a, b = RandomAgent(seed=4), RandomAgent(seed=4)
    first = play_out(a, b, State.initial())
    a.reset(4)
    b.reset(4)
    assert play_out(a, b, State.initial()) == first
    a.reset(5)
    b.reset(5)
    assert play_out(a, b, State.initial()) != first


def test_greedy_takes_the_largest_capture():
    # Worked example 1: 14B captures 10, 14R captures 8, 16R captures 3.
    red, blue = [0] * 16, [0] * 16
    red[0], red[15], blue[14], red[13], blue[13], red[12], blue[12] = 2, 2, 2, 2, 2, 2, 2
    state = State.from_position(red, blue, to_move=1)
    assert {a: state.play(a).last_capture for a in state.legal_actions()}[27] == 10
    assert all(GreedyAgent(seed=s).act(state) == 27 for s in range(5))


def test_a_limit_given_with_the_move_replaces_the_agents_own_budget_for_that_move_only():
    from agents.alphazero import AlphaZeroAgent

    state = State.initial().play(4).play(10)
    alphabeta = make("alphabeta:depth=5,seed=0")
    alphabeta.act(state, Limit(depth=2))
    assert alphabeta.last_search["depth"] == 2
    alphabeta.act(state)
    assert alphabeta.last_search["depth"] == 5
    mcts = make("mcts:simulations=50,seed=0")
    mcts.act(state, Limit(simulations=7, depth=3))  # MCTS has no depth: ignored
    assert mcts.last_search["simulations"] == 7
    mcts.act(state)
    assert mcts.last_search["simulations"] == 50
    alphazero = AlphaZeroAgent(pretrained=True, simulations=20)
    alphazero.act(state, Limit(simulations=5))
    assert alphazero.last_simulations == 6  # the root's evaluation + 5 simulations
    alphazero.act(state, Limit(simulations=900))  # more than its tree was made for: a larger one
    assert alphazero.last_simulations == 901
    alphazero.act(state)
    assert alphazero.last_simulations == 21
    for bad in ({"time": -1.0}, {"depth": 0}, {"simulations": 2.5}, {"time": float("inf")}):
        with pytest.raises(ValueError, match="must be a positive"):
            Limit(**bad)


def test_greedy_breaks_ties_at_random():
    moves = {GreedyAgent(seed=s).act(State.initial()) for s in range(20)}
    assert len(moves) > 3  # no capture is possible at the start: every move ties


def test_agents_refuse_a_finished_game():
    red, blue = [0] * 16, [0] * 16
    red[0] = 1
    over = State.from_position(red, blue, stores=(40, 23))
    for spec in ("random", "greedy", "alphabeta:depth=2", "mcts:simulations=5"):
        with pytest.raises(ValueError, match="game is over"):
            make(spec).act(over)


FALLBACK_SCRIPT = """
import json
from agents.alphabeta import AlphaBetaAgent
from agents.mcts import MCTSAgent
from awale_env import State
state, out = State.initial(), []
mcts = MCTSAgent(simulations=150, seed=3)
for _ in range(4):
    alphabeta = AlphaBetaAgent(depth=3, table_bits=12, seed=2)
    out.append([alphabeta.act(state), alphabeta.last_search["value"], alphabeta.last_search["nodes"]])
    move = mcts.act(state)
    out.append([move, sorted(mcts.action_visits().items())])
    state = state.play(move)
    state = state.play(state.legal_actions()[-1])
print(json.dumps(out))
"""


def test_pure_python_fallback_gives_identical_results():
    """The compiled searches and the same code run as plain Python (NUMBA_DISABLE_JIT=1) agree exactly."""

    assert run_python(FALLBACK_SCRIPT) == run_python(FALLBACK_SCRIPT, jit=True)
