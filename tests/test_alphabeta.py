"""Alpha-beta: tactics in hand-made positions, exact agreement with plain minimax, budgets (a fresh process's
included), ply limit, the evaluations and the features they weigh."""

from __future__ import annotations

import json

import numpy as np
import pytest
from reference_minimax import child_value, minimax
from stepping_clock import use_stepping_clock

import agents.alphabeta as alphabeta_module
from agents import make
from agents.alphabeta import SLICE_SECONDS, AlphaBetaAgent
from agents.evaluation import REFERENCE_WEIGHTS, TUNED_TABLES, TUNED_WEIGHTS, UNITS_PER_SEED, cells_of, features_of
from agents.negamax import NODE_LIMIT, NODES, NUM_COUNTERS, PAUSED, ROOT_MOVE, WIN
from agents.tuning import fit, logistic_fit
from agents.tuning import main as tuning_main
from awale_env import State
from awale_env.games import GAMES
from awale_env.kernels import dispatch as kn


def random_positions(count: int, seed: int, max_plies: int | None = 400) -> list[State]:
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = State.initial(max_plies=max_plies)
        for _ in range(int(rng.integers(0, 120))):
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal:
            positions.append(state)
    return positions


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_value_equals_plain_minimax_on_random_positions(depth):
    agent = AlphaBetaAgent(
        depth=depth, table_bits=12, seed=0, eval="score"
    )  # a small table: collisions must not matter
    for state in random_positions(12, seed=depth):
        agent.reset()
        move = agent.search(state)
        expected = minimax(state, depth)
        assert agent.last_search["value"] == expected, repr(state)
        assert child_value(state, move, depth) == expected, "the move played must achieve the value"


def test_ply_limit_is_respected_like_minimax():
    # Close to the limit, the hashed "plies left" keeps positions at different distances apart.
    agent = AlphaBetaAgent(depth=4, seed=0, eval="score")
    for state in random_positions(10, seed=11, max_plies=40):
        limited = State.from_position(state.red, state.blue, state.stores, state.to_move, state.ply, state.ply + 3)
        agent.reset()
        agent.search(limited)
        assert agent.last_search["value"] == minimax(limited, 4), repr(limited)


def test_finds_the_capture_that_wins_at_once():
    # Worked example 1: 14B (action 27) captures 10 and ends the game (fewer than 8 seeds left).
    red, blue = [0] * 16, [0] * 16
    red[0], red[15], blue[14], red[13], blue[13], red[12], blue[12] = 2, 2, 2, 2, 2, 2, 2
    state = State.from_position(red, blue, to_move=1)
    for depth in (1, 3, 5):
        agent = AlphaBetaAgent(depth=depth)
        assert agent.act(state) == 27
        assert agent.last_search["value"] == WIN - 1


@pytest.mark.parametrize(
    "red, blue, stores, safe",
    [
        (
            [0, 0, 1, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
            (17, 32),
            4,
        ),
        (
            [0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0, 1],
            [1, 0, 0, 0, 0, 0, 0, 0, 2, 4, 1, 0, 0, 0, 2, 0],
            (16, 31),
            1,
        ),
    ],
)
def test_avoids_the_moves_that_lose_at_once(red, blue, stores, safe):
    state = State.from_position(red, blue, stores, to_move=0, ply=58, max_plies=None)
    losing = [a for a in state.legal_actions() if a != safe]
    assert losing and all(any(c.play(b).winner == 1 for b in c.legal_actions()) for c in map(state.play, losing))
    for depth in (2, 4, 6):
        assert AlphaBetaAgent(depth=depth, seed=depth).act(state) == safe


def test_time_budget_is_kept_and_deepens(monkeypatch):
    # On a clock that moves a slice's length at each reading (the same on any machine at any load: each slice then
    # gets the same nodes), the search ends within a slice of its budget by the clock it reads, having deepened
    # iteration after iteration in between.
    agent = AlphaBetaAgent(time=0.3)
    clock = use_stepping_clock(monkeypatch, SLICE_SECONDS, (alphabeta_module, "time"))
    agent.act(State.initial().play(0))
    assert agent.last_search["seconds"] <= 0.3 + 2 * SLICE_SECONDS + 1e-9  # the last slice and the final reading
    assert agent.last_search["depth"] >= 5 and clock.readings > 20


def test_seed_makes_the_agent_reproducible():
    def game(seed: int) -> list[int]:
        agent = AlphaBetaAgent(depth=3, seed=seed)
        state, moves = State.initial(), []
        for _ in range(20):
            moves.append(agent.act(state))
            state = state.play(moves[-1])
        return moves

    assert game(1) == game(1)
    assert len({tuple(game(s)) for s in range(4)}) > 1  # the seed breaks ties differently


def test_bad_parameters():
    with pytest.raises(ValueError, match="depth must be at most"):
        AlphaBetaAgent(depth=500)
    with pytest.raises(ValueError, match="table_bits"):
        AlphaBetaAgent(table_bits=40)
    with pytest.raises(ValueError, match="time must be a positive float"):
        AlphaBetaAgent(time=-1)
    with pytest.raises(ValueError, match="reduce must be True or False"):
        AlphaBetaAgent(reduce="yes")


def kalah_middle_games(count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = GAMES["kalah"].initial()
        for _ in range(int(rng.integers(4, 12))):
            state = state.play(int(rng.choice(state.legal_actions()))) if not state.is_terminal else state
        if not state.is_terminal and len(state.legal_actions()) > 2:
            positions.append(state)
    return positions


def searched(agent: AlphaBetaAgent, positions: list) -> list[tuple[int, int]]:
    """(value, nodes) of a fresh search of each position."""
    found = []
    for state in positions:
        agent.reset()
        agent.search(state)
        found.append((agent.last_search["value"], agent.last_search["nodes"]))
    return found


def test_late_move_reductions_are_kalah_s_default_and_search_fewer_nodes_to_the_same_shallow_values():
    positions = kalah_middle_games(8, seed=5)
    assert make("alphabeta:reduce=false").name == "alphabeta:reduce=False"
    default, plain = (
        searched(AlphaBetaAgent(depth=8, seed=0), positions),
        searched(AlphaBetaAgent(depth=8, seed=0, reduce=False), positions),
    )
    assert searched(AlphaBetaAgent(depth=8, seed=0, reduce=True), positions) == default  # Kalah reduces by default
    assert sum(n for _, n in default) < 0.9 * sum(n for _, n in plain)
    # A search of depth 3 reduces nothing: it is the plain search.
    assert searched(AlphaBetaAgent(depth=3, seed=0), positions) == searched(
        AlphaBetaAgent(depth=3, seed=0, reduce=False), positions
    )
    # Games that do not reduce by default search as before.
    awale16 = random_positions(4, seed=2)
    assert searched(AlphaBetaAgent(depth=6, seed=0), awale16) == searched(
        AlphaBetaAgent(depth=6, seed=0, reduce=False), awale16
    )


FRESH_PROCESS = """
import json
from kernel_loads import kernels_loaded
from agents.alphabeta import AlphaBetaAgent
from awale_env import State

from agents.base import Limit

limit = None
{build}
state, searches = State.initial(), []
for _ in range(8):
    before = kernels_loaded()
    move = agent.act(state, limit)
    searches.append([agent.last_search["depth"], kernels_loaded() - before])
    state = state.play(move)
print(json.dumps(searches))
"""


@pytest.mark.parametrize(
    "build",
    [
        "agent = AlphaBetaAgent(time=0.2, seed=0)",
        "agent = AlphaBetaAgent(depth=40, seed=0)\nlimit = Limit(time=0.2)  # the web app's cap, given with each move\n"
        "agent.act(State.initial(), Limit(time=0.05))  # the web app's probe, as every caller warms an agent up\n"
        "agent.reset()",
    ],
)
def test_a_timed_agent_in_a_fresh_process_searches_deep_within_its_budget_from_the_first_move(build):
    # The agent compiles its search (or loads it from numba's cache) when it is built (or, its time given with the
    # move, in the first timed search, which callers make a warm-up), so no move compiles or loads a kernel within its
    # budget (a search that compiled did, learnt its node rate from the compile and reached depth 4 in 31 s): counted
    # in kernels, not in seconds, which a busy machine stretches; benchmarks/ time the moves. The count takes loads
    # from the cache as it takes compiles, so the shared (warm) cache checks the same as a cold one, and stricter: a
    # kernel that a cold compile of the search would have compiled as a callee is loaded only when first called. A
    # cold cache cost 22 CPU-s of compiling per case, a warm one about 4.
    from nojit import run_python

    searches = run_python(FRESH_PROCESS.format(build=build), jit=True)
    assert [loaded for _, loaded in searches] == [0] * 8, searches
    assert min(depth for depth, _ in searches) >= 1, searches


def test_a_paused_search_goes_on_exactly_where_it_stopped():
    # Sliced into budgets of 37 nodes, a search finds what one uninterrupted call finds, node for node.
    state = random_positions(1, seed=5)[0]
    results = []
    for step in (None, 37):
        agent = AlphaBetaAgent(depth=7, seed=0)
        root = kn.root_of(state)
        env = root.env(agent._scratch, *agent._path)
        counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        calls = 0
        while True:
            counters[NODE_LIMIT] = np.iinfo(np.int64).max if step is None else counters[NODES] + step
            value = agent._negamax(root, env, 7, counters, agent._endgame_table(root))
            calls += 1
            if not counters[PAUSED]:
                break
        results.append((value, int(counters[ROOT_MOVE]), int(counters[NODES])))
        assert calls == 1 if step is None else calls > 10
    assert results[0] == results[1]


def test_awale16_features_of_a_hand_made_position():
    # Player 0 (holes 1, 3, ...): 1 + 2 + 1 + 10 seeds in 4 holes, three of them holding 1-2 (one seed from a capture),
    # 4 moves; player 1: holes 2 and 16 with one red seed each: 2 seeds, both vulnerable, 2 moves, starving.
    red = [1, 1, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    blue = [0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    # No move gives another turn: the last two features are 0.
    for to_move, expected in ((0, [-8, 14, 2, 3, 2, 4, 2, 0, 1, 0, 0]), (1, [8, 2, 14, 2, 3, 2, 4, 1, 0, 0, 0])):
        assert features_of(State.from_position(red, blue, (20, 28), to_move=to_move)).tolist() == expected


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_gives_the_features_of_its_positions(name):
    # The store difference always; where a game gives more, the seeds on each side add up to the board's, its
    # mobility is the number of legal moves, and the moves giving another turn are among them.
    for state in game_positions(name, count=5, seed=1):
        features = features_of(state)
        assert features[0] == state.stores[state.to_move] - state.stores[1 - state.to_move]
        if features[1] + features[2] > 0:
            assert features[1] + features[2] + sum(state.stores) == GAMES[name].total_seeds
            assert features[5] == len(state.legal_actions())
            again = sum(state.play(a).to_move == state.to_move for a in state.legal_actions())
            assert features[9] == again <= features[5]


def test_every_game_s_tuned_weights_weigh_every_feature():
    assert {len(weights) for weights in TUNED_WEIGHTS.values()} == {kn.NUM_FEATURES}
    assert list(REFERENCE_WEIGHTS) == list(kn.FEATURES)


def game_positions(name: str, count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = GAMES[name].initial()
        for _ in range(int(rng.integers(0, 60))):
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal:
            positions.append(state)
    return positions


@pytest.mark.parametrize("eval_name", ["reference", "tuned"])
def test_a_weighted_evaluation_scores_the_leaves_by_its_weights(eval_name):
    weights = np.array(
        [REFERENCE_WEIGHTS[f] for f in kn.FEATURES] if eval_name == "reference" else TUNED_WEIGHTS["awale16"]
    )
    agent = make(f"alphabeta:depth=1,eval={eval_name}", seed=0)
    assert agent.name == f"alphabeta:depth=1,eval={eval_name}"
    for state in random_positions(8, seed=3):
        agent.reset()
        agent.search(state)
        values = []
        for action in state.legal_actions():
            child = state.play(action)
            if child.is_terminal:
                values.append(child_value(state, action, 1))
            else:
                values.append(-int(np.floor(weights @ features_of(child) + 0.5)))
        assert agent.last_search["value"] == max(values), repr(state)


def test_the_evaluations_are_checked():
    with pytest.raises(ValueError, match="eval must be one of score, reference, tuned, got 'best'"):
        AlphaBetaAgent(eval="best")


def test_the_default_evaluation_is_tuned_and_the_store_difference_where_no_weights_were_fitted():
    assert AlphaBetaAgent().eval == "tuned" and "awale16" in TUNED_WEIGHTS and "hawalis" not in TUNED_WEIGHTS
    tuned, score = AlphaBetaAgent(depth=4, seed=0), AlphaBetaAgent(depth=4, seed=0, eval="score")
    for state in game_positions("hawalis", count=3, seed=2):
        assert tuned.act(state) == score.act(state)
        assert [tuned.last_search[k] for k in ("depth", "nodes", "value")] == [
            score.last_search[k] for k in ("depth", "nodes", "value")
        ]


def test_the_logistic_fit_finds_the_weights_that_made_the_outcomes():
    rng = np.random.default_rng(0)
    features = rng.normal(size=(20_000, 3)) * [1.0, 3.0, 0.5]
    truth = np.array([1.0, -0.4, 2.0])
    outcomes = (rng.random(len(features)) < 1 / (1 + np.exp(-(features @ truth)))).astype(float)
    assert np.allclose(logistic_fit(features, outcomes, l2=0.0), truth, atol=0.1)


@pytest.mark.parametrize("depth", [3, 5])
def test_the_principal_variation_is_a_line_that_achieves_the_searched_value(depth):
    """Each move of the line read from the table keeps the minimax value: the line is the search's best play."""
    agent = AlphaBetaAgent(depth=depth, seed=0, eval="score")
    lengths = []
    for state in random_positions(10, seed=depth):
        agent.reset()
        move = agent.search(state)
        value = agent.last_search["value"]
        line = agent.principal_variation(state, plies=depth)
        assert line[0] == move and len(line) <= depth
        position = state
        for k, action in enumerate(line):
            assert (-1) ** k * child_value(position, action, depth - k, k) == value, (repr(state), line, k)
            position = position.play(action)
        lengths.append(len(line))
    # The table keeps most lines whole down to the last ply but one (nodes one ply from the leaves are not stored).
    assert sum(lengths) >= 0.8 * (depth - 1) * len(lengths), lengths
    assert agent.principal_variation(state, plies=0) == []


def test_a_fit_with_a_table_finds_the_cell_values_that_made_the_outcomes():
    """:func:`agents.tuning.fit` with table cells: the feature weights and the cells' values (one-hot columns, not
    rescaled), both in the units where the store difference weighs ``UNITS_PER_SEED``; cells no row has stay 0."""
    rng = np.random.default_rng(1)
    rows = 40_000
    features = np.zeros((rows, kn.NUM_FEATURES))
    features[:, 0] = rng.integers(-6, 7, size=rows)
    cells = np.full((rows, kn.MAX_CELLS), -1)
    cells[:, 0] = rng.integers(0, 3, size=rows)  # cells 0..2 of a table of 4: cell 3 never seen
    truth = np.array([0.8, -0.4, 0.0])
    logits = 0.2 * features[:, 0] + truth[cells[:, 0]]
    outcomes = (rng.random(rows) < 1 / (1 + np.exp(-logits))).astype(float)
    weights, table = fit(features, outcomes, cells, table_size=4)
    assert weights[0] == UNITS_PER_SEED and not any(weights[1:])
    assert len(table) == 4 and table[3] == 0
    assert np.allclose(np.array(table[:3]) - table[2], (truth - truth[2]) * UNITS_PER_SEED / 0.2, atol=4)
    assert fit(features, outcomes)[1] == ()


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_s_tuned_table_fits_its_cells(name):
    """A tuned table has a value for every cell its game's kernel can give; a game's cells lie within its table."""
    assert set(TUNED_TABLES) <= set(TUNED_WEIGHTS)
    table_size = GAMES[name].search.table_size
    if name in TUNED_TABLES:
        assert len(TUNED_TABLES[name]) == table_size > 0
    for state in game_positions(name, count=5, seed=4):
        cells = cells_of(state)
        assert ((0 <= cells) & (cells < max(table_size, 1))).all() and (len(cells) > 0) == (table_size > 0)


def test_the_tuning_command_prints_an_entry_of_the_weights_file(capsys):
    """``python -m agents.tuning`` prints the weights, and for a game with table cells its table too, as the entry
    of ``agents/tuned_weights.json`` the evaluation reads."""
    for name in ("awale16", "kalah"):
        tuning_main(["--game", name, "--games", "4", "--depth", "2", "--eval", "tuned", "--seed", "1"])
        entry = json.loads(capsys.readouterr().out.splitlines()[-1])[name]
        table_size = GAMES[name].search.table_size
        weights = entry["weights"] if table_size else entry
        assert len(weights) == kn.NUM_FEATURES and weights[0] == UNITS_PER_SEED
        assert (len(entry["table"]) == table_size) if table_size else isinstance(entry, list)
