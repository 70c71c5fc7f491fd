"""AlphaZero self-play and the arena on Ray actors (``--backend ray``): the same results as the local backends, a lost
actor replaced with its work done again and said, weights that travel through the object store, not the disk."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import ray
import torch

from agents.alphazero.agent import pretrained_path
from agents.alphazero.network import build_network
from agents.registry import format_spec
from competition import arena
from competition.ray_backend import (
    PY_MODULES,
    TOOLKIT_PACKAGES,
    Actors,
    ActorStartError,
    TaskActor,
    run_jobs,
    run_tasks,
    runtime_env,
    ship_weights,
)
from competition.store import FAULT_KINDS, open_store
from competition.tournament import (
    PlayersError,
    PlayerSpec,
    TournamentSettings,
    load_players,
    make_program_tasks,
    run_tournament,
)
from training.alphazero.ray_selfplay import RaySelfPlayPool
from training.alphazero.trainer import AlphaZeroConfig, SelfPlayPool

ROOT = Path(__file__).resolve().parents[2]

#: Games that end at the ply limit within one generation, so that every generation yields samples.
TINY = dict(
    games_per_worker=4,
    moves_per_generation=12,
    max_plies=12,
    simulations=8,
    channels=8,
    blocks=1,
    value_hidden=8,
    reference_every=0,
)


def test_self_play_actor_plays_as_the_local_worker_and_survives_its_loss(local_ray, tmp_path, capsys):
    torch.manual_seed(0)
    config = AlphaZeroConfig(run_dir=str(tmp_path), workers=1, backend="ray", **TINY)
    net = build_network(config.network_config()).eval()
    pool = RaySelfPlayPool(config, start_generation=0)
    try:
        pool.start(net)
        samples, stats = pool.collect()
        local = SelfPlayPool(AlphaZeroConfig(run_dir=str(tmp_path), workers=0, **TINY), start_generation=0)
        local.start(net)
        expected, expected_stats = local.collect()
        local.close()
        assert stats["games"] == expected_stats["games"] == 4
        for field in ("obs", "policy", "value"):
            assert np.array_equal(getattr(samples, field), getattr(expected, field))

        assert stats["actors_replaced"] == stats["games_restarted"] == 0

        ray.kill(pool.actors.handles[0])
        pool.start(net)
        samples, stats = pool.collect()
        assert pool.replaced == 1
        assert stats["games"] == 4 and len(samples) == 4 * 12
        assert stats["actors_replaced"] == 1 and stats["games_restarted"] == 4  # columns of metrics.csv
        (line,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("ray: ")]
        assert "self-play actor 0 lost" in line and "its 4 games restart from new openings" in line
    finally:
        pool.close()


def test_arena_match_on_ray_is_the_local_match(local_ray):
    specs = ["random", "greedy"]
    local = arena.round_robin(specs, games_per_pair=4, seed=1, progress=False)
    on_ray = arena.round_robin(specs, games_per_pair=4, seed=1, workers=2, backend="ray", progress=False)
    assert on_ray.games == local.games


def test_arena_game_of_a_lost_actor_is_played_again(local_ray, capsys):
    tasks = arena.make_tasks(["random", "greedy"], 4, seed=2, opening_plies=2, max_plies=None)
    actors = Actors(lambda _: TaskActor.remote(), 2, "arena actor")
    ray.kill(actors.handles[0])
    again = []

    def redo(task: arena.GameTask) -> str:
        again.append(task.index)
        return "played again"

    results = run_jobs(actors, lambda handle, task: handle.play.remote(task), tasks, pinned=False, redo=redo)
    actors.kill()
    assert actors.replaced == 1 and again == [0]
    assert results == [arena.run_task(task) for task in tasks]
    (line,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("ray: ")]
    assert line.startswith("ray: arena actor 0 lost (") and line.endswith("replaced by a new actor, played again")


def test_tournament_on_ray_plays_programs_and_agents_into_the_store(local_ray, tmp_path):
    """``awale tournament --backend ray``: tournament games (a course program through ``awale bot``, two agents) on
    Ray actors, each recorded in the store as it ends; the agents' games are those of a local run."""
    players = tmp_path / "players.toml"
    bot = f"{sys.executable} -m awale_apps bot --game awale16 --agent greedy --seed 1"
    players.write_text(
        f'[[player]]\nname = "bot"\ncommand = "{bot}"\n\n[[player]]\nname = "random"\nagent = "random"\n\n'
        '[[player]]\nname = "greedy"\nagent = "greedy"\n'
    )
    settings = TournamentSettings("awale16", games_per_pair=2, seconds=30, startup=120)
    results = {}
    for backend in ("process", "ray"):
        with open_store(tmp_path / f"{backend}.db", write=True) as store:
            run_tournament(store, load_players(players, "awale16"), settings, workers=2, backend=backend,
                           progress=False)  # fmt: skip
            results[backend] = [(g.players, g.winner, g.scores, g.plies) for g in store.games()]
    assert len(results["ray"]) == 6
    agents_only = [i for i, game in enumerate(results["process"]) if "bot" not in game[0]]
    assert [results["ray"][i] for i in agents_only] == [results["process"][i] for i in agents_only]


def test_arena_actors_play_with_weights_shipped_after_the_files_are_gone(local_ray, tmp_path):
    """A cluster shares no disk with the driver: the driver reads an agent's weights file once, and the actors (a
    replacement too) build the agent from the object store, the file deleted before any actor started. The folder is
    named as Tune names a trial's, so the spec quotes its path."""
    network = tmp_path / "PPO_RLlibGameEnv_00000_0_entropy_coeff=0.0100,lr=0.0003" / "best.pt"
    network.parent.mkdir()
    shutil.copy(pretrained_path(), network)
    spec = format_spec("alphazero", {"path": str(network), "simulations": 4})
    tasks = arena.make_tasks([spec, "greedy"], 4, seed=3, opening_plies=2, max_plies=60)
    local = [arena.run_task(task) for task in tasks]
    players = [PlayerSpec("network", "agent", spec), PlayerSpec("greedy", "agent", "greedy")]
    games = make_program_tasks(players, TournamentSettings("awale16", max_plies=60, games_per_pair=2, seconds=30))
    local_games = [
        (game.report.winner, game.report.scores, game.report.plies) for game in (task.play() for task in games)
    ]

    weights = ship_weights(tasks)
    tournament_weights = ship_weights(games)  # a tournament's agents too
    assert set(ray.get(weights)) == set(ray.get(tournament_weights)) == {spec}
    shutil.rmtree(network.parent)
    actors = Actors(lambda _: TaskActor.remote(weights), 2, "arena actor")
    ray.kill(actors.handles[1])  # its replacement builds the agent from the object store too
    try:
        results = run_jobs(actors, lambda handle, task: handle.play.remote(task), tasks, pinned=False)
        played = run_jobs(actors, lambda handle, task: handle.play.remote(task), games, pinned=False)
    finally:
        actors.kill()
    assert actors.replaced == 1
    assert results == local
    assert [(game.report.winner, game.report.scores, game.report.plies) for game in played] == local_games


def start_cluster(head_cpus: int):
    """A ``ray.cluster_utils.Cluster`` of one head of ``head_cpus`` CPUs (a second raylet on this machine is added by
    the test), started again when Ray's 30 s for a new node to register run out on a busy machine."""
    from ray.cluster_utils import Cluster

    head = {"num_cpus": head_cpus, "include_dashboard": False}
    for _ in range(2):
        try:
            return Cluster(initialize_head=True, head_node_args=head)
        except Exception as error:  # Ray's own "The current node timed out during startup"
            if "timed out during startup" not in str(error):
                raise
    return Cluster(initialize_head=True, head_node_args=head)


@pytest.mark.parametrize("node_joins", [True, False], ids=["a node joins", "no node joins"])
def test_arena_survives_the_loss_of_a_node(capsys, node_joins):
    """Two nodes of one CPU each (a second raylet on this machine), an actor on each; the worker node is removed:
    the lost actor is replaced on a node that joins, or, with none, waits for a CPU while the other actor plays its
    game too; the results are the local ones either way."""
    tasks = arena.make_tasks(["random", "greedy"], 8, seed=4, opening_plies=2, max_plies=None)
    local = [arena.run_task(task) for task in tasks]
    cluster = start_cluster(head_cpus=1)
    worker = cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address)
    actors = None
    try:
        actors = Actors(lambda _: TaskActor.remote(), 2, "arena actor")
        ray.get([handle.play.remote(tasks[0]) for handle in actors.handles])  # both placed: one on each node
        cluster.remove_node(worker)
        if node_joins:
            cluster.add_node(num_cpus=1)  # the replacement's CPU
        results = run_jobs(actors, lambda handle, task: handle.play.remote(task), tasks, pinned=False)
        assert actors.replaced == 1
        assert results == local
        (line,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("ray: arena actor")]
        waits = "; a new actor takes its place once a CPU is free (none is now), "  # the truth when no node joins
        assert ("; replaced by a new actor, " in line) == node_joins and (waits in line) != node_joins
    finally:
        if actors is not None:
            actors.kill()
        ray.shutdown()
        cluster.shutdown()


def test_a_fresh_actor_warms_its_agents_up_before_their_first_timed_move(local_ray):
    """On Ray, in-process agents lost their first games on time (56-60 s compiling in a fresh actor): an actor builds
    and warms up a tournament's agents before the first move of its first game with them, and once only."""
    players = [PlayerSpec("ab", "agent", "alphabeta:depth=3"), PlayerSpec("greedy", "agent", "greedy")]
    games = make_program_tasks(players, TournamentSettings("awale16_2025", games_per_pair=2, seconds=3.0, startup=0))
    actor = TaskActor.remote()
    try:
        first, second = (ray.get(actor.play.remote(task)) for task in games)
    finally:
        ray.kill(actor)
    assert [spec for spec, _ in first.warm_ups] == [player.spec for player in games[0].players]
    assert second.warm_ups == [] and first.report.faulty is None and second.report.faulty is None


@pytest.fixture
def two_nodes():
    """A cluster of two raylets on this machine: a head that offers no CPU (the driver's node), to which the test
    adds a node; Ray and the cluster are shut down after the test."""
    cluster = start_cluster(head_cpus=0)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_a_node_without_the_toolkit_stops_the_run_in_one_line_naming_it(two_nodes, without_toolkit, capsys):
    """The actors placed on a node where the toolkit is not installed (and no runtime env ships it) cannot import
    their class: the arena and self-play stop at the first one, in one line naming the node and the way out, rather
    than replacing it for ever."""
    node = two_nodes.add_node(num_cpus=1, env_vars=without_toolkit)
    ray.init(address=two_nodes.address)
    tasks = arena.make_tasks(["random", "greedy"], 2, seed=4, opening_plies=2, max_plies=None)
    with pytest.raises(ActorStartError) as raised:
        run_tasks(tasks, 1, None)
    node_name = f"node {node.node_ip_address} (node ID {node.node_id})"
    assert str(raised.value).startswith(f"arena actor 0 cannot start on {node_name}: ModuleNotFoundError: No module ")
    assert "--runtime-env" in str(raised.value) and "\n" not in str(raised.value)
    config = AlphaZeroConfig(workers=1, backend="ray", **TINY)
    pool = RaySelfPlayPool(config, 0)
    try:
        pool.start(build_network(config.network_config()))
        with pytest.raises(ActorStartError, match=f"^self-play actor 0 cannot start on node {node.node_ip_address} "):
            pool.collect()
    finally:
        pool.close()
    assert pool.replaced == 0 and "ray: " not in capsys.readouterr().err  # nothing replaced


@pytest.mark.parametrize("installed", [True, False], ids=["toolkit installed", "toolkit not installed"])
def test_a_tournament_of_bot_programs_runs_on_the_documented_py_modules(
    two_nodes, without_toolkit, tmp_path, monkeypatch, installed
):
    """docs/distributed.md's runtime env ships every package of the toolkit (``awale bot``, which a tournament's
    programs run, is in ``awale_apps``): on a node without the toolkit the bot imports the shipped packages, and on a
    node with it installed it takes them for the toolkit's own, not for a folder hiding the installed one."""
    assert f"--runtime-env '{PY_MODULES}'" in (ROOT / "docs" / "distributed.md").read_text()
    pyproject = (ROOT / "pyproject.toml").read_text()  # every package the distribution installs
    (installed,) = re.findall(r"^include = \[(.*)\]$", pyproject, flags=re.MULTILINE)
    assert set(TOOLKIT_PACKAGES) == {name.rstrip("*") for name in re.findall(r'"([^"]+)"', installed)}
    two_nodes.add_node(num_cpus=1, **({} if installed else {"env_vars": without_toolkit}))
    monkeypatch.chdir(ROOT)  # the recipe names the packages from the repository's root
    ray.init(address=two_nodes.address, runtime_env=runtime_env(PY_MODULES))
    players = tmp_path / "players.toml"
    bot = f"{sys.executable} -m awale_apps bot --game awale16 --agent greedy --seed 1"
    players.write_text(f'[[player]]\nname = "bot"\ncommand = "{bot}"\n\n[[player]]\nname = "rand"\nagent = "random"\n')
    settings = TournamentSettings("awale16", games_per_pair=2, seconds=30, startup=120)
    with open_store(tmp_path / "t.db", write=True) as store:
        run_tournament(store, load_players(players, "awale16"), settings, workers=1, backend="ray", progress=False,
                       logs=tmp_path / "logs")  # fmt: skip
        games = store.games()
    assert len(games) == 2 and not [game for game in games if game.end_reason in FAULT_KINDS]
    for log in (tmp_path / "logs").glob("*bot*"):
        assert "error" not in log.read_text(), log.read_text()


def test_a_failed_preparation_on_an_actor_is_the_players_error_of_the_process_pool(local_ray, tmp_path):
    """A program's ``prepare`` command runs in each actor before its first game there; when it fails the driver raises
    the same PlayersError as with worker processes (one line in the CLI), not Ray's wrapping of it."""
    prepare = f"{sys.executable} -c \"import sys; sys.exit('no engine here')\""
    path = tmp_path / "players.toml"
    path.write_text(f'[[player]]\nname = "p"\ncommand = "true"\nprepare = {json.dumps(prepare)}\n\n'
                    '[[player]]\nname = "g"\nagent = "greedy"\n')  # fmt: skip
    settings = TournamentSettings("awale16_2025", games_per_pair=2)
    with open_store(tmp_path / "t.db", write=True) as store, pytest.raises(PlayersError) as error:
        run_tournament(store, load_players(path, "awale16_2025"), settings, backend="ray", progress=False)
    assert str(error.value).startswith("player 'p': its preparation") and "no engine here" in str(error.value)
    assert "\n" not in str(error.value)
