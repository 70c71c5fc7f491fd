"""Fixtures shared by the tests: the games of the registry, and the toy game of tests/toy_game/.

A test taking ``registry_game`` runs once per registered game (the :class:`awale_env.games.base.Game`, test id its
name), so a new game is tested by every such test without editing any; one taking ``game_config`` runs once per game
and per rule variant of :data:`RULE_VARIANTS` (a ``(game, rule flags)`` pair). ``toy_game`` registers the toy game
(``toy_turns`` its variant with another turn) for one test and puts the registry back after it.

The suite runs in parallel (``pytest -n logical``, as .ci/run does): before the workers start, pytest's controller
process has the numba kernels loaded (on a fresh clone: compiled) once, one game per process on as many processes as
there are workers (tests/warm_kernels.py). Tests that take long
(:data:`SLOW`, by file or test name) are marked ``slow`` here, in one place rather than in each file, and run first
so that the workers finish together; CI runs them, ``-m "not slow"`` (``bash .ci/run --quick``) leaves them out.
The workers get the tests one at a time, those of a file sharing a module fixture together (tests/xdist_scheduling.py).
``--suite-profile FILE`` records each test's wall and CPU time (tests/suite_profile.py).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from awale_env.games import GAMES, Game
from awale_env.registration import gymnasium_id, pettingzoo_id, register_environments
from competition.fast_exit import skip_final_collections

# Several tests Ctrl-C a subprocess (a trainer, the arena, a bot) and expect it to stop. A suite started in the
# background by a non-interactive shell (`cmd &`, nohup) ignores SIGINT, every subprocess would inherit that, and
# Python keeps an inherited SIG_IGN: the subprocess would never see the Ctrl-C. A handler of this process is reset
# to the default in each subprocess it starts, so with one installed they start as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

skip_final_collections()  # pytest's processes too: seconds of collecting after the last test otherwise

#: Rule flags worth testing beside a game's defaults (each game is tested with its defaults as well).
RULE_VARIANTS: dict[str, tuple[dict[str, Any], ...]] = {
    "awale16_2025": ({"end_at_both_40": True},),
    "oware": ({"preset": "openspiel"},),
    "hawalis": ({"endless_move": "illegal"},),
    "kalah": ({"seeds_per_pit": 6, "capture_empty_opposite": True},),
}


#: The checks of :func:`awale_env.testing.check_game` that compile the toolkit's shared kernels (the dispatch
#: defaults, the searches, the vector env's stepper) for a game's env class. On a game registered from the tests they
#: run in a pytest process with a numba cache of its own (tests/toy_game_search.py, tests/toy_turns_search.py): numba's
#: cache index of a compiled function pickles the env types it was compiled for, and any process that cannot import
#: the test's game package could no longer read the shared cache (:func:`pytest_sessionfinish` checks it).
SHARED_KERNEL_CHECKS = ("search", "vector_env", "jit")
#: The packages whose numba caches no test game may enter.
SHARED_CACHES = ("awale_env", "agents")
#: The packages of the games registered from the tests.
TEST_GAMES = (b"toy_game", b"toy_turns")


def game_configs() -> list[tuple[Game, dict[str, Any]]]:
    """Every registered game with its default rules, then with each of its :data:`RULE_VARIANTS`."""
    return [(game, options) for name, game in GAMES.items() for options in ({}, *RULE_VARIANTS.get(name, ()))]


def config_id(config: tuple[Game, dict[str, Any]]) -> str:
    game, options = config
    return "-".join([game.name, *(f"{key}={value}" for key, value in options.items())])


#: The tests that take long, as node-id prefixes (a file, or a file::test): those over 20 s in a serial run of the
#: suite on 2 cores at a load average of 10-15 (2026-11-25, about 3 s of CPU time or more each).
SLOW: tuple[str, ...] = (
    "tests/games/awale16_editions/test_editions_nojit.py::test_pure_python_fallback_is_identical",
    "tests/robustness/test_ppo_env_workers.py",
    "tests/test_agents_games.py::test_alphabeta_avoids_a_move_that_loses_at_once",
    "tests/test_agents_games.py::test_alphabeta_value_equals_plain_minimax",
    "tests/test_agents_games.py::test_every_agent_plays_legal_complete_games",
    "tests/test_agents_games.py::test_pure_python_fallback_gives_identical_searches",
    "tests/test_alphazero.py::test_a_timed_agent_spends_its_first_move_searching",
    "tests/test_alphazero_games.py::test_batched_search_matches_one_game_searches",
    "tests/test_alphazero_games.py::test_search_gives_the_same_counts_without_numba",
    "tests/test_alphazero_training.py::test_ctrl_c_stops_a_run_and_its_workers_with_one_line",
    "tests/test_alphazero_training.py::test_end_to_end_run_is_deterministic_and_resumes",
    "tests/test_arena_resume.py::test_the_cli_resumes_a_stopped_tournament",
    "tests/test_bot_referee.py::test_referee_runs_two_bots_and_every_move_it_accepted_is_legal",
    "tests/test_checkpoint_files.py::test_the_arena_gives_one_error_line_for_a_bad_torch_file",
    "tests/test_cli.py::test_a_full_disk_is_a_one_line_error",
    "tests/test_cli.py::test_a_users_folder_named_like_a_package_is_a_one_line_error",
    "tests/test_cli.py::test_demo_plays_the_other_games_and_names_a_bad_one",
    "tests/test_cli.py::test_train_subcommands_pass_options_to_the_trainers",
    "tests/test_editions_everywhere.py::test_alphazero_trains_on_each_edition_and_its_agent_plays_it",
    "tests/test_editions_everywhere.py::test_ppo_trains_on_the_2025_edition_with_its_rules_move_limit_and_its_agent",
    "tests/test_env_gym.py::test_maskable_ppo_trains_through_subprocess_vec_env",
    "tests/test_env_opponents.py::test_a_users_agents_folder_is_named_instead_of_a_deep_import_error",
    "tests/test_env_vector.py::test_self_play_agrees_with_the_state_api",
    "tests/test_kernel_cache.py::test_a_read_only_install_compiles_once",
    "tests/test_notebooks.py",
    "tests/test_ppo_selfplay.py::test_ctrl_c_stops_a_run_with_one_line_saying_how_to_resume",
    "tests/test_readme.py::test_readme_python_block_runs_on_its_own",
    "tests/test_toy_searches.py",
    "tests/test_training_hardening.py::test_alphazero_killed_mid_run_resumes_and_its_workers_end",
    "tests/test_training_options.py::test_a_bad_option_is_one_line_and_exit_code_2",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--suite-profile",
        type=Path,
        metavar="FILE",
        help="append each test's wall and CPU seconds by phase to FILE, one JSON line each (tests/suite_profile.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """With ``--suite-profile``, time every test (tests/suite_profile.py); in the controller of a parallel run
    (``-n``), load the kernels once before the workers start."""
    if config.getoption("suite_profile"):
        from suite_profile import SuiteProfile

        config.pluginmanager.register(SuiteProfile(config.getoption("suite_profile")), "suite_profile")
    workers = getattr(config.option, "numprocesses", None)
    if workers and not hasattr(config, "workerinput"):
        if os.environ.get("PYTEST_XDIST_WORKER") is None:
            from warm_kernels import warm

            # past pytest's capture: CI shows what the minutes before the first test are for
            warm(sys.__stderr__, processes=workers if isinstance(workers, int) else os.cpu_count() or 1)


@pytest.hookimpl(optionalhook=True)  # xdist's hook: Ray's test environment has no xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n`` (xdist's ``--dist load``): the tests one at a time, those of a file sharing a module fixture on one
    worker together (tests/xdist_scheduling.py); another ``--dist`` stays xdist's."""
    if config.getvalue("dist") != "load":
        return None
    from xdist_scheduling import FixtureFileScheduling

    return FixtureFileScheduling(config, log)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if a test compiled a shared kernel for a test game in the shared numba cache
    (:data:`SHARED_KERNEL_CHECKS` says why); the controller of a parallel run checks once, after its workers."""
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        return
    root = Path(__file__).resolve().parent.parent
    polluted = sorted(
        str(index.relative_to(root))
        for package in SHARED_CACHES
        for index in (root / package).rglob("*.nbi")
        if any(name in index.read_bytes() for name in TEST_GAMES)
    )
    if polluted:
        print(f"\nerror: a test game's env type is in the shared numba cache (conftest.SHARED_KERNEL_CHECKS): "
              f"{', '.join(polluted[:5])}{' ...' if len(polluted) > 5 else ''}", file=sys.__stderr__)  # fmt: skip
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(tryfirst=True)  # before ``-m "not slow"`` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the :data:`SLOW` tests ``slow`` and move them to the front (the longest work is handed out first)."""
    slow = [item for item in items if item.nodeid.startswith(SLOW)]
    for item in slow:
        item.add_marker(pytest.mark.slow)
    marked = {id(item) for item in slow}
    items[:] = slow + [item for item in items if id(item) not in marked]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "registry_game" in metafunc.fixturenames:
        metafunc.parametrize("registry_game", list(GAMES.values()), ids=list(GAMES))
    if "game_config" in metafunc.fixturenames:
        configs = game_configs()
        metafunc.parametrize("game_config", configs, ids=[config_id(config) for config in configs])


def _registered_for_a_test(package: str) -> Iterator[Game]:
    """The game of the test package ``package``, registered as any game registers itself (its package's
    ``__init__`` calls ``register``), with its Gymnasium and PettingZoo ids; afterwards the registry and the ids are
    as before."""
    import importlib

    import gymnasium
    from pettingzoo.env_registry.registration import aec_registry

    saved = dict(GAMES)
    game = importlib.import_module(package).GAME  # registers the game on its first import
    GAMES.setdefault(game.name, game)  # put back after an earlier test
    register_environments()
    yield game
    GAMES.clear()
    GAMES.update(saved)
    gymnasium.registry.pop(gymnasium_id(game.title), None)
    aec_registry.pop(pettingzoo_id(game.title), None)


@pytest.fixture
def toy_game() -> Iterator[Game]:
    """The toy game of tests/toy_game/, registered for one test."""
    yield from _registered_for_a_test("toy_game")


@pytest.fixture
def toy_turns() -> Iterator[Game]:
    """The toy game with another turn of tests/toy_turns/, registered for one test."""
    yield from _registered_for_a_test("toy_turns")


#: The signals whose handlers a test must leave as it found them.
GUARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@pytest.fixture(autouse=True)
def signal_handlers_put_back() -> Iterator[None]:
    """A test that leaves SIGINT's or SIGTERM's handler changed (a library's, as nbclient's when a kernel fails to
    start) fails itself, and the handler is put back: the test worker goes on running later tests, and a test of
    Ctrl-C there would otherwise fail for no fault of its own."""
    before = {number: signal.getsignal(number) for number in GUARDED_SIGNALS}
    yield
    changed = {number: handler for number, handler in before.items() if signal.getsignal(number) != handler}
    for number, handler in changed.items():
        signal.signal(number, handler)
    assert not changed, f"the test left the handler of {', '.join(signal.Signals(n).name for n in changed)} changed"


@pytest.fixture
def temporary_files_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's temporary directory is the test's own: SB3 makes a log directory there at every ``learn()`` without
    a logger of the caller's, which would otherwise stay in /tmp."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
