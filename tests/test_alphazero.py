"""AlphaZero on the two-colour Awale: batched search, symmetry, the network (the shipped one gives the outputs recorded
before every game shared one network class), checkpoints and the agent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # small batches: more threads only contend (the machine is shared)

import random_positions  # noqa: E402
from stepping_clock import use_stepping_clock  # noqa: E402

import agents.alphazero.agent as alphazero_agent_module  # noqa: E402
import agents.alphazero.mcts as alphazero_mcts_module  # noqa: E402
from agents.alphazero.mcts import BatchedSearch, SearchConfig, uniform_evaluator  # noqa: E402
from agents.alphazero.network import (  # noqa: E402
    CheckpointError,
    NetworkConfig,
    RingNet,
    load_network,
    make_evaluator,
    num_rotations,
    rotate_samples,
    save_checkpoint,
)
from agents.alphazero.selfplay import SelfPlay, absolute_of_relative, play_match  # noqa: E402
from awale_env import State  # noqa: E402
from awale_env.games import DEFAULT_GAME  # noqa: E402
from awale_env.games.awale16 import kernels as core  # noqa: E402

TINY = NetworkConfig(channels=8, blocks=1, value_hidden=8, game="awale16")
NUM_ROTATIONS = num_rotations("awale16")
OUTPUTS = np.load(Path(__file__).parent / "data" / "alphazero_outputs.npz")  # recorded from the earlier networks
#: How far the outputs may be from the recorded ones: float32 sums in another order on another CPU (other SIMD
#: widths in torch's kernels) differ by a few 1e-6 (7.6e-6 seen on logits up to 16); a changed network by far more.
OUTPUTS_TOLERANCE = {"rtol": 1e-5, "atol": 1e-4}


def search_states(states, evaluate, simulations, noise_seeds=None, leaves=1):
    """Visit counts and root values of a batched search over ``states``."""
    search = BatchedSearch(len(states), SearchConfig(simulations=simulations, leaves=leaves))
    rngs = None if noise_seeds is None else [np.random.default_rng(s) for s in noise_seeds]
    return search.run(
        np.stack([np.array(s.seeds) for s in states]),
        np.array([s.stores for s in states], dtype=core.STORE_DTYPE),
        np.array([s.to_move for s in states]),
        np.array([s.ply for s in states]),
        np.array([s.max_plies or 0 for s in states]),
        np.ones(len(states), dtype=bool),
        evaluate,
        noise_rngs=rngs,
    )


def random_states(count, seed, plies=(0, 40)):
    """Positions of the default game from its plain start: the recorded moves below were made on exactly these."""
    return random_positions.random_states(DEFAULT_GAME, count, seed, plies, seeded_starts=False)


def hashed_evaluator(obs):
    """A deterministic evaluator whose rows do not depend on the rest of the batch (unlike BLAS kernels)."""
    logits = np.sin(obs[:, :32] * 37.0 + np.arange(32) * 0.7).astype(np.float32)
    values = np.tanh(np.sin(obs.sum(axis=1) * 11.0)).astype(np.float32)
    return logits, values


# --- search --------------------------------------------------------------------------------------------------------


def starving_win() -> State:
    """Example 6 of the rules: player 0 wins at once with 15R; 1R and 3R lose nothing but win nothing either."""
    red, blue = [0] * 16, [0] * 16
    red[0], red[2], red[14], blue[15] = 4, 4, 1, 2
    return State.from_position(red, blue, (28, 25), to_move=0)


def test_uniform_search_finds_an_immediate_win():
    counts, values = search_states([starving_win()], uniform_evaluator, 200)
    assert int(np.argmax(counts[0])) == starving_win().to_action("15R")
    assert counts[0].sum() == 200
    assert values[0] > 0.8


def solve(state: State, depth: int) -> float:
    """Exact value for the player to move when the game ends within ``depth`` plies, else 0 (negamax)."""
    if state.is_terminal:
        return float(state.returns()[state.to_move])
    if depth == 0:
        return 0.0
    return max(-solve(state.play(a), depth - 1) for a in state.legal_actions())


def test_uniform_search_finds_a_forced_win_in_three_plies():
    """No move wins at once; only 7R wins by force (whatever player 1 replies, player 0 then wins), and every
    other move loses or draws within five plies (checked by the full-width solve)."""
    red = [0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 2, 1]
    blue = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1]
    state = State.from_position(red, blue, (26, 28), to_move=0)
    exact = {a: -solve(state.play(a), 4) for a in state.legal_actions()}
    assert [a for a, v in exact.items() if v == 1.0] == [state.to_action("7R")]
    assert all(-solve(state.play(a), 0) < 1.0 for a in state.legal_actions())
    counts, values = search_states([state], uniform_evaluator, 3000)
    assert int(np.argmax(counts[0])) == state.to_action("7R")
    assert values[0] > 0.5


def test_the_principal_line_follows_the_most_visited_children():
    """The forced win above: the line starts with 7R (the most visited root move), every move of it is legal in turn,
    and each is its node's most visited child (checked at the root against the visit counts)."""
    red = [0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 2, 1]
    blue = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1]
    state = State.from_position(red, blue, (26, 28), to_move=0)
    search = BatchedSearch(1, SearchConfig(simulations=3000))
    counts, _ = search.run_states([state], uniform_evaluator)
    line = search.principal_line(0, plies=6)
    assert line[0] == int(np.argmax(counts[0])) == state.to_action("7R") and 2 <= len(line) <= 6
    position = state
    for action in line:
        assert action in position.legal_actions()
        position = position.play(action)
    assert search.principal_line(0, plies=1) == line[:1]


def test_batched_search_matches_one_game_searches():
    states = random_states(6, seed=1)
    seeds = [[7, g] for g in range(len(states))]
    batched, batched_values = search_states(states, hashed_evaluator, 60, noise_seeds=seeds)
    for g, state in enumerate(states):
        single, single_values = search_states([state], hashed_evaluator, 60, noise_seeds=[seeds[g]])
        np.testing.assert_array_equal(batched[g], single[0])
        assert batched_values[g] == pytest.approx(single_values[0])


def test_search_only_visits_legal_moves_and_counts_its_simulations():
    states = random_states(5, seed=2)
    for leaves in (1, 8):
        counts, _ = search_states(states, make_evaluator(RingNet(TINY)), 50, leaves=leaves)
        for state, row in zip(states, counts):
            assert row.sum() == 50
            assert not row[~state.legal_mask()].any()


def test_virtual_loss_search_still_finds_the_win():
    counts, _ = search_states([starving_win()], uniform_evaluator, 200, leaves=8)
    assert int(np.argmax(counts[0])) == starving_win().to_action("15R")


# --- symmetry ------------------------------------------------------------------------------------------------------


def rotate_state(state: State, shift: int) -> State:
    """The position with every hole moved ``2 * shift`` holes on (same owner, same player to move)."""
    red = np.roll(np.array(state.red), 2 * shift)
    blue = np.roll(np.array(state.blue), 2 * shift)
    return State.from_position(red.tolist(), blue.tolist(), state.stores, state.to_move, state.ply, state.max_plies)


@pytest.mark.parametrize("shift", range(NUM_ROTATIONS))
def test_rotation_maps_observations_and_policies_consistently(shift):
    for state in random_states(10, seed=shift):
        rotated = rotate_state(state, shift)
        obs = state.observation_tensor()[None]
        # a policy that marks each legal move by its own index, in relative actions
        policy = np.zeros((1, 32), np.float32)
        for a in state.legal_actions():
            policy[0, core.relative_action(a, state.to_move)] = a + 1
        new_obs, new_policy = rotate_samples(obs, policy, np.array([shift]), "awale16")
        np.testing.assert_array_equal(new_obs[0], rotated.observation_tensor())
        for r in np.flatnonzero(policy[0]):
            a = int(policy[0, r]) - 1
            moved = core.absolute_action(int(np.flatnonzero(new_policy[0] == a + 1)[0]), state.to_move)
            assert moved == (a + 4 * shift) % 32
            # the rules commute with the rotation: playing the moved action in the rotated position gives the
            # rotated successor
            assert rotated.play(moved) == rotate_state(state.play(a), shift)


def test_network_is_equivariant_under_rotations():
    net = RingNet(NetworkConfig(channels=8, blocks=2, value_hidden=8, game="awale16")).eval()
    obs = np.stack([s.observation_tensor() for s in random_states(8, seed=3)])
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(obs))
        for shift in range(NUM_ROTATIONS):
            shifts = np.full(len(obs), shift)
            rotated_obs, rotated_logits = rotate_samples(obs, logits.numpy(), shifts, "awale16")
            new_logits, new_values = net(torch.from_numpy(rotated_obs))
            np.testing.assert_allclose(new_logits.numpy(), rotated_logits, atol=1e-5)
            np.testing.assert_allclose(new_values.numpy(), values.numpy(), atol=1e-5)


def test_evaluator_matches_the_network():
    """The evaluator's folded batch norms give the network's outputs, after some training moved the statistics."""
    net = RingNet(NetworkConfig(channels=8, blocks=2, value_hidden=8, game="awale16"))
    obs = np.stack([s.observation_tensor() for s in random_states(16, seed=5)])
    net.train()
    net(torch.from_numpy(obs))  # update the running statistics away from their initial values
    net.eval()
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(obs))
    got_logits, got_values = make_evaluator(net)(obs)
    np.testing.assert_allclose(got_logits, logits.numpy(), atol=1e-5)
    np.testing.assert_allclose(got_values, values.numpy(), atol=1e-5)


def test_rotate_samples_rejects_bad_shapes():
    with pytest.raises(ValueError, match="shifts"):
        rotate_samples(np.zeros((2, 35)), np.zeros((2, 32)), np.array([0, 8]), "awale16")
    with pytest.raises(ValueError, match="expected obs"):
        rotate_samples(np.zeros((2, 34)), np.zeros((2, 32)), np.array([0, 1]), "awale16")


# --- self-play and matches -----------------------------------------------------------------------------------------


def recorded_self_play(games: SelfPlay, evaluate, steps: int) -> list[tuple[object, list]]:
    """``steps`` steps of ``games``, each step's samples beside what its finished games were, as the search and the
    boards saw them: per game, ``(state, search target, Gumbel's chosen move or None, move played)`` at every ply."""
    gumbel = games.search.config.search == "gumbel"
    run_states, play = games.search.run_states, games.boards.play
    searched, lines, finished = {}, [[] for _ in games.rngs], []

    def spied_search(states, *args, **kwargs):
        counts, values = run_states(states, *args, **kwargs)
        for g, state in enumerate(states):
            target = games.search.improved_policy[g].copy() if gumbel else counts[g] / max(counts[g].sum(), 1)
            searched[g] = (state, target, int(games.search.chosen[g]) if gumbel else None)
        return counts, values

    def spied_play(g, action):
        lines[g].append((*searched[g], action))
        over = play(g, action)
        if over:
            finished.append(lines[g])
            lines[g] = []
        return over

    games.search.run_states, games.boards.play = spied_search, spied_play
    steps_seen = []
    for _ in range(steps):
        part = games.step(evaluate)
        steps_seen.append((part, list(finished)))
        finished.clear()
    return steps_seen


@pytest.mark.parametrize("search", [SearchConfig(simulations=8), SearchConfig(simulations=8, search="gumbel")],
                         ids=["puct", "gumbel"])  # fmt: skip
def test_self_play_samples_are_each_positions_view_search_target_and_outcome(search):
    """Every sample of a finished game is its position's observation, the search's target there (the visit shares;
    Gumbel's improved policy) in the mover's own action order, and the game's outcome for that mover; the game is
    the line of the moves played (Gumbel's: the move its search chose), from the start to its end."""
    games = SelfPlay(3, search, temperature_moves=4, max_plies=40, seed=0)
    absolute = absolute_of_relative("awale16")
    assert absolute[1, 0] == 2  # the second player's first own hole is the board's hole 2
    checked = 0
    for part, lines in recorded_self_play(games, make_evaluator(RingNet(TINY)), 90):
        obs, policy, value = [], [], []
        for line in lines:
            final = line[-1][0].play(line[-1][3])
            assert line[0][0].ply == 0 and final.is_terminal and final.ply <= 40
            for (state, target, chosen, action), after in zip(line, [s for s, *_ in line[1:]] + [final]):
                assert state.play(action).to_dict() == after.to_dict()
                assert chosen is None or action == chosen
                obs.append(state.observation_tensor())
                policy.append(target[absolute[state.to_move]])
                value.append(0.0 if final.winner is None else (1.0 if final.winner == state.to_move else -1.0))
        assert len(part) == len(obs)
        if obs:
            np.testing.assert_array_equal(part.obs, np.stack(obs))
            np.testing.assert_allclose(part.policy, np.stack(policy), rtol=1e-6, atol=1e-7)
            np.testing.assert_array_equal(part.value, np.array(value, dtype=np.float32))
            checked += len(lines)
    assert checked >= 4 and checked == games.games_finished


def test_match_between_identical_players_is_balanced():
    evaluate = make_evaluator(RingNet(TINY))
    wins, draws, losses = play_match(evaluate, evaluate, 8, SearchConfig(simulations=8), 100, seed=0)
    assert wins + draws + losses == 8
    assert wins == losses  # each opening is played from both seats by the same deterministic player


# --- checkpoints and the agent -------------------------------------------------------------------------------------


def test_checkpoint_round_trip(tmp_path):
    net = RingNet(TINY)
    save_checkpoint(tmp_path / "net.pt", net, generation=3)
    loaded = load_network(tmp_path / "net.pt")
    for key, value in net.state_dict().items():
        torch.testing.assert_close(loaded.state_dict()[key], value)


def test_corrupt_checkpoints_give_clear_errors(tmp_path):
    path = tmp_path / "net.pt"
    save_checkpoint(path, RingNet(TINY))
    data = path.read_bytes()
    with pytest.raises(CheckpointError, match="does not exist"):
        load_network(tmp_path / "missing.pt")
    (tmp_path / "truncated.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="not a readable torch file"):
        load_network(tmp_path / "truncated.pt")
    (tmp_path / "text.pt").write_text("hello")
    with pytest.raises(CheckpointError, match="not a readable"):
        load_network(tmp_path / "text.pt")
    torch.save({"weights": torch.zeros(3)}, tmp_path / "foreign.pt")
    with pytest.raises(CheckpointError, match="not an 'awale_env.alphazero/1' checkpoint"):
        load_network(tmp_path / "foreign.pt")
    torch.save({"code": np.random.default_rng(0)}, tmp_path / "pickle.pt")  # would need code to unpickle
    with pytest.raises(CheckpointError, match="holds serialized Python objects other than tensors"):
        load_network(tmp_path / "pickle.pt")
    payload = torch.load(path, weights_only=True)
    payload["network"]["channels"] = 16
    torch.save(payload, tmp_path / "mismatch.pt")
    with pytest.raises(CheckpointError, match="does not match"):
        load_network(tmp_path / "mismatch.pt")


def test_agent_plays_legal_moves_within_its_budget(tmp_path, monkeypatch):
    from agents import make
    from agents.alphazero import AlphaZeroAgent

    save_checkpoint(tmp_path / "net.pt", RingNet(TINY))
    agent = make(f"alphazero:path={tmp_path / 'net.pt'},simulations=20")
    state = State.initial()
    for _ in range(6):
        state = state.play(agent.act(state))
    assert agent.last_simulations == 21  # the root's evaluation + 20 simulations
    timed = AlphaZeroAgent.load(tmp_path / "net.pt", time=0.05)
    # By the clock the search reads (moving 1 ms a reading, whatever the machine's load), it stops at its time.
    clock = use_stepping_clock(monkeypatch, 0.001, (alphazero_agent_module, "clock"), (alphazero_mcts_module, "time"))
    assert state.is_legal(timed.act(state))
    assert 0.05 <= clock.now <= 0.05 + 0.003 and timed.last_simulations > 1  # the last reading: the rate's
    with pytest.raises(ValueError, match="game is over"):
        timed.act(State.from_position([0] * 16, [0] * 16, (33, 31), 0))
    with pytest.raises(ValueError, match="does not exist"):
        make("alphazero:path=/nonexistent/net.pt")


def test_the_agent_searches_by_the_settings_its_network_was_trained_with(tmp_path):
    """A checkpoint's search settings (training writes its run's) are the agent's defaults, a spec's override them:
    a network trained with ``--c-puct 2.5`` is played and measured at 2.5, not at the search's default 1.5."""
    from agents import make
    from agents.alphazero import AlphaZeroAgent

    with torch.random.fork_rng():  # a network whose searches at these settings differ (not every random one's do)
        torch.manual_seed(0)
        net = RingNet(TINY)
    save_checkpoint(tmp_path / "trained.pt", net, search={"simulations": 64, "c_puct": 2.5, "fpu_reduction": 0.0})
    save_checkpoint(tmp_path / "plain.pt", net)  # records no search: the search's defaults
    trained = make(f"alphazero:path={tmp_path / 'trained.pt'},simulations=60")
    assert (trained.config.c_puct, trained.config.fpu_reduction, trained.config.simulations) == (2.5, 0.0, 60)
    overridden = make(f"alphazero:path={tmp_path / 'trained.pt'},simulations=60,c_puct=1.5,fpu_reduction=0.2")
    plain = AlphaZeroAgent(path=str(tmp_path / "plain.pt"), simulations=60)
    assert plain.config == overridden.config == SearchConfig(simulations=60, leaves=8)
    in_memory = AlphaZeroAgent(net=net, simulations=60, c_puct=2.5, fpu_reduction=0.0)
    state = random_states(1, seed=3, plies=(6, 20))[0]
    np.testing.assert_array_equal(trained.policy(state), in_memory.policy(state))  # searched at 2.5 / 0.0
    np.testing.assert_array_equal(plain.policy(state), overridden.policy(state))
    assert not np.array_equal(trained.policy(state), plain.policy(state))
    payload = torch.load(tmp_path / "trained.pt", weights_only=True)
    for bad in ({"c_puct": -1.0}, {"fpu_reduction": float("nan")}, {"c_puct": "x"}, [1, 2]):
        payload["search"] = bad
        torch.save(payload, tmp_path / "bad.pt")
        with pytest.raises(CheckpointError, match="search"):
            AlphaZeroAgent(path=str(tmp_path / "bad.pt"))


def test_self_play_workers_receive_the_search_configuration_not_the_runs(tmp_path):
    """A self-play worker (a process or a Ray actor) receives a small WorkerSettings, whose search is the run's
    SearchConfig, built and checked once by the learner: not the run's configuration to rebuild and check again."""
    import pickle

    from training.alphazero.config import AlphaZeroConfig
    from training.alphazero.selfplay_pool import WorkerSettings

    config = AlphaZeroConfig(run_dir=str(tmp_path), search="gumbel", simulations=16, c_puct=2.5, games_per_worker=4)
    settings = WorkerSettings.of(config)
    assert settings.search == config.search_config() == SearchConfig.of(config)
    assert (settings.search.search, settings.search.simulations, settings.search.c_puct) == ("gumbel", 16, 2.5)
    sent = pickle.dumps(settings)  # what a worker process or actor unpickles: nothing of the run's configuration
    assert b"AlphaZeroConfig" not in sent and b"references" not in sent and len(sent) < len(pickle.dumps(config))
    assert settings.games_of(worker=1, start_generation=0).search.config == settings.search


def test_the_checkpoints_simulations_are_the_agents_default_and_a_time_given_to_it_is_searched_whole(
    tmp_path, monkeypatch
):
    """A checkpoint's simulations per move are the agent's default (a spec's or a Limit's override them); an agent
    given a time and no simulations searches until its time is up (``time=2`` is two seconds of search, not the
    checkpoint's count, a cost of self-play); with both, whichever comes first. A move's Limit replaces only what it
    names: an untimed agent given ``Limit(time=...)`` (the web page's cap) still stops at its simulations."""
    from agents import Limit, make
    from agents.alphazero import AlphaZeroAgent
    from agents.alphazero.agent import DEFAULT_SIMULATIONS

    save_checkpoint(tmp_path / "trained.pt", RingNet(TINY), search={"simulations": 24, "leaves": 1})
    save_checkpoint(tmp_path / "plain.pt", RingNet(TINY))
    state = random_states(1, seed=5, plies=(6, 12))[0]

    def searched(agent, limit=None):
        agent.act(state, limit)
        return int(agent.search.visits[0, 0]) - 1  # the root's own evaluation aside

    untimed = AlphaZeroAgent(path=str(tmp_path / "trained.pt"))
    assert (untimed.config.simulations, untimed.config.leaves) == (24, 8)  # leaves: the agent's batching, not read
    assert AlphaZeroAgent(path=str(tmp_path / "plain.pt")).config.simulations == DEFAULT_SIMULATIONS
    assert searched(untimed) == 24
    assert searched(make(f"alphazero:path={tmp_path / 'trained.pt'},simulations=40")) == 40
    assert searched(untimed, Limit(simulations=10)) == 10
    timed = AlphaZeroAgent(path=str(tmp_path / "trained.pt"), time=0.05)
    both = AlphaZeroAgent(path=str(tmp_path / "trained.pt"), time=0.05, simulations=30)
    # By a clock moving 1 ms a reading (a reading per network call of 8 leaves), 0.05 s is about 400 simulations.
    clock = use_stepping_clock(monkeypatch, 0.001, (alphazero_agent_module, "clock"), (alphazero_mcts_module, "time"))
    start = clock.now
    assert searched(timed) > 100  # not stopped at the checkpoint's 24
    assert 0.05 <= clock.now - start <= 0.05 + 0.003
    assert searched(untimed, Limit(time=0.05)) == 24  # its simulations first
    assert searched(both) == 30 and searched(timed, Limit(simulations=12)) == 12
    assert searched(both, Limit(time=0.002)) < 30  # the time first (two network calls)


def test_a_timed_gumbel_move_plans_its_halving_over_the_simulations_its_time_allows(tmp_path, monkeypatch):
    """Sequential halving is planned over the whole budget: a timed Gumbel move plans it over the simulations its
    time allows at the rate measured on the agent's last timed search, so the halving comes down to its last moves
    instead of being cut in its first round (as a plan of the timed search's room, 200,000, would be)."""
    from agents.alphazero import AlphaZeroAgent
    from agents.alphazero.agent import FIRST_RATE, PLANNED_SHARE

    save_checkpoint(tmp_path / "net.pt", RingNet(TINY), search={"search": "gumbel", "simulations": 16})
    agent = AlphaZeroAgent(path=str(tmp_path / "net.pt"), considered_actions=8, time=0.1)
    state = random_states(1, seed=2, plies=(6, 12))[0]
    clock = use_stepping_clock(monkeypatch, 0.001, (alphazero_agent_module, "clock"), (alphazero_mcts_module, "time"))
    seconds = 0.1
    plans = []
    for _ in range(4):
        plan = agent._planned(agent.config.simulations, seconds)
        start = clock.now
        counts = agent.policy(state)
        plans.append(plan)
        assert int(agent.search.visits[0, 0]) - 1 == plan  # the plan ran to its end within the time
        assert clock.now - start <= seconds + 0.003
        assert clock.now - start >= seconds / 2 or not plans[1:]  # after the first move: most of the time used
        ranked = np.sort(counts[counts > 0])[::-1]
        assert len(ranked) >= 4 and ranked[1] > ranked[2]  # halved down to two moves: they lead the others
        assert counts[agent.search.chosen[0]] == ranked[0]  # the move played: one of the two
    assert plans[0] == int(FIRST_RATE * seconds * PLANNED_SHARE)
    assert plans[-1] > plans[0]  # the clock's rate (8 leaves a millisecond) is above the first guess


def test_search_gives_the_same_counts_without_numba():
    """The compiled passes and their pure Python fallback (NUMBA_DISABLE_JIT=1) search identically."""
    from nojit import run_python

    script = (
        "import json, numpy as np; import test_alphazero as t; "
        "c, v = t.search_states(t.random_states(3, seed=4), t.hashed_evaluator, 30, noise_seeds=[[1, g] for g in "
        "range(3)], leaves=4); print(json.dumps(c.tolist()))"
    )
    counts, _ = search_states(random_states(3, seed=4), hashed_evaluator, 30, noise_seeds=[[1, g] for g in range(3)],
                              leaves=4)  # fmt: skip
    assert run_python(script) == counts.tolist()


#: The first network shipped for the two-colour game (``agents/alphazero/pretrained/awale16.pt`` until a stronger one
#: replaced it), kept for the outputs and moves recorded from it.
FIRST_NETWORK = Path(__file__).parent / "data" / "alphazero_awale16_first.pt"


def test_the_first_shipped_network_gives_the_outputs_recorded_before_one_class_served_every_game():
    """The first ``awale16.pt`` loads with ``weights_only=True`` into :class:`RingNet` built from the game's data and
    computes what the two-colour game's own network class computed (outputs recorded from it)."""
    from agents.alphazero import pretrained_path

    payload = torch.load(FIRST_NETWORK, map_location="cpu", weights_only=True)
    net = RingNet(NetworkConfig(**payload["network"], game="awale16")).eval()  # shipped before the others existed
    net.load_state_dict(payload["state_dict"])  # strict: the same parameters under the same names
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(OUTPUTS["awale16.obs"]))
    np.testing.assert_allclose(logits.numpy(), OUTPUTS["awale16.logits"], **OUTPUTS_TOLERANCE)
    np.testing.assert_allclose(values.numpy(), OUTPUTS["awale16.value"], **OUTPUTS_TOLERANCE)
    assert load_network(pretrained_path()).config.game == "awale16"  # the default game's, found by its name


def test_the_old_network_name_still_imports():
    from agents import alphazero

    with pytest.warns(DeprecationWarning, match="AwaleNet is RingNet"):
        assert alphazero.AwaleNet is RingNet


def test_the_shipped_network_loads_and_plays():
    from agents import AlphaZeroAgent, make
    from agents.alphazero import pretrained_path

    assert pretrained_path().stat().st_size < 4_000_000
    agent = make("alphazero:pretrained,simulations=16")
    assert agent.name == "alphazero:pretrained"
    state = State.initial()
    assert state.is_legal(agent.act(state))
    assert AlphaZeroAgent.load(simulations=16).act(state) == agent.act(state)
    for seed in (-1, "x", True):  # checked as every agent's seed is
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            agent.reset(seed)


# --- the one-game agent's speed: folded forward pass, leaf batches, warm-up ---------------------------------------


def test_folded_evaluator_matches_the_network_at_every_batch_size():
    """The buffers a FoldedNet keeps between calls grow and shrink with the batch without mixing calls up, and the
    arrays it returns are the caller's."""
    net = RingNet(NetworkConfig(channels=8, blocks=2, value_hidden=8, game="awale16")).eval()
    obs = np.stack([s.observation_tensor() for s in random_states(40, seed=6)])
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(obs))
    evaluate = make_evaluator(net)
    first_logits, first_values = evaluate(obs[:3])
    for size in (40, 1, 8, 40):
        got_logits, got_values = evaluate(obs[:size])
        np.testing.assert_allclose(got_logits, logits.numpy()[:size], atol=1e-5)
        np.testing.assert_allclose(got_values, values.numpy()[:size], atol=1e-5)
    np.testing.assert_allclose(first_logits, logits.numpy()[:3], atol=1e-5)
    np.testing.assert_allclose(first_values, values.numpy()[:3], atol=1e-5)


#: The moves of ``AlphaZeroAgent(simulations=300, leaves=1)`` with :data:`FIRST_NETWORK` from ``random_states(8,
#: seed=16, plies=(0, 60))``, recorded with the torch-module forward pass the folded one replaced.
RECORDED_MOVES = [4, 2, 3, 28, 19, 20, 26, 26]


def test_the_agent_at_one_leaf_per_call_plays_the_moves_recorded_before_the_faster_forward_pass():
    from agents.alphazero import AlphaZeroAgent

    agent = AlphaZeroAgent(path=str(FIRST_NETWORK), simulations=300, leaves=1)
    assert [agent.act(state) for state in random_states(8, seed=16, plies=(0, 60))] == RECORDED_MOVES


def check_tree(search: BatchedSearch, g: int, node: int, state: State) -> int:
    """Walk game ``g``'s tree from ``node`` (``state``'s position): every expanded node's children are exactly the
    legal moves, no virtual loss is left (a node's visits are its own evaluation plus its children's) and no leaf is
    still waiting for the network. Returns the number of nodes seen."""
    first, count = int(search.child_first[g, node]), int(search.child_count[g, node])
    assert search.terminal[g, node] != 2
    if first < 0:
        return 1
    children = range(first, first + count)
    assert [int(search.move[g, child]) for child in children] == state.legal_actions()
    assert search.visits[g, node] == 1 + search.visits[g, first : first + count].sum()
    return 1 + sum(check_tree(search, g, child, state.play(int(search.move[g, child]))) for child in children)


@pytest.mark.parametrize("leaves", [8, 64])
def test_virtual_loss_never_selects_an_illegal_move(leaves):
    """Many leaves per call, even more than a position has moves (one or two legal moves among them): the trees
    hold legal moves only and every virtual loss is taken back."""
    states = [starving_win(), *(s for s in random_states(60, seed=9, plies=(40, 140)) if len(s.legal_actions()) < 3)]
    assert len(states) >= 4 and min(len(s.legal_actions()) for s in states) == 1
    search = BatchedSearch(len(states), SearchConfig(simulations=150, leaves=leaves))
    counts, _ = search.run_states(states, make_evaluator(RingNet(TINY)))
    for g, state in enumerate(states):
        assert counts[g].sum() == 150 and not counts[g][~state.legal_mask()].any()
        assert check_tree(search, g, 0, state) == search.num_nodes[g]


def test_the_agent_is_deterministic_for_a_leaf_batch():
    from agents.alphazero import AlphaZeroAgent

    state = random_states(1, seed=17, plies=(10, 30))[0]
    first = AlphaZeroAgent(pretrained=True, simulations=200, leaves=8)
    counts = first.policy(state)
    assert counts.sum() == 200
    np.testing.assert_array_equal(first.policy(state), counts)
    np.testing.assert_array_equal(AlphaZeroAgent(pretrained=True, simulations=200, leaves=8).policy(state), counts)


#: Builds the timed agent in a fresh process, then reports how many compiled kernels its first move loaded or
#: compiled (none: the agent warmed up when it was built) and how many simulations it ran.
FIRST_TIMED_MOVE = """
import json
from kernel_loads import kernels_loaded
from agents import make
from awale_env import State

agent = make("alphazero:pretrained,time=0.5")
state = State.initial().play(4)
before = kernels_loaded()
agent.act(state)
print(json.dumps({"compiled": kernels_loaded() - before, "simulations": agent.last_simulations}))
"""


def test_a_timed_agent_spends_its_first_move_searching():
    """The first move of a fresh process loads no compiled kernel (the agent warmed up when it was built): its time
    is all search (counted in kernels, not in seconds, which a busy machine stretches)."""
    from nojit import run_python

    first = run_python(FIRST_TIMED_MOVE, jit=True)
    assert first["compiled"] == 0
    assert first["simulations"] > 8


@pytest.mark.parametrize("simulations", [1, 2, 3, 5, 8, 16])
def test_a_short_search_breaks_ties_in_visits_by_the_prior(simulations):
    """With fewer simulations than moves, many moves are visited once: the agent plays the one of highest prior
    among the most visited, not the lowest action (which ``alphazero:pretrained,simulations=8`` used to play)."""
    from agents.alphazero import AlphaZeroAgent

    for state in random_states(6, seed=21, plies=(4, 30)):
        agent = AlphaZeroAgent(pretrained=True, simulations=simulations)
        move = agent.act(state)
        counts, legal = agent.policy(state), state.legal_actions()
        prior = agent.search.prior[0, 1 : 1 + len(legal)]
        most = [i for i in range(len(legal)) if counts[legal[i]] == counts[legal].max()]
        assert move == legal[max(most, key=lambda i: prior[i])]
        if simulations == 1:
            assert move == legal[int(np.argmax(prior))]
