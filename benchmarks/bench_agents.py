"""Search speed from the initial position of a game (``--game``, awale16 by default) on one core: alpha-beta nodes/s
and depth reached in 1 s under each evaluation (``score``, then the weighted ones; ``tuned`` is alpha-beta's
default), MCTS simulations/s, each also per second of CPU time.

Each search has 1 s; each figure is the median of ``--repeats`` runs after a warm-up (compilation or cache load).
Every run starts with an empty table / tree; the time of a depth-10 search is also reported (target: under 1 s).
Usage: python benchmarks/bench_agents.py [--game NAME] [--repeats N] [--json]

``--depth D --positions N`` measures instead alpha-beta's nodes per CPU second under each evaluation (or those
``--evals`` names) over ``N`` positions of seeded random games, each searched to depth ``D`` from an empty table
(``search``, no random tie-breaks): two versions of the code search the same trees where their rules of search agree
(the node counts say so), so their times per node compare, where a timed search from one position compares trees of
different depths. Run with another version's tree first on PYTHONPATH; the result names the commit of the code it
searched with (``ab_agents.py`` alternates checkouts so).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
from provenance import add_out_option, write_result

from agents.alphabeta import AlphaBetaAgent
from agents.evaluation import EVALUATIONS
from agents.mcts import MCTSAgent
from awale_env.games import DEFAULT_GAME, get_game


def alphabeta_run(start: Any, seconds: float, seed: int, evaluation: str = "score") -> tuple[float, int, float]:
    """(nodes/s, depth completed, nodes per second of CPU time) of one timed search of ``start``. CPU time is what
    the core gave this process: on a shared machine it moves far less with the load than the wall clock."""
    agent = AlphaBetaAgent(time=seconds, seed=seed, eval=evaluation)
    cpu = time.process_time()
    agent.act(start)
    cpu = time.process_time() - cpu
    stats = agent.last_search
    return stats["nodes"] / stats["seconds"], int(stats["depth"]), stats["nodes"] / cpu


def alphabeta_depth_time(start: Any, depth: int, seed: int) -> tuple[float, float]:
    """Seconds (wall clock, CPU time) of a search of ``start`` to ``depth``."""
    agent = AlphaBetaAgent(depth=depth, seed=seed)
    cpu = time.process_time()
    agent.act(start)
    return agent.last_search["seconds"], time.process_time() - cpu


def mcts_rate(start: Any, seconds: float, seed: int) -> tuple[float, float]:
    """Simulations/s of one timed MCTS search of ``start`` (wall clock, CPU time)."""
    agent = MCTSAgent(time=seconds, seed=seed)
    cpu = time.process_time()
    agent.act(start)
    cpu = time.process_time() - cpu
    return agent.last_search["simulations"] / agent.last_search["seconds"], agent.last_search["simulations"] / cpu


def random_positions(game: str, count: int, seed: int) -> list[Any]:
    """``count`` live positions with a choice, each after 4-40 uniformly random plies from the start (seeded)."""
    rng = np.random.default_rng(seed)
    found: list[Any] = []
    while len(found) < count:
        state = get_game(game).initial(seed=int(rng.integers(2**63)))  # the first player too, where drawn (Oware)
        for _ in range(int(rng.integers(4, 41))):
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal and len(state.legal_actions()) > 1:
            found.append(state)
    return found


def fixed_depth(positions: list[Any], depth: int, evaluation: str) -> tuple[int, float]:
    """(nodes, CPU seconds) of searches of every position to ``depth``, each from an empty table."""
    agent = AlphaBetaAgent(depth=depth, seed=0, eval=evaluation)
    agent.search(positions[0])  # compile or load the cache outside the measurement
    nodes, cpu = 0, 0.0
    for state in positions:
        agent.reset(0)
        start = time.process_time()
        agent.search(state)
        cpu += time.process_time() - start
        nodes += int(agent.last_search["nodes"])
    return nodes, cpu


def searched_code() -> dict[str, str]:
    """Where the searched code (the ``agents`` package imported) lives and its git commit."""
    import agents

    tree = Path(agents.__file__).resolve().parents[1]
    run = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return {"tree": str(tree), "commit": run.stdout.strip()[:40]}


def fixed_depth_main(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--depth`` measurement: per evaluation the total nodes, CPU seconds and nodes per CPU second."""
    positions = random_positions(args.game, args.positions, args.seed)
    result: dict[str, Any] = {}
    for evaluation in args.evals:
        nodes, cpu = fixed_depth(positions, args.depth, evaluation)
        result |= {f"nodes_{evaluation}": nodes, f"cpu_seconds_{evaluation}": round(cpu, 3),
                   f"nodes_per_cpu_s_{evaluation}": round(nodes / cpu)}  # fmt: skip
    return result | {"searched_code": searched_code(), "cpus": os.cpu_count(), "load_average": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, help=f"the game searched (default {DEFAULT_GAME})")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object on the last line")
    parser.add_argument("--depth", type=int, help="search --positions positions to this depth instead (an A/B)")
    parser.add_argument("--positions", type=int, default=200, help="positions of the --depth measurement")
    parser.add_argument("--seed", type=int, default=0, help="the random games of the --depth measurement")
    parser.add_argument("--evals", nargs="+", choices=EVALUATIONS, default=list(EVALUATIONS),
                        help="the evaluations of the --depth measurement (default: all)")  # fmt: skip
    add_out_option(parser, "agents")
    args = parser.parse_args()
    if args.depth is not None:
        if args.depth < 1 or args.positions < 1:
            parser.error("--depth and --positions must be positive")
        report(fixed_depth_main(args), args)
        return

    start = get_game(args.game).initial()
    mcts_rate(start, 0.05, 0)  # warm-up: compile or load the cache (a timed alpha-beta agent does it when built)
    # The evaluations take turns, so that a change in the machine's load touches them alike.
    runs = [[alphabeta_run(start, 1.0, seed, e) for e in EVALUATIONS] for seed in range(args.repeats)]
    depth10 = [alphabeta_depth_time(start, 10, seed) for seed in range(args.repeats)]
    mcts = [mcts_rate(start, 1.0, seed) for seed in range(args.repeats)]
    result: dict[str, float] = {}
    for i, evaluation in enumerate(EVALUATIONS):
        suffix = "" if evaluation == "score" else f"_{evaluation}"
        result[f"alphabeta_nodes_per_s{suffix}"] = statistics.median(run[i][0] for run in runs)
        result[f"alphabeta_depth_in_1s{suffix}"] = statistics.median(run[i][1] for run in runs)
        result[f"alphabeta_nodes_per_cpu_s{suffix}"] = statistics.median(run[i][2] for run in runs)
    result |= {
        "alphabeta_depth10_seconds": statistics.median(wall for wall, _ in depth10),
        "alphabeta_depth10_cpu_seconds": statistics.median(cpu for _, cpu in depth10),
        "mcts_simulations_per_s": statistics.median(wall for wall, _ in mcts),
        "mcts_simulations_per_cpu_s": statistics.median(cpu for _, cpu in mcts),
        "repeats": args.repeats,
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
    }
    report(result, args)


def report(result: dict[str, Any], args: argparse.Namespace) -> None:
    """Print the figures (and as JSON with ``--json``) and write the result file with ``--out``."""
    for key, value in result.items():
        print(f"{key}: {value:,.0f}" if isinstance(value, float) and value > 100 else f"{key}: {value}")
    if args.json:
        print(json.dumps(result))
    write_result(args.out, result, options={k: v for k, v in vars(args).items() if k not in ("json", "out")})


if __name__ == "__main__":
    main()
