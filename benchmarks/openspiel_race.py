"""What the two races against OpenSpiel share (bench_openspiel.py: random playouts; bench_openspiel_mcts.py: MCTS):
the command line's common options and the medians and ratios of alternated rounds, ours against pyspiel's."""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import pyspiel
from bench_engine import rule_flag

from awale_env.games import GAMES


def race_parser(description: str) -> argparse.ArgumentParser:
    """A parser with the options both races take: ``--game``, ``--option``, ``--openspiel``, ``--repeats``,
    ``--json``; each script adds its own size options."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--game", required=True, choices=list(GAMES), help="our game")
    parser.add_argument("--option", type=rule_flag, action="append", default=[], help="a rule flag, FLAG=VALUE")
    parser.add_argument("--openspiel", help="pyspiel's name of the game (default: --game)")
    parser.add_argument("--repeats", type=int, default=5, help="rounds; each figure is the median")
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    return parser


def race_figures(rounds: dict[str, list[tuple[float, float]]], unit: str) -> dict[str, float]:
    """The median rate per engine (``ours``, ``pyspiel``) of wall and CPU time, as ``{engine}_{unit}_per_s`` and
    ``{engine}_cpu_{unit}_per_s``, and ours over pyspiel's as ``ratio`` and ``cpu_ratio``."""
    figures: dict[str, Any] = {}
    for name, runs in rounds.items():
        figures[f"{name}_{unit}_per_s"] = statistics.median(wall for wall, _ in runs)
        figures[f"{name}_cpu_{unit}_per_s"] = statistics.median(cpu for _, cpu in runs)
    for clock in ("", "cpu_"):
        figures[f"{clock}ratio"] = figures[f"ours_{clock}{unit}_per_s"] / figures[f"pyspiel_{clock}{unit}_per_s"]
    return figures


def reference_game(parser: argparse.ArgumentParser, args: argparse.Namespace) -> pyspiel.Game:
    """pyspiel's game named by ``--openspiel`` (default: ``--game``); one line from the parser if pyspiel has none."""
    name = args.openspiel or args.game
    try:
        return pyspiel.load_game(name)
    except pyspiel.SpielError:
        parser.error(f"pyspiel has no game {name!r}: name its game with --openspiel")
