"""The arena: round robins of agents given by spec strings, with Elo ratings and confidence intervals, on any game
of the toolkit (``game="oware"`` and its rule flags; the two-colour Awale by default).

A round robin is built from the shared pieces of :mod:`competition`: its games are tasks computed up front
from the tournament seed (:mod:`~competition.tasks`: mirrored pairs from random openings, so results are
identical for a given seed whatever the number of workers, as long as the agents are bounded by depth or simulations
rather than by time), played by the worker pool (:mod:`~competition.pool`: processes here or Ray actors),
rated by :mod:`~competition.ratings` (Bradley-Terry Elo with 95 % intervals), and kept in a resumable
journal (:mod:`~competition.journal`; ``awale arena --out DIR`` keeps ``DIR/games.jsonl``) and, with
``db=PATH``, in the results store that tournaments and the referee write too (:mod:`~competition.store`).

Long tournaments: a worker process that dies (the out-of-memory killer, ``kill -9``) stops the arena at once with an
:class:`ArenaError` naming it; ``resume=True`` (``--resume``) reads the journal back and plays only the missing games.
The names below are this module's public interface (the README's ``from competition.arena import round_robin,
format_table``); each lives in the piece that does its job.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import Any

from awale_env.games import DEFAULT_GAME, get_game
from competition.arena_results import TournamentResult, format_table, plot_elo, summarize, write_results
from competition.journal import (
    JOURNAL_FORMAT,
    JOURNAL_NAME,
    JOURNAL_VERSION,
    SETTING_OPTIONS,
    JournalError,
    JournalWarning,
    forget_network_games,
    open_journal,
    start_journal,
    tournament_settings,
)
from competition.pool import BACKENDS, ArenaError, WorkerTraceback, run_tasks, workers_ignore_interrupts
from competition.ratings import ELO_SCALE, Z_95, Standing, elo
from competition.store import PlayerEntry, Store, open_store
from competition.tasks import (
    GAME_DEFAULT,
    GameResult,
    GameTask,
    check_game,
    check_round,
    check_specs,
    make_tasks,
    play_game,
    random_opening,
    run_task,
    start_position,
)

__all__ = [
    "BACKENDS", "ELO_SCALE", "GAME_DEFAULT", "JOURNAL_FORMAT", "JOURNAL_NAME", "JOURNAL_VERSION", "SETTING_OPTIONS",
    "Z_95", "ArenaError", "GameResult", "GameTask", "JournalError", "JournalWarning", "Standing", "TournamentResult",
    "WorkerTraceback", "check_game", "check_specs", "elo", "forget_network_games", "format_table", "make_tasks",
    "open_journal", "play_game", "play_match", "plot_elo", "random_opening", "round_robin", "run_task", "run_tasks",
    "start_journal", "start_position", "summarize", "tournament_settings", "workers_ignore_interrupts",
    "write_results",
]  # fmt: skip


def round_robin(
    specs: list[str],
    games_per_pair: int = 20,
    seed: int = 0,
    workers: int = 1,
    opening_plies: int = 4,
    max_plies: int | str | None = GAME_DEFAULT,
    progress: bool = True,
    prior_draws: float = 1.0,
    game: str = DEFAULT_GAME,
    backend: str = "process",
    address: str | None = None,
    journal: str | Path | None = None,
    resume: bool = False,
    db: str | Path | None = None,
    **options: Any,
) -> TournamentResult:
    """Every pair of agents plays ``games_per_pair`` games (an even number: mirrored pairs) of ``game`` with the
    rule flags ``options`` (e.g. ``game="oware", preset="openspiel"``) and ``max_plies`` (default: the game's own
    limit), on ``workers`` processes or Ray actors (``backend``, ``address``: :func:`run_tasks`); returns the games,
    the standings with Elo (see the module docstring) and per-pair counts.

    ``journal``: a file where each game is appended as it ends (a new one, or one to ``resume``);
    ``resume=True`` plays only the games it lacks (:func:`open_journal`). ``db``: a results store
    (:mod:`competition.store`) where each game is recorded too, as an ``arena`` event of these settings (its
    result and opening; the arena keeps no moves). ArenaError if a worker process dies."""
    if resume and journal is None:
        raise ValueError("resume=True needs the journal to resume from (journal=PATH; awale arena --out DIR)")
    check_round(games_per_pair, seed)
    if isinstance(opening_plies, bool) or not isinstance(opening_plies, int) or opening_plies < 0:
        raise ValueError(f"opening plies must be a non-negative integer, got {opening_plies!r}")
    game, max_plies = check_game(game, options, max_plies)
    weights = check_specs(specs, game)
    rules = tuple(sorted(options.items()))
    tasks = make_tasks(specs, games_per_pair, seed, opening_plies, max_plies, game, rules)
    games: list[GameResult] = []
    if journal is not None:
        journal = Path(journal)
        settings = tournament_settings(specs, games_per_pair, seed, opening_plies, max_plies, game, rules, weights)
        games = open_journal(journal, settings, tasks, resume)
    recorded = {g.index for g in games}
    replayed: list[GameTask] = []
    with (
        journal.open("a", encoding="utf-8") if journal is not None else nullcontext() as file,
        open_store(db, write=True) if db is not None else nullcontext() as store,
    ):
        event = None
        if store is not None:
            settings = tournament_settings(specs, games_per_pair, seed, opening_plies, max_plies, game, rules, weights)
            entries = [PlayerEntry(spec, "agent", spec, weights.get(spec)) for spec in specs]
            event = store.event("arena", "round robin", game, settings, entries)
            for result in games:  # games of a resumed journal the store lacks (a store given on resume)
                record_arena_game(store, event, result, tasks[result.index])

        def finished(result: GameResult) -> None:
            games.append(result)
            if file is not None:
                file.write(json.dumps(asdict(result)) + "\n")
                file.flush()  # in the file as soon as the game ends, whatever stops this process later
            if store is not None:
                record_arena_game(store, event, result, tasks[result.index])

        try:
            missing = [t for t in tasks if t.index not in recorded]
            run_tasks(missing, workers, progress, backend, address, finished, replayed=replayed.append)
        except ArenaError as error:
            if journal is None:
                hint = "a journal (awale arena --out DIR; journal=PATH) keeps the finished games for a resume"
            else:
                hint = (f"the {len(games)} finished games of {len(tasks)} are in {journal}: run again with "
                        f"resume=True (awale arena --resume) to play only the others")  # fmt: skip
            raise ArenaError(f"{error}; {hint}") from None
    games.sort(key=lambda g: g.index)
    result = summarize(specs, seed, games, prior_draws)
    result.game = game
    result.replayed_games = len(replayed)
    return result


def record_arena_game(store: Store, event: int, result: GameResult, task: GameTask) -> None:
    """An arena game into the results store (none if it holds it already): its result (seats are the rules' players),
    opening and end; the arena keeps no moves."""
    opening = [get_game(task.game).format_move(a) for a in result.opening]
    store.add_game(event, result.index, result.specs, result.winner, result.stores, result.plies, result.end_reason,
                   opening, [], start_seed=task.start_seed)  # fmt: skip


def play_match(
    spec_a: str, spec_b: str, games: int = 20, seed: int = 0, workers: int = 1, **kwargs: Any
) -> TournamentResult:
    """A match between two agents: a round robin of two."""
    return round_robin([spec_a, spec_b], games, seed, workers, **kwargs)
