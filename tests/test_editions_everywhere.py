"""The course editions (issue 14) in every part of the toolkit, on tiny configurations: PPO and AlphaZero training and
their agents, ``awale play`` driven through standard input, the web page's JSON API, game records and pictures."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cli_runner import play_verdict
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agents import make
from awale_apps.cli import app
from awale_apps.cli.play import prompt
from awale_apps.web.app import create_app
from awale_env import GameRecord, RecordError
from awale_env.games import get_game

EDITIONS = ("awale16_2023", "awale16_2024", "awale16_2025")


def random_game(name: str, seed: int, max_plies: int | None = None) -> tuple[list[int], object]:
    """The actions of a random game of ``name`` (its default ply limit unless ``max_plies``) and its last State."""
    game = get_game(name)
    state = game.initial() if max_plies is None else game.initial(max_plies=max_plies)
    rng, actions = random.Random(seed), []
    while not state.is_terminal:
        actions.append(rng.choice(state.legal_actions()))
        state = state.play(actions[-1])
    return actions, state


def play_out(agent, name: str, max_plies: int) -> None:
    """``agent`` plays both sides of a game of ``name``; every move must be legal."""
    state = get_game(name).initial(max_plies=max_plies)
    while not state.is_terminal:
        action = agent.act(state)
        assert state.legal_mask()[action], (name, state.ply, action)
        state = state.play(action)


def test_ppo_trains_on_the_2025_edition_with_its_rules_move_limit_and_its_agent_plays_it(tmp_path, capsys):
    """The 2025 edition has no ply limit of its own (``max_plies`` None): only its 400-move rule ends a game."""
    pytest.importorskip("sb3_contrib")
    from training.ppo import trainer as ppo_trainer

    run = tmp_path / "run"
    ppo_trainer.main(["--game", "awale16_2025", "--run-dir", str(run), "--total-timesteps", "256", "--n-envs", "2",
                       "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "16",
                       "--eval-every", "256", "--eval-games", "2", "--eval-opponents", "random",
                       "--checkpoint-every", "256", "--no-progress"])  # fmt: skip
    assert "final checkpoint" in capsys.readouterr().out
    agent = make(f"ppo:path={run / 'checkpoints' / 'last.zip'}", seed=0)
    assert agent.games == ("awale16_2025",)
    play_out(agent, "awale16_2025", max_plies=60)


@pytest.mark.parametrize("name", ["awale16_2023", "awale16_2024"])
def test_ppo_trains_on_the_other_editions(tmp_path, name):
    pytest.importorskip("sb3_contrib")
    from training.ppo.trainer import Args, train

    args = Args(run_dir=str(tmp_path / "run"), game=name, total_timesteps=128, n_envs=2, n_steps=64, batch_size=64,
                n_epochs=1, net_arch=(16,), eval_every=128, eval_games=2, eval_opponents=("random",),
                checkpoint_every=128, progress=False)  # fmt: skip
    play_out(make(f"ppo:path={train(args)}", seed=0), name, max_plies=40)


@pytest.mark.parametrize("name", EDITIONS)
def test_alphazero_trains_on_each_edition_and_its_agent_plays_it(tmp_path, name):
    pytest.importorskip("torch")
    import tyro

    from training.alphazero.trainer import AlphaZeroConfig, train

    args = [
        "--game", name, "--channels", "8", "--blocks", "1", "--value-hidden", "8", "--simulations", "4",
        "--games-per-worker", "4", "--moves-per-generation", "21", "--max-plies", "20", "--min-replay", "8",
        "--batch-size", "8", "--sample-reuse", "0.2", "--gate-every", "2", "--reference-every", "0", "--workers", "0",
        "--no-progress", "--generations", "2", "--run-dir", str(tmp_path / "run"),
    ]  # fmt: skip
    train(tyro.cli(AlphaZeroConfig, args=args))
    play_out(make(f"alphazero:path={tmp_path / 'run' / 'best.pt'},simulations=8"), name, max_plies=40)


@pytest.mark.parametrize("name", EDITIONS)
def test_awale_play_through_standard_input(name):
    """Bad input is explained, ``undo`` takes back a move, and a stream of moves plays a game to its end."""
    game = get_game(name)
    own_moves = [game.format_move(action) for action in game.initial().legal_actions()]
    lines = ["3X", own_moves[5], "undo", *own_moves * 30]
    result = CliRunner().invoke(app, ["play", "--game", name, "--opponent", "random:seed=1", "--max-plies", "30"],
                                input="\n".join(lines) + "\n")  # fmt: skip
    out = result.output
    assert result.exit_code == 0, out
    assert prompt(game) in out and "malformed move '3X'" in out
    assert out.count(f"last move {own_moves[5]}") >= 1 and "Traceback" not in out
    assert "game over" in out and out.strip().splitlines()[-1] == play_verdict(out, 0, "random")
    colours = "red blue transparent" if game.num_actions == 64 else "red blue"
    assert f"each hole: {colours}" in out


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(max_games=4, max_think_seconds=0.5)) as client:
        yield client


@pytest.mark.parametrize(("name", "rules", "move"), [
    ("awale16_2023", {}, "3TB"),
    ("awale16_2024", {}, "3B"),
    ("awale16_2025", {"end_at_both_40": True}, "3tb"),
])  # fmt: skip
def test_the_web_api_creates_an_edition_game_and_plays_a_move(client, name, rules, move):
    response = client.post("/api/games", json={"game": name, "rules": rules, "opponent": "greedy", "seat": 0})
    assert response.status_code == 201, response.text
    created = response.json()
    assert (created["game"], created["rules"], created["status"]) == (name, rules, "your_turn")
    response = client.post(f"/api/games/{created['id']}/moves", json={"move": move})
    assert response.status_code == 200, response.text
    played = response.json()
    first, reply = played["moves"]
    assert (first["move"], first["by"], reply["by"], played["status"]) == (move.upper(), "you", "opponent", "your_turn")
    state = get_game(name).state_type.from_dict(played["state"])
    expected = get_game(name).initial(**rules).play(move).play(reply["move"])
    assert state == expected and played["stores"] == list(expected.stores)
    assert played["record"].splitlines()[1] == f"{move.upper()} {reply['move']}"
    refused = client.post(f"/api/games/{created['id']}/moves", json={"move": "2R"})
    assert refused.status_code == 400 and "hole 2 belongs to player 1" in refused.json()["error"]


@pytest.mark.parametrize("name", EDITIONS)
def test_records_of_an_edition_replay_as_text_and_json(tmp_path, name):
    actions, final = random_game(name, seed=4)
    record = GameRecord(actions, game=name)
    assert record.max_plies == get_game(name).default_max_plies
    for path in (tmp_path / "game.txt", tmp_path / "game.json"):
        record.save(path)
        loaded = GameRecord.load(path)
        assert (loaded.game, loaded.moves) == (name, actions)
        assert loaded.final_state() == final and loaded.final_state().end_reason == final.end_reason
    game = get_game(name)
    assert record.to_text().split()[2:5] == [game.format_move(a) for a in actions[:3]]
    bad = "3TB" if name == "awale16_2024" else "2R"
    with pytest.raises(RecordError, match=f"ply 1: .*{bad}"):
        GameRecord.from_text(f"{name} max_plies=none\n{bad}\n")


@pytest.mark.parametrize("name", EDITIONS)
def test_pictures_of_an_edition_draw_each_colour_of_its_seeds(name):
    from awale_env.games.editions.render import ANSI, RGB

    game = get_game(name)
    colours = ("red", "blue", "transparent") if game.num_actions == 64 else ("red", "blue")
    actions, _ = random_game(name, seed=5, max_plies=12)
    state = game.initial()
    for action in actions[:-1]:
        state = state.play(action)
    image = game.render_rgb(state, actions[-2])
    assert image.dtype == np.uint8 and image.shape[2] == 3
    for colour, rgb in RGB.items():
        assert (image == rgb).all(axis=2).any() == (colour in colours), colour
    text = game.render_ansi(state, actions[-2])
    assert all(ANSI[colour] in text for colour in colours) and f"last move {game.format_move(actions[-2])}" in text
    top_cells = text.splitlines()[1]
    assert top_cells.count("\x1b[0m") == 8 * len(colours)  # every hole shows a count of each colour
