"""Strength against OpenSpiel: our agents against ``pyspiel.MCTSBot`` (OpenSpiel's own MCTS: UCT c = 2, one random
rollout per simulation, MCTS-Solver on, as open_spiel/python/examples/mcts.py runs it) on the same game, at equal
time per move, both seats; and how far our agents play from perfect on small endgames.

    python benchmarks/strength_openspiel.py --game kalah --openspiel mancala --agent alphabeta:time=0.1 \\
        --agent mcts:time=0.1 --time 0.1 --games 100 --endgames 200 --out

**Matches.** OpenSpiel's bot has no clock, so it gets the simulations it runs in ``--time`` seconds, measured on this
machine before each pair of games (the median rate of searches from the start and from positions of random games), so
that a change of the machine's load during the run moves both sides alike; the mean seconds per move both sides took
and the bot's simulations per pair are written beside the results. Games come in pairs from the same random opening of
``--opening-plies`` moves, seats swapped. Each move is sent to the other engine by its rank among the legal moves
(both number a position's legal moves in the same order: OpenSpiel's mancala action is ours + 1 for player 0, + 8
for player 1), and the engines are checked to agree at every ply (player to move, legal moves, end, returns).

**Endgames.** Random positions with at most ``--endgame-seeds`` seeds left in the pits (the rest in the stores) are
solved exactly (negamax over the final store difference, memoised, the mover kept through extra turns); an agent's
move is *outcome-perfect* when it keeps the solved result (win, draw or loss) and *score-perfect* when it keeps the
solved store difference; ``seeds_lost`` is the mean store difference its moves give away.

``--out`` writes the result file (default benchmarks/results/strength_openspiel_<game>.json) with its provenance
(:mod:`provenance`): per agent the wins, draws and losses, the score (a draw counts half) with its 95 % interval, by
seat as well, and for alpha-beta by whether its first search found its side behind after the opening (``by_start``),
the endgame figures, the bot's simulations (at the start and per pair) and every game's record: its moves and our
agent's searches (depth, value, nodes, seconds), so that a lost game can be replayed and analysed.
``--summarise FILE`` adds ``by_start`` to a result file from its records; with ``--deep-depth D`` also
``by_deep_value``: each opening searched to depth D (a fixed depth: the same figures on a busy machine), the games
split by its value for our side (behind by more than 5 seeds, balanced, ahead by more), the values beside the records.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from bench_engine import rule_flag
from match import score_interval
from provenance import RESULTS, write_result

from agents import make
from agents.evaluation import make_evaluation, units_per_seed
from agents.negamax import MATE_BOUND
from awale_env.games import GAMES, Game, get_game

UCT_C = 2.0
ROLLOUTS = 1
MAX_MEMORY_MB = 1000


def openspiel_bot(game: Any, simulations: int, seed: int) -> Any:
    evaluator = pyspiel.RandomRolloutEvaluator(ROLLOUTS, seed)
    return pyspiel.MCTSBot(game, evaluator, UCT_C, simulations, MAX_MEMORY_MB, True, seed, False)


def calibrate(reference: Any, seconds: float, probe: int = 2000, searches: int = 7) -> tuple[int, float]:
    """The simulations OpenSpiel's bot runs in ``seconds`` on this machine now, and its rate (simulations/s): the
    median of ``searches`` searches of ``probe`` simulations from the start and from positions of random games."""
    rng = np.random.default_rng(99)
    rates: list[float] = []
    while len(rates) < searches:
        state = reference.new_initial_state()
        for _ in range(int(rng.integers(0, 30)) if rates else 0):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        bot = openspiel_bot(reference, probe, len(rates))
        start = time.perf_counter()
        bot.step(state)
        rates.append(probe / (time.perf_counter() - start))
    rate = statistics.median(rates)
    return max(1, int(rate * seconds)), rate


def play_game(game: Game, options: dict[str, Any], reference: Any, spec: str, seat: int, opening: list[int],
              simulations: int, seed: int) -> dict[str, Any]:  # fmt: skip
    """One game of our agent ``spec`` at ``seat`` against OpenSpiel's bot; the result from our agent's side."""
    agent = make(spec, seed=seed)
    if hasattr(agent, "reset"):
        agent.reset(seed)
    bot = openspiel_bot(reference, simulations, seed)
    ours, theirs = game.initial(seed=seed, **options), reference.new_initial_state()
    clocks: dict[str, list[float]] = {"ours": [], "openspiel": []}
    moves, searches = list(opening), []
    for action in opening:
        theirs.apply_action(theirs.legal_actions()[ours.legal_actions().index(action)])
        ours = ours.play(action)
    while not ours.is_terminal:
        legal = ours.legal_actions()
        if theirs.is_terminal() or theirs.current_player() != ours.to_move or len(theirs.legal_actions()) != len(legal):
            raise RuntimeError(f"the engines disagree at ply {ours.ply}: ours {ours!r}, OpenSpiel's\n{theirs}")
        start = time.perf_counter()
        if ours.to_move == seat:
            action = agent.act(ours)
            clocks["ours"].append(time.perf_counter() - start)
            searches.append(search_record(ours.ply, getattr(agent, "last_search", {})))
            their_action = theirs.legal_actions()[legal.index(action)]
        else:
            their_action = bot.step(theirs)
            clocks["openspiel"].append(time.perf_counter() - start)
            action = legal[theirs.legal_actions().index(their_action)]
        theirs.apply_action(their_action)
        ours = ours.play(action)
        moves.append(action)
    if not theirs.is_terminal() or tuple(theirs.returns()) != ours.returns():
        raise RuntimeError(f"the engines end differently: ours {ours.returns()}, OpenSpiel's {theirs.returns()}")
    result = ours.returns()[seat]
    return {"seat": seat, "result": result, "plies": ours.ply, "stores": list(ours.stores), "opening": opening,
            "moves": moves, "searches": searches,
            "seconds_per_move": {k: statistics.fmean(v) if v else 0.0 for k, v in clocks.items()}}  # fmt: skip


def search_record(ply: int, search: dict[str, Any]) -> dict[str, Any]:
    """What our agent's search of the move at ``ply`` reports (alpha-beta's depth, value, nodes, seconds), rounded."""
    return {"ply": ply} | {k: round(v, 4) if isinstance(v, float) else v for k, v in search.items()}


def summary(games: list[dict[str, Any]]) -> dict[str, Any]:
    if not games:
        return {"games": 0}
    wins = sum(g["result"] > 0 for g in games)
    draws = sum(g["result"] == 0 for g in games)
    losses = len(games) - wins - draws
    score, low, high = score_interval(wins, draws, losses)
    return {"games": len(games), "wins": wins, "draws": draws, "losses": losses, "score": round(score, 4),
            "score_low": round(low, 4), "score_high": round(high, 4),
            "score_interval": [round(score, 4), round(low, 4), round(high, 4)],
            "wdl": f"{wins}-{draws}-{losses}"}  # fmt: skip


def match(game: Game, options: dict[str, Any], reference: Any, spec: str, games: int, opening_plies: int,
          seconds: float, seed: int, pinned: int | None = None) -> dict[str, Any]:  # fmt: skip
    """``games`` games (pairs from one opening, seats swapped) of ``spec`` against OpenSpiel's bot, given the
    simulations it runs in ``seconds`` (:func:`calibrate`, before each pair), or ``pinned`` simulations."""
    rng = np.random.default_rng(seed)
    played = []
    for pair in range(games // 2):
        simulations = pinned or calibrate(reference, seconds, searches=5)[0]
        state, opening = game.initial(seed=seed, **options), []
        while len(opening) < opening_plies and not state.is_terminal:
            opening.append(int(rng.choice(state.legal_actions())))
            state = state.play(opening[-1])
        for seat in (0, 1):
            played.append(play_game(game, options, reference, spec, seat, opening, simulations,
                                    seed + 2 * pair + seat) | {"openspiel_simulations": simulations})  # fmt: skip
        done = summary(played)
        print(f"  {spec}: {done['wins']}-{done['draws']}-{done['losses']} after {len(played)} games", flush=True)
    by_seat = {str(seat): summary([g for g in played if g["seat"] == seat]) for seat in (0, 1)}
    clock = {side: statistics.fmean(g["seconds_per_move"][side] for g in played) for side in ("ours", "openspiel")}
    bot = [g["openspiel_simulations"] for g in played]
    simulations = {"median": int(statistics.median(bot)), "min": min(bot), "max": max(bot)}
    return {**summary(played), "by_seat": by_seat, **by_start(played), "mean_seconds_per_move": clock,
            "openspiel_simulations": simulations, "game_records": played}  # fmt: skip


def by_start(games: list[dict[str, Any]]) -> dict[str, Any]:
    """The games split by the value our agent's first search gave its side after the opening (an agent that reports
    one: alpha-beta), i.e. whether the random opening left it behind (below 0) or not: ``{"by_start": {"behind":
    summary, "level_or_ahead": summary}}``, or nothing."""
    first = [g["searches"][0]["value"] if g.get("searches") and "value" in g["searches"][0] else None for g in games]
    if None in first:
        return {}
    behind = [g for g, value in zip(games, first) if value < 0]
    rest = [g for g, value in zip(games, first) if value >= 0]
    return {"by_start": {"behind": summary(behind), "level_or_ahead": summary(rest)}}


#: Seeds within which a deep search's value of an opening counts as balanced (:func:`by_deep_value`).
BALANCED_SEEDS = 5


def opening_values(game: Game, options: dict[str, Any], openings: list[list[int]], depth: int) -> dict[str, Any]:
    """Alpha-beta's value (default evaluation, fixed ``depth``: the same on a busy machine) of the position after
    each distinct opening: ``{"0,2": {"to_move": 1, "seeds": 13.1, "proven": False}, ...}``, in seeds for the player
    to move; a proven win or loss (the search reached every end) counts as the whole board's seeds."""
    agent = make(f"alphabeta:depth={depth}", seed=0)
    per_seed = units_per_seed(make_evaluation(agent.eval, game.name))
    total = sum(game.initial(**options).board)
    values = {}
    for opening in sorted({tuple(moves) for moves in openings}):
        state = game.initial(**options)
        for action in opening:
            state = state.play(action)
        agent.reset(0)  # each value its own search, whatever was searched before
        agent.act(state)
        value, proven = agent.last_search["value"], abs(agent.last_search["value"]) > MATE_BOUND
        seeds = (total if value > 0 else -total) if proven else round(value / per_seed, 1)
        values[",".join(map(str, opening))] = {"to_move": state.to_move, "seeds": seeds, "proven": proven}
    return values


def by_deep_value(games: list[dict[str, Any]], values: dict[str, Any], depth: int) -> dict[str, Any]:
    """The games split by a deep search's value of their opening for our side (:func:`opening_values`): behind by
    more than :data:`BALANCED_SEEDS` seeds, balanced, or ahead by more."""

    def ours(game: dict[str, Any]) -> float:
        value = values[",".join(map(str, game["opening"]))]
        return value["seeds"] if value["to_move"] == game["seat"] else -value["seeds"]

    split: dict[str, Any] = {"depth": depth, "balanced_seeds": BALANCED_SEEDS}
    split["behind"] = summary([g for g in games if ours(g) < -BALANCED_SEEDS])
    split["balanced"] = summary([g for g in games if abs(ours(g)) <= BALANCED_SEEDS])
    split["ahead"] = summary([g for g in games if ours(g) > BALANCED_SEEDS])
    return {"by_deep_value": split}


def summarise(path: Path, deep_depth: int | None = None) -> None:
    """Add :func:`by_start` to each agent's figures in the result file ``path`` from its game records (figures
    derived from the games it holds, nothing played again), and with ``deep_depth`` :func:`by_deep_value` (the
    openings' values beside the records, ``opening_values``)."""
    record = json.loads(path.read_text())
    for spec, games in record["game_records"].items():
        record["figures"][spec] |= by_start(games)
    if deep_depth is not None:
        openings = [g["opening"] for games in record["game_records"].values() for g in games]
        values = opening_values(get_game(record["game"]), record["options"], openings, deep_depth)
        record["opening_values"] = {"depth": deep_depth, "values": values}
        for spec, games in record["game_records"].items():
            record["figures"][spec] |= by_deep_value(games, values, deep_depth)
    written = path.with_name(path.name + ".tmp")  # the file is replaced whole or left as it was
    written.write_text(json.dumps(record, indent=1, default=str) + "\n")
    written.replace(path)


# --- endgames -------------------------------------------------------------------------------------------------------


@functools.cache
def solve(state: Any) -> int:
    """The final store difference (the player to move's minus the other's) under perfect play."""
    if state.is_terminal:
        return state.stores[state.to_move] - state.stores[1 - state.to_move]
    return max(move_value(state, action) for action in state.legal_actions())


def move_value(state: Any, action: int) -> int:
    """The final store difference for the player who plays ``action``, perfect play after it."""
    child = state.play(action)
    value = solve(child)
    return value if child.to_move == state.to_move else -value


def endgames(game: Game, options: dict[str, Any], count: int, seeds_left: int, seed: int) -> list[Any]:
    """Live positions with 2..``seeds_left`` seeds in the pits, each row holding some, the rest in the stores."""
    rng = np.random.default_rng(seed)
    start = game.initial(**options)
    pits, total = len(start.board), sum(start.board)
    found = []
    while len(found) < count:
        board = np.bincount(rng.integers(0, pits, size=int(rng.integers(2, seeds_left + 1))), minlength=pits)
        kept = total - int(board.sum())
        mine = int(rng.integers(0, kept + 1))
        state = type(start).from_position(board.tolist(), (mine, kept - mine), int(rng.integers(2)), **options)
        if not state.is_terminal and len(state.legal_actions()) > 1:
            found.append(state)
    return found


def endgame_accuracy(spec: str, positions: list[Any]) -> dict[str, Any]:
    """How often ``spec``'s move keeps the solved outcome and the solved score, and the seeds its moves give away."""
    outcome = score = lost = 0
    for i, state in enumerate(positions):
        agent = make(spec, seed=i)
        best = solve(state)
        value = move_value(state, agent.act(state))
        outcome += np.sign(value) == np.sign(best)
        score += value == best
        lost += best - value
    n = len(positions)
    return {"positions": n, "outcome_perfect": round(outcome / n, 4), "score_perfect": round(score / n, 4),
            "seeds_lost": round(lost / n, 3)}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summarise", type=Path, help="only add the figures derived from the game records of this "
                        "result file (by_start) to it")  # fmt: skip
    parser.add_argument("--deep-depth", type=int, help="with --summarise: also search each opening to this depth and "
                        "split the games by its value for our side (by_deep_value)")  # fmt: skip
    parser.add_argument("--game", choices=list(GAMES), help="our game (required to play)")
    parser.add_argument("--option", type=rule_flag, action="append", default=[], help="a rule flag, FLAG=VALUE")
    parser.add_argument("--openspiel", help="pyspiel's name of the game (default: --game)")
    parser.add_argument("--agent", action="append", help="our agent's spec (repeatable; required to play)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move OpenSpiel's bot is given")
    parser.add_argument("--simulations", type=int, help="OpenSpiel's bot's simulations per move instead (no "
                        "calibration: versions of our agents compared on a loaded machine meet one bot)")  # fmt: skip
    parser.add_argument("--games", type=int, default=100, help="games per agent (even: pairs, seats swapped)")
    parser.add_argument("--opening-plies", type=int, default=2, help="random moves opening each pair of games")
    parser.add_argument("--endgames", type=int, default=0, help="endgame positions each agent is scored on")
    parser.add_argument("--endgame-seeds", type=int, default=6, help="most seeds left in the pits of an endgame")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, nargs="?", const="default", default=None,
                        help="write the figures and their provenance as JSON (default file: "
                        "benchmarks/results/strength_openspiel_<game>.json)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.deep_depth is not None and (args.summarise is None or args.deep_depth < 1):
        parser.error(f"--deep-depth goes with --summarise and is a positive depth, got {args.deep_depth}")
    if args.summarise is not None:
        try:
            summarise(args.summarise, args.deep_depth)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            parser.error(f"--summarise {args.summarise}: not a readable result file of this script with game records "
                         f"({type(error).__name__}: {error})")  # fmt: skip
        return
    if args.game is None or not args.agent:
        parser.error("--game and --agent are required to play")
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be an even number >= 2, got {args.games}")
    if args.simulations is not None and args.simulations < 1:
        parser.error(f"--simulations must be a positive number, got {args.simulations}")
    game, options = get_game(args.game), dict(args.option)
    reference = pyspiel.load_game(args.openspiel or args.game)
    started = time.monotonic()
    for spec in args.agent:  # compile (or load) each agent's search outside any clock
        make(spec).act(game.initial(**options))
    simulations, rate = calibrate(reference, args.time)
    print(
        f"OpenSpiel's MCTSBot: {rate:,.0f} simulations/s here, {simulations} per move ({args.time} s) at the start, "
        "measured again before each pair of games",
        flush=True,
    )
    positions = endgames(game, options, args.endgames, args.endgame_seeds, args.seed) if args.endgames else []
    figures: dict[str, Any] = {"openspiel_simulations": simulations, "openspiel_simulations_per_s": round(rate)}
    records = {}
    for spec in args.agent:
        result = match(game, options, reference, spec, args.games, args.opening_plies, args.time, args.seed,
                       args.simulations)  # fmt: skip
        records[spec] = result.pop("game_records")
        bot = result["openspiel_simulations"]
        print(f"{spec} vs OpenSpiel MCTS ({bot['min']}-{bot['max']} simulations): {result['wins']}-{result['draws']}-"
              f"{result['losses']}, score {result['score']:.1%} [{result['score_low']:.1%}, "
              f"{result['score_high']:.1%}]", flush=True)  # fmt: skip
        if positions:
            result["endgames"] = e = endgame_accuracy(spec, positions)
            print(f"{spec} on {e['positions']} endgames of <= {args.endgame_seeds} seeds: outcome kept "
                  f"{e['outcome_perfect']:.1%}, score kept {e['score_perfect']:.1%}, {e['seeds_lost']} seeds lost "
                  f"per move", flush=True)  # fmt: skip
        figures[spec] = result
    figures["wall_s"] = round(time.monotonic() - started, 1)
    out = RESULTS / f"strength_openspiel_{game.name}.json" if str(args.out) == "default" else args.out
    bot = {"uct_c": UCT_C, "rollouts": ROLLOUTS, "solve": True, "max_memory_mb": MAX_MEMORY_MB}
    write_result(out, figures, game=game.name, options=options, openspiel=reference.get_type().short_name,
                 openspiel_bot=bot, seconds_per_move=args.time, games=args.games, opening_plies=args.opening_plies,
                 endgame_seeds=args.endgame_seeds if positions else None, seed=args.seed,
                 game_records=records)  # fmt: skip


if __name__ == "__main__":
    main()
