"""The Gymnasium env's opponent: a policy object or a callable is used as it is; a spec string is resolved through
the ``awale_env.opponents`` entry points (the agents package installs ``agents.registry:opponent_policy``), so
``awale_env`` never imports ``agents``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import gymnasium
import pytest

import awale_env  # noqa: F401  (registers the environments)
from agents import AgentSpecError, GreedyAgent
from agents.alphabeta import AlphaBetaAgent
from agents.registry import opponent_policy
from awale_env import gym_env
from awale_env.games import DEFAULT_GAME, get_game
from awale_env.gym_env import OPPONENT_PROVIDERS, AwaleEnv
from awale_env.vector import AwaleVectorEnv


class LastLegal:
    """A policy object: the last legal action, remembering the States it was asked about."""

    name = "last-legal"

    def __init__(self) -> None:
        self.asked: list[Any] = []

    def act(self, state: Any) -> int:
        self.asked.append(state)
        return state.legal_actions()[-1]


def test_a_policy_object_is_used_as_it_is():
    policy = LastLegal()
    env = gymnasium.make("awale_env/Awale-v0", opponent=policy, learner_seat=1)
    env.reset(seed=0)
    assert env.unwrapped.opponent.agent is policy and len(policy.asked) == 1
    first = policy.asked[0]
    assert first.ply == 0 and env.unwrapped.game.to_dict() == first.play(first.legal_actions()[-1]).to_dict()


def test_a_callable_is_used_as_it_is_in_every_env():
    plies = []

    def first_legal(state: Any) -> int:
        plies.append(state.ply)
        return state.legal_actions()[0]

    env = gymnasium.make("awale_env/Oware-v0", opponent=first_legal, learner_seat=1)
    env.reset(seed=0)
    assert env.unwrapped.opponent.agent is first_legal and plies == [0]
    env.step(int(env.unwrapped.action_masks().argmax()))
    assert plies == [0, 2]
    vec = AwaleVectorEnv(3, opponent=first_legal, learner_seat=1)
    vec.reset(seed=0)
    assert all(opponent.agent is first_legal for opponent in vec.opponents) and plies[2:] == [0, 0, 0]


@pytest.mark.parametrize(("spec", "kind"), [("greedy", GreedyAgent), ("alphabeta:depth=2", AlphaBetaAgent)])
def test_spec_strings_are_built_by_the_agents_entry_point(spec, kind):
    env = gymnasium.make("awale_env/Awale-v0", opponent=spec, learner_seat=1)
    env.reset(seed=3)
    assert isinstance(env.unwrapped.opponent.agent, kind) and env.unwrapped.game.ply == 1
    vec = AwaleVectorEnv(2, opponent=spec)
    first, second = (opponent.agent for opponent in vec.opponents)
    assert isinstance(first, kind) and first is not second  # one agent per game


def test_a_bad_spec_names_the_known_agents():
    with pytest.raises(AgentSpecError, match="unknown agent 'nobody' in spec 'nobody'; known agents") as error:
        AwaleEnv(opponent="nobody")
    assert "greedy: " in str(error.value)
    with pytest.raises(AgentSpecError, match="agent 'alphabeta' has no parameter 'width'"):
        gymnasium.make("awale_env/Hawalis-v0", opponent="alphabeta:width=2")


def test_an_agent_that_does_not_play_the_game_is_refused_up_front():
    pytest.importorskip("torch")
    with pytest.raises(AgentSpecError, match="plays awale16, awale16_2025 only, not 'oware'"):
        opponent_policy("alphazero:pretrained", get_game("oware"))
    assert opponent_policy("greedy:seed=1", get_game(DEFAULT_GAME)).name == "greedy"


class Provider:
    """A stand-in for an installed entry point of the opponents' group."""

    def __init__(self, name: str, build: Callable[[str, Any], Any]) -> None:
        self.name = name
        self.group = OPPONENT_PROVIDERS
        self.module = __name__  # where the builder lives, as an entry point says
        self.value = f"{__name__}:{build.__name__}"
        self.dist = None
        self._build = build

    def load(self) -> Callable[[str, Any], Any]:
        return self._build


def refuse(spec: str, game: Any) -> Any:
    raise ValueError(f"no {spec} here")


def test_providers_are_tried_in_name_order_and_their_refusals_reported(monkeypatch):
    policy = LastLegal()
    providers = [Provider("b", lambda spec, game: policy), Provider("a", refuse)]
    monkeypatch.setattr(gym_env, "entry_points", lambda group: [p for p in providers if p.group == group])
    assert AwaleEnv(opponent="mine", game="hawalis").opponent.agent is policy
    providers[0] = Provider("b", refuse)
    with pytest.raises(ValueError, match="^a: no mine here; b: no mine here$"):
        AwaleEnv(opponent="mine")
    monkeypatch.setattr(gym_env, "entry_points", lambda group: [])
    with pytest.raises(ValueError, match="no package that builds opponents from one is installed"):
        AwaleEnv(opponent="greedy")
    assert AwaleEnv(opponent=policy).opponent.agent is policy  # objects need no provider


def test_the_environments_do_not_import_the_agents():
    code = (
        "import sys, gymnasium, awale_env\n"
        "env = gymnasium.make('awale_env/Awale-v0', opponent=lambda state: state.legal_actions()[0])\n"
        "env.reset(seed=0)\n"
        "env.step(int(env.unwrapped.action_masks().argmax()))\n"
        "packages = ('agents', 'competition', 'training', 'awale_apps')\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in packages))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_users_agents_folder_is_named_instead_of_a_deep_import_error(tmp_path):
    """A folder called ``agents`` in the working directory (or beside the script) comes first on ``sys.path`` and
    hides the installed package: a spec string then fails with one clear line; an opponent object still works."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("# the user's own agents\n")
    script = tmp_path / "train.py"
    script.write_text(
        "import gymnasium, awale_env\n"
        "env = gymnasium.make('awale_env/Awale-v0', opponent=lambda state: state.legal_actions()[0])\n"
        "env.reset(seed=0)\n"
        "print('object: ok', flush=True)\n"
        "gymnasium.make('awale_env/Awale-v0', opponent='greedy')\n"
    )
    for folder in ("with __init__.py", "without"):
        if folder == "without":
            (tmp_path / "agents" / "__init__.py").unlink()
        for script_path, cwd in (("train.py", tmp_path), (str(script), tmp_path.parent)):
            done = subprocess.run([sys.executable, script_path], cwd=cwd, capture_output=True, text=True, timeout=300)
            assert done.returncode == 1 and done.stdout == "object: ok\n", done.stderr
            assert done.stderr.strip().splitlines()[-1] == (
                "ImportError: cannot load the opponents of awale_env (agents.registry:opponent_policy): Python "
                f"imports 'agents' from {tmp_path / 'agents'}, which hides the installed package 'agents'; rename it, "
                "or run Python from another directory (or pass an opponent object instead of the spec string)"
            ), folder
