"""The contract every game of the registry keeps, checked the way OpenSpiel's random-simulation test and pgx's API test
check theirs: :func:`check_game` plays random games through a game's State API, its notation, its search kernels, the
PettingZoo, Gymnasium and vector environments, and its compiled code with numba switched off, and raises
AssertionError naming the game and what broke.

The project's tests run it on every registered game (tests/test_contract.py); a new game runs it before anything
else (docs/architecture.md). Only the public, game-neutral API is used: the :class:`~awale_env.games.base.Game`, its
State, ``awale_env.env(game=...)``, the ids named after ``game.title``, ``AwaleVectorEnv(game=...)``. ``games=`` says
how many random games each check plays, so a quick run stays quick.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from awale_env.errors import IllegalMoveError
from awale_env.games import Game, game_of, get_game

#: The checks :func:`check_game` runs, in order.
CHECKS = ("state_api", "notation", "records", "random_games", "search", "aec_env", "gym_env", "vector_env", "jit")
#: Moves that no game accepts.
NOT_MOVES = (None, 1.5, True, "", "not a move", [0])


def check_game(
    game: str | Game, *, games: int = 4, seed: int = 0, checks: Iterable[str] = CHECKS, **options: Any
) -> None:
    """Check that ``game`` (a registered name or a :class:`Game`) keeps the contract of every game; AssertionError
    says what it breaks.

    ``games``: random games each check plays (the time a check takes grows with it); ``seed``: where the random
    games start; ``checks``: a part of :data:`CHECKS`; ``options``: the game's rule flags, passed to every State
    and environment. What each check covers is in its function's docstring (``check_<name>``).
    """
    game = get_game(game)
    unknown = sorted(set(checks) - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown check(s) {', '.join(map(repr, unknown))}; the checks are {', '.join(CHECKS)}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    game.check_options(options, rule_flags_only=True)
    for name in CHECKS:
        if name in checks:
            _CHECKS[name](game, games, seed, options)


def _expect(condition: Any, game: Game, what: str) -> None:
    if not condition:
        raise AssertionError(f"{game.name}: {what}")


def _raises(call: Callable[[], Any], error: type[Exception], game: Game, what: str) -> None:
    try:
        call()
    except error:
        return
    except Exception as other:  # noqa: BLE001 - the wrong exception is the finding
        raise AssertionError(f"{game.name}: {what} raised {type(other).__name__}, not {error.__name__}") from other
    raise AssertionError(f"{game.name}: {what} raised no {error.__name__}")


def _random_game(game: Game, rng: np.random.Generator, options: dict[str, Any], max_plies: Any = "default") -> list:
    """The States of one game of uniformly random legal moves, from a seeded start to the end."""
    limit = game.ply_limit(max_plies)
    state = game.initial(max_plies=limit, seed=int(rng.integers(2**63)), **options)
    states = [state]
    while not state.is_terminal:
        legal = state.legal_actions()
        state = state.play(legal[int(rng.integers(len(legal)))])
        states.append(state)
    return states


def _random_games(game: Game, games: int, seed: int, options: dict[str, Any]) -> Iterator[list]:
    """``games`` random games, every other one with a short ply limit so that the limit ends some of them."""
    rng = np.random.default_rng(seed)
    for i in range(games):
        yield _random_game(game, rng, options, max_plies="default" if i % 2 == 0 else 12 + 7 * i)


# --- the State API --------------------------------------------------------------------------------------------------


def check_state_api(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """The State API on the positions of random games: the starting position and its ply limit; legal_actions ==
    flatnonzero(legal_mask) == the actions ``is_legal`` accepts; play by action, numpy integer and move string alike;
    illegal and malformed moves raise IllegalMoveError and leave the State unchanged; States never change (nor do
    the arrays they hand out); to_dict is JSON-safe and from_dict turns it back into an equal State; equality and
    hash; observation_tensor in ``game.observation_space()`` for both players; returns at the end; the game's
    pictures (``render_rgb``, ``render_ansi``)."""
    first = game.initial(**options)
    _expect(type(first) is game.state_type and game_of(first) is game, game, "initial() is not the game's State")
    _expect(first.ply == 0 and not first.is_terminal and first.returns() == (0.0, 0.0), game, "a fresh start")
    _expect(first.max_plies == game.default_max_plies, game, "initial() keeps the game's default ply limit")
    _expect(game.initial(max_plies=None, **options).max_plies is None, game, "max_plies=None is no limit")
    _expect(game.initial(max_plies=7, **options).max_plies == 7, game, "max_plies=7 is kept")
    _expect(game.end_reasons[0] is None and None not in game.end_reasons[1:], game, "end_reasons[0] is None only")
    space = game.observation_space()
    for states in _random_games(game, games, seed, options):
        for before, after in zip(states, states[1:]):
            _expect(after.ply == before.ply + 1 and after.to_move in (0, 1), game, "a move adds one ply")
        for index, state in enumerate(states):
            _check_position(game, state, space)
            if index % 5 == 0 or state.is_terminal:  # the costlier checks on a sample of positions
                _check_moves(game, state)
                _check_conversions(game, state)
                last = None if index == 0 else _move_between(states[index - 1], state)
                _check_pictures(game, state, last)


def _check_position(game: Game, state: Any, space: Any) -> None:
    mask = state.legal_mask()
    legal = state.legal_actions()
    _expect(mask.dtype == np.bool_ and mask.shape == (game.num_actions,), game, f"legal_mask {mask.dtype}{mask.shape}")
    _expect(legal == np.flatnonzero(mask).tolist(), game, f"legal_actions {legal} != flatnonzero(legal_mask)")
    _expect(legal == [a for a in range(game.num_actions) if state.is_legal(a)], game, "is_legal != legal_actions")
    _expect(state.end_reason in game.end_reasons, game, f"end reason {state.end_reason!r} not in end_reasons")
    _expect(state.is_terminal == (state.end_reason is not None) == (not legal), game, "terminal <=> no legal move")
    _expect(state.max_plies is None or state.ply <= state.max_plies, game, f"ply {state.ply} beyond the limit")
    stores = state.stores
    _expect(len(stores) == 2 and all(isinstance(s, int) for s in stores), game, f"stores {stores!r}")
    for player in (0, 1):
        obs = state.observation_tensor(player)
        _expect(obs.dtype == np.float32 and space.contains(obs), game, f"observation of player {player} not in space")
    default_view = np.array_equal(state.observation_tensor(), state.observation_tensor(state.to_move))
    _expect(default_view, game, "observation_tensor() is not the view of the player to move")
    _raises(lambda: state.observation_tensor(2), ValueError, game, "observation_tensor(2)")
    returns = state.returns()
    if state.is_terminal:
        _expect(sum(returns) == 0 and set(returns) <= {-1.0, 0.0, 1.0}, game, f"returns {returns} at the end")
        _expect(returns == (0.0, 0.0) if state.winner is None else returns[state.winner] == 1.0, game, "returns")
    else:
        _expect(returns == (0.0, 0.0) and state.winner is None, game, "a live game has no result yet")


def _check_moves(game: Game, state: Any) -> None:
    before = (state.to_dict(), hash(state))
    for action in state.legal_actions():
        child = state.play(action)
        text = game.format_move(action)
        _expect(type(child) is type(state) and child != state, game, f"play({action}) returns a new State")
        _expect(state.play(np.int64(action)) == child, game, f"play(np.int64({action})) differs from play({action})")
        try:
            by_text = state.play(text)
        except IllegalMoveError as error:
            raise AssertionError(f"{game.name}: play({text!r}), legal action {action}, raised: {error}") from error
        _expect(by_text == child and state.to_action(text) == action, game, f"play({text!r}) differs")
    illegal = [a for a in range(game.num_actions) if not state.is_legal(a)]
    for move in [*illegal, -1, game.num_actions, *NOT_MOVES]:
        _raises(lambda move=move: state.play(move), IllegalMoveError, game, f"play({move!r}) at ply {state.ply}")
    for action in illegal:
        _raises(lambda a=action: state.play(game.format_move(a)), IllegalMoveError, game, f"illegal move {action}")
    mask, obs = state.legal_mask(), state.observation_tensor(0)
    mask[:] = ~mask  # the caller's copies
    obs[:] = -1.0
    _expect((state.to_dict(), hash(state)) == before, game, "a State changed after play or an illegal move")
    _expect(not np.array_equal(state.legal_mask(), mask), game, "legal_mask hands out the State's own array")
    _expect(not np.array_equal(state.observation_tensor(0), obs), game, "observation_tensor hands out its array")


def _move_between(parent: Any, child: Any) -> int:
    """The action that leads from ``parent`` to ``child``."""
    return next(action for action in parent.legal_actions() if parent.play(action) == child)


def _check_pictures(game: Game, state: Any, last_action: int | None) -> None:
    """``render_rgb`` draws an RGB image, ``render_ansi`` a text, with or without the last move."""
    for last in (None, last_action):
        image = game.render_rgb(state, last)
        rgb = isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
        _expect(rgb, game, f"render_rgb draws no H x W x 3 uint8 image at ply {state.ply}")
        _expect(isinstance(game.render_ansi(state, last), str), game, f"render_ansi writes no text at ply {state.ply}")


def _check_conversions(game: Game, state: Any) -> None:
    data = state.to_dict()
    _expect(data.get("game") == game.name, game, f"to_dict()['game'] is {data.get('game')!r}")
    try:
        safe = json.loads(json.dumps(data)) == data
    except TypeError:
        safe = False
    _expect(safe, game, "to_dict() is not JSON-safe")
    again = game.state_type.from_dict(json.loads(json.dumps(data)))
    _expect(again == state and hash(again) == hash(state), game, "from_dict(to_dict()) is another State")
    _expect(again.to_dict() == data, game, "from_dict(to_dict()).to_dict() differs")
    _expect(state.clone() == state and state == state.clone(), game, "clone() equals the State")
    _expect(state != "a position" and state is not None, game, "a State equals a string")
    _raises(lambda: game.state_type.from_dict("not a dict"), ValueError, game, "from_dict('not a dict')")


# --- notation -------------------------------------------------------------------------------------------------------


def check_notation(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """format_move / parse_move round trip for every action, distinct texts, IllegalMoveError for what is no move."""
    texts = [game.format_move(action) for action in range(game.num_actions)]
    _expect(all(isinstance(text, str) and text for text in texts), game, "format_move writes non-empty strings")
    _expect(len(set(texts)) == game.num_actions, game, "two actions are written alike")
    for action, text in enumerate(texts):
        _expect(game.parse_move(text) == action, game, f"parse_move({text!r}) != {action}")
    for action in (-1, game.num_actions, True, 1.5, None, "0"):
        _raises(lambda a=action: game.format_move(a), IllegalMoveError, game, f"format_move({action!r})")
    for text in ("", "?", "not a move", f"{texts[-1]}{texts[-1]}", None, 3):
        _raises(lambda t=text: game.parse_move(t), IllegalMoveError, game, f"parse_move({text!r})")


# --- records --------------------------------------------------------------------------------------------------------


def check_records(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """Random games saved as game records (text and JSON, :class:`awale_env.GameRecord`) load back equal and replay
    to the same States. A record holds no rule flags: it replays the game's default rules from its seed-0 start, so
    ``options`` play no part here."""
    from awale_env.record import GameRecord

    rng = np.random.default_rng(seed)
    for i in range(games):
        max_plies = game.default_max_plies if i % 2 == 0 else 10 + i
        states, moves = [game.initial(max_plies=max_plies, seed=0)], []
        while not states[-1].is_terminal:
            legal = states[-1].legal_actions()
            moves.append(legal[int(rng.integers(len(legal)))])
            states.append(states[-1].play(moves[-1]))
        record = GameRecord(moves, max_plies, game=game.name)
        for text in (record.to_text(), record.to_json()):
            loaded = GameRecord.from_text(text)
            _expect(loaded == record, game, f"a record loads back as another record:\n{text}")
            _expect(loaded.replay() == states, game, "a loaded record replays to other States")


# --- random games ---------------------------------------------------------------------------------------------------


def check_random_games(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """Random games end (within the ply limit, when there is one), the same seed replays the same game, and the
    seeds are conserved: board and stores hold ``game.total_seeds`` (a State's own ``total_seeds`` where its rules
    set the number) in every live position, and no more at the end (where a game's rules may set seeds aside, as
    Oware's ``"texts"`` preset does). The seeds are counted through the search kernels' root, the game-neutral view
    of a position as numbers (see :func:`check_search`)."""
    kernels = _search_kernels(game)
    for states in _random_games(game, games, seed, options):
        final = states[-1]
        _expect(final.is_terminal, game, "a random game did not end")
        if final.max_plies is not None:
            _expect(final.ply <= final.max_plies, game, "a game went past its ply limit")
        if kernels is not None:
            for state in states:
                root = kernels.root(state)
                total = int(root.board.sum()) + int(root.stores.sum())
                seeds = getattr(state, "total_seeds", game.total_seeds)  # a State whose rules set the seeds says so
                kept = total <= seeds if state.is_terminal else total == seeds
                _expect(kept, game, f"{total} seeds at ply {state.ply}, not {seeds}")
    replay = [[s.to_dict() for s in states] for states in _random_games(game, 2, seed, options)]
    _expect(replay == [[s.to_dict() for s in states] for states in _random_games(game, 2, seed, options)], game,
            "the same seeds gave different games")  # fmt: skip


# --- the search kernels ---------------------------------------------------------------------------------------------


def _search_kernels(game: Game) -> Any:
    """The game's search kernels, or None for a game without them."""
    try:
        return game.search
    except NotImplementedError:
        return None


def check_search(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """The compiled searches' view of every position of random games agrees with the State: the root's player, ply and
    limit; the legal actions (``legal``, ``moves``); each legal move (``move``) reaches the child's board and stores,
    and ``next_player`` names its player to move, while the game goes on; ``observe`` writes the mover's
    ``observation_tensor``. Games without search kernels (``Game.search`` raises NotImplementedError) skip it."""
    kernels = _search_kernels(game)
    if kernels is None:
        return
    from awale_env.kernels import dispatch  # here: the kernels load numba's compiled code
    from awale_env.kernels.search import new_scratch

    line = np.zeros(64, dtype=np.int64)
    moves = np.zeros(kernels.max_moves, dtype=np.int64)
    obs = np.zeros(game.obs_size, dtype=np.float32)
    for states in _random_games(game, games, seed, options):
        for state in states[:-1]:
            root = kernels.root(state)
            env = root.env(new_scratch(), line, line.copy())
            limit = 0 if state.max_plies is None else state.max_plies
            _expect((root.player, root.ply, root.max_plies) == (state.to_move, state.ply, limit), game, "root")
            legal = state.legal_actions()
            bits = int(kernels.legal(env, root.board, root.player))
            _expect([a for a in range(game.num_actions) if bits >> a & 1] == legal, game, f"legal bits at {state.ply}")
            count = int(dispatch.moves(env, root.board, root.player, moves))  # the game's, or the default
            _expect(moves[:count].tolist() == legal, game, f"moves at ply {state.ply}")
            kernels.observe(env, root.board, root.stores, root.ply, root.max_plies, root.player, obs)
            np.testing.assert_array_equal(obs, state.observation_tensor(), f"{game.name}: observe")
            for action in legal:
                child = state.play(action)
                after = int(kernels.next_player(env, root.board, root.player, action))
                _expect(child.is_terminal or after == child.to_move, game, f"next_player of {action} at {state.ply}")
                if child.is_terminal:
                    continue  # how a game settles its end is its status kernel's business, tested with its rules
                board, stores = root.board.copy(), root.stores.copy()
                kernels.move(env, board, stores, root.player, action)
                expected = kernels.root(child)
                _expect(np.array_equal(board, expected.board) and np.array_equal(stores, expected.stores), game,
                        f"move {action} at ply {state.ply} reaches another position than play({action})")  # fmt: skip


# --- the environments -----------------------------------------------------------------------------------------------


def check_aec_env(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """PettingZoo's ``api_test``, ``seed_test`` and ``render_test`` on ``awale_env.env(game=...)``, its id
    ``awale_env/<title lower-case>-v0``, and random games through the env equal to the same games through the State
    API: observations and masks of both agents, rewards adding up to the returns (``"win_loss"``) or to the store
    difference over ``total_seeds`` (``"score_diff"``), the final stores and end reason in the infos. An illegal
    action loses with -1 (the raw env raises IllegalMoveError)."""
    import pettingzoo
    from pettingzoo.test import api_test, render_test, seed_test

    import awale_env

    def make(**kwargs: Any) -> Any:
        return awale_env.env(game=game.name, **options, **kwargs)

    api_test(make(), num_cycles=50 * games)
    seed_test(make, num_cycles=20 * games)
    render_test(make)
    env_id = f"awale_env/{game.title.lower()}-v0"
    _expect(env_id in pettingzoo.env_registry.registration.aec_registry, game, f"{env_id} is not registered")
    _expect(pettingzoo.make("aec", env_id).unwrapped.game_spec is game, game, f"{env_id} builds another game")
    rng = np.random.default_rng(seed)
    for i in range(games):
        reward = "win_loss" if i % 2 == 0 else "score_diff"
        env = awale_env.env(game=game.name, reward=reward, **options)
        env.reset(seed=int(rng.integers(2**31)))
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, step_reward, termination, truncation, info = env.last()
            totals[agent] += step_reward
            state = env.unwrapped.game
            if termination or truncation:
                ended = (info["end_reason"], info["stores"]) == (state.end_reason, state.stores)
                _expect(ended, game, f"the infos at the end of an AEC game: {info}")
                env.step(None)
                continue
            _expect(agent == env.possible_agents[state.to_move], game, "the agent to move is not the State's")
            for seat, other in enumerate(env.possible_agents):
                view = env.observe(other)
                np.testing.assert_array_equal(view["observation"], state.observation_tensor(seat), game.name)
                mask = state.legal_mask() if other == agent else np.zeros(game.num_actions, dtype=bool)
                np.testing.assert_array_equal(view["action_mask"], mask, f"{game.name}: action mask of {other}")
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        final = env.unwrapped.game
        lead = (final.stores[0] - final.stores[1]) / game.total_seeds
        expected = final.returns() if reward == "win_loss" else (lead, -lead)
        _expect(np.allclose([totals[a] for a in env.possible_agents], expected), game, f"{reward} rewards {totals}")
    env, raw = make(), awale_env.raw_env(game=game.name, **options)
    for aec in (env, raw):  # first legal moves until the mover has an illegal one
        aec.reset(seed=seed)
        while aec.unwrapped.game.legal_mask().all():
            aec.step(aec.unwrapped.game.legal_actions()[0])
        _expect(aec.unwrapped.game.legal_mask().any(), game, "a game ended before any move was illegal")
    mover, illegal = env.agent_selection, int(np.flatnonzero(~env.unwrapped.game.legal_mask())[0])
    env.step(illegal)
    lost = all(env.terminations.values()) and env.rewards[mover] == -1 and sum(env.rewards.values()) == -1
    _expect(lost, game, f"an illegal AEC action does not lose with -1: {env.rewards}")
    illegal = int(np.flatnonzero(~raw.game.legal_mask())[0])
    _raises(lambda: raw.step(illegal), IllegalMoveError, game, f"the raw env's step({illegal}), an illegal action")


def _first_legal(state: Any) -> int:
    """A deterministic opponent."""
    return state.legal_actions()[0]


def check_gym_env(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """Gymnasium's ``check_env`` on ``gymnasium.make("awale_env/<title>-v0")``, and episodes equal to the State API:
    the learner's observation and mask, rewards adding up to its return, an illegal action losing at once."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env_id = f"awale_env/{game.title}-v0"
    _expect(env_id in gymnasium.registry, game, f"{env_id} is not registered")
    checked = gymnasium.make(env_id, opponent=_first_legal, learner_seat="random", render_mode="rgb_array", **options)
    _expect(checked.unwrapped.game_spec is game, game, f"{env_id} builds another game")
    check_env(checked.unwrapped, skip_render_check=False)
    rng = np.random.default_rng(seed)
    for episode in range(games):
        reward_mode = "win_loss" if episode % 2 == 0 else "score_diff"
        env = gymnasium.make(env_id, opponent=_first_legal, learner_seat="random", reward=reward_mode, **options)
        env = env.unwrapped
        obs, info = env.reset(seed=seed + episode)
        total, terminated = 0.0, False
        while not terminated:
            state, seat = env.game, env.learner
            _expect(state.to_move == seat and not state.is_terminal, game, "the learner is not to move")
            np.testing.assert_array_equal(obs, state.observation_tensor(seat), f"{game.name}: gym observation")
            np.testing.assert_array_equal(info["action_mask"], state.legal_mask(), f"{game.name}: gym mask")
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(state.legal_actions())))
            total += reward
            _expect(not truncated and env.observation_space.contains(obs), game, "gym step")
        s0, s1 = env.game.stores
        lead = (s0 - s1 if seat == 0 else s1 - s0) / game.total_seeds
        expected = env.game.returns()[seat] if reward_mode == "win_loss" else lead
        _expect(np.isclose(total, expected), game, f"{reward_mode} gym rewards add up to {total}, not {expected}")
    _expect(_loses_at_once(env, seed, tries=10 * games), game, "an illegal action does not lose at once (-1)")


def _loses_at_once(env: Any, seed: int, tries: int) -> bool:
    """Play first legal moves until one is illegal (over up to ``tries`` episodes), then play it: whether it lost
    at once."""
    for episode in range(tries):
        env.reset(seed=seed + episode)
        mask = env.action_masks()
        while mask.all():  # every action legal; the mask of an episode that is over is all False
            env.step(int(np.flatnonzero(mask)[0]))
            mask = env.action_masks()
        if mask.any():
            _, reward, terminated, _, info = env.step(int(np.flatnonzero(~mask)[0]))
            return reward == -1.0 and terminated and info["end_reason"] == "illegal_action"
    raise AssertionError(f"{env.game_spec.name}: no position with an illegal action in {tries} games")


def _same_position(a: Any, b: Any) -> bool:
    """Same stores, player, ply, legal moves and observations from both sides (not the history a State may keep)."""
    return (a.stores, a.to_move, a.ply, a.legal_actions()) == (b.stores, b.to_move, b.ply, b.legal_actions()) and all(
        np.array_equal(a.observation_tensor(p), b.observation_tensor(p)) for p in (0, 1)
    )


def _pick_actions(masks: np.ndarray, rng: np.random.Generator, illegal_rate: float) -> np.ndarray:
    """A random legal action per game (0 where none is legal), sometimes an illegal one."""
    actions = np.where(masks.any(1), (rng.random(masks.shape) * masks).argmax(1), 0)
    illegal = (rng.random(len(actions)) < illegal_rate) & masks.any(1) & ~masks.all(1)
    actions[illegal] = [int(np.flatnonzero(~m)[0]) for m in masks[illegal]]
    return actions


def check_vector_env(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """The vector env (``AwaleVectorEnv(game=...)``, also built by ``gymnasium.make_vec`` from the id) in self-play
    steps exactly as the State API replays the same moves: positions, observations, masks, rewards of both reward
    schemes, ends and their outcome names, illegal actions, next-step autoreset. Against its random opponent, the
    learner is to move after every step and sees its own State."""
    import gymnasium

    from awale_env.vector import AwaleVectorEnv

    n, limit = 2 * games, 40
    made = gymnasium.make_vec(f"awale_env/{game.title}-v0", num_envs=2, vectorization_mode="vector_entry_point",
                              max_plies=limit, **options)  # fmt: skip
    _expect(made.unwrapped.game_spec is game, game, "make_vec builds another game")
    rng = np.random.default_rng(seed)
    for reward in ("win_loss", "score_diff"):
        vec = AwaleVectorEnv(n, opponent=None, max_plies=limit, reward=reward, game=game.name, **options)
        obs, info = vec.reset(seed=seed)
        states = [vec.state(i) for i in range(n)]
        restarting = np.zeros(n, dtype=bool)
        ended = 0
        for _ in range(3 * limit):
            for i, state in enumerate(states):
                if not restarting[i]:
                    _expect(_same_position(vec.state(i), state), game, f"vector game {i} left the State replay")
                    np.testing.assert_array_equal(obs[i], state.observation_tensor(state.to_move), game.name)
                    np.testing.assert_array_equal(info["action_mask"][i], state.legal_mask(), game.name)
            actions = _pick_actions(info["action_mask"], rng, illegal_rate=0.02)
            obs, rewards, terminated, _, info = vec.step(actions)
            for i in range(n):
                if restarting[i]:
                    _expect(rewards[i] == 0 and not terminated[i] and vec.state(i).ply == 0, game, "autoreset")
                    states[i], restarting[i] = vec.state(i), False
                    continue
                state, action = states[i], int(actions[i])
                if not state.is_legal(action):
                    outcome = vec.outcomes[info["outcome"][i]]
                    _expect(terminated[i] and rewards[i] == -1 and outcome == "illegal_action", game, "illegal action")
                    restarting[i] = True
                    continue
                after = state.play(action)
                s0, s1 = after.stores
                gain = (s0 - s1) - (state.stores[0] - state.stores[1])
                mover_gain = (gain if state.to_move == 0 else -gain) / game.total_seeds
                expected = after.returns()[state.to_move] if reward == "win_loss" else mover_gain
                _expect(np.isclose(rewards[i], expected), game, f"vector reward {rewards[i]} != {expected}")
                _expect(terminated[i] == after.is_terminal, game, "the vector env ends another game")
                if after.is_terminal:
                    _expect(vec.outcomes[info["outcome"][i]] == after.end_reason, game, "vector outcome")
                    restarting[i], ended = True, ended + 1
                states[i] = after
        _expect(ended > 0, game, "no vector game ended")
    vec = AwaleVectorEnv(n, opponent="random", learner_seat="random", max_plies=limit, game=game.name, **options)
    obs, info = vec.reset(seed=seed)
    restarting = np.zeros(n, dtype=bool)
    for _ in range(limit):
        for i in np.flatnonzero(~restarting):
            state, seat = vec.state(i), int(vec.learner[i])
            _expect(state.to_move == seat and not state.is_terminal, game, "the vector learner is not to move")
            np.testing.assert_array_equal(obs[i], state.observation_tensor(seat), game.name)
            np.testing.assert_array_equal(info["action_mask"][i], state.legal_mask(), game.name)
        obs, _, restarting, _, info = vec.step(_pick_actions(info["action_mask"], rng, illegal_rate=0.0))


# --- numba on and off -----------------------------------------------------------------------------------------------


def digest(name: str, games: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """What a game's code computes on a few random games: their moves, final States and views, a batch of vector
    games in both modes, and compiled random playouts. :func:`check_jit` compares it with and without numba."""
    game = get_game(name)
    result: dict[str, Any] = {"games": []}
    for states in _random_games(game, games, seed, options):
        final = states[-1]
        views = [final.observation_tensor(p).tolist() for p in (0, 1)]
        result["games"].append([[s.to_dict() for s in states[:: max(1, len(states) // 8)]], final.to_dict(), views])
    from awale_env.vector import AwaleVectorEnv

    for opponent, autoreset in ((None, "NextStep"), ("random", "NextStep"), (None, "SameStep"), ("random", "SameStep")):
        vec = AwaleVectorEnv(4, opponent=opponent, learner_seat="random", max_plies=20, reward="score_diff",
                             autoreset_mode=autoreset, game=name, **options)  # fmt: skip
        obs, _ = vec.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = [obs.tolist()]
        for _ in range(30):
            obs, rewards, terminated, _, info = vec.step(_pick_actions(vec.action_masks(), rng, 0.02))
            steps.append([obs.tolist(), rewards.tolist(), terminated.tolist(), info["outcome"].tolist()])
        result[f"vector-{opponent}-{autoreset}"] = steps
    kernels = _search_kernels(game)
    if kernels is not None:
        from awale_env.kernels.rng import make_rng

        result["playouts"] = int(kernels.random_playouts(game.initial(**options), 8, make_rng(seed)))
    return result


def check_jit(game: Game, games: int, seed: int, options: dict[str, Any]) -> None:
    """The pure-Python fallback (``NUMBA_DISABLE_JIT=1``, in a fresh interpreter: only a new process can switch numba
    off) computes exactly what the compiled code computes: :func:`digest` of a few games, here and there. The fresh
    interpreter imports the module of the game's State, which registers a game defined outside the package."""
    count = min(games, 2)
    code = (
        f"import importlib, json; importlib.import_module({game.state_type.__module__!r}); "
        f"from awale_env.testing import digest; print(json.dumps(digest({game.name!r}, {count}, {seed}, {options!r})))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    _expect(done.returncode == 0, game, f"the game fails without numba:\n{done.stderr[-3000:]}")
    plain = json.loads(done.stdout.splitlines()[-1])
    _expect(plain == json.loads(json.dumps(digest(game.name, count, seed, options))), game,
            "the compiled code and the pure-Python fallback compute different games")  # fmt: skip


_CHECKS: dict[str, Callable[[Game, int, int, dict[str, Any]], None]] = {
    "state_api": check_state_api,
    "notation": check_notation,
    "records": check_records,
    "random_games": check_random_games,
    "search": check_search,
    "aec_env": check_aec_env,
    "gym_env": check_gym_env,
    "vector_env": check_vector_env,
    "jit": check_jit,
}
