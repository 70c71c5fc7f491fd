"""Games lost on time by the course's recommended agents on a busy machine (issue 41's goal: none): ``awale referee``
and ``awale tournament`` at the course's 3 s per move, every answer timed from the program's launch (no start-up
allowance, as the course's referee does), with ``--busy`` processes spinning beside them (8 on 2 cores: a student's
laptop running the opponent's program and a browser).

- ``awale referee``: each agent as ``awale bot`` against ``awale bot --agent greedy`` (an opponent that answers at
  once), ``--games`` games, seats alternating.
- ``awale tournament``: the agents as in-process entries (prepared before their first timed move) in a round robin,
  ``--games-per-pair`` games per pair, seats swapped.

Games stop at a ply limit to keep the run short: ``--referee-plies`` long enough for the programs' fallback to hand
over to the loaded agent (about 8 s after launch at load 8: the longest later answer then shows the agent's time),
``--tournament-plies`` shorter (its agents are prepared before their first timed move). Prints, per agent and
setting, games, losses on time and the longest answer; ``--out`` writes them with their provenance.

    python benchmarks/bench_time_losses.py --game awale16_2025 --busy 8 --out
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from provenance import add_out_option, busy_processes, write_result

AWALE = str(Path(sys.executable).with_name("awale"))
#: The agents docs/editions.md recommends for the course's 3 s per move.
COURSE_AGENTS = ("alphabeta:time=2", "alphabeta:time=2.5", "alphazero:pretrained,time=2")


def bot(game: str, spec: str) -> str:
    """The command line of ``awale bot`` playing ``spec``."""
    return f"{AWALE} bot --game {game} --agent {spec}"


def run(command: list[str]) -> subprocess.CompletedProcess:
    """``command`` to its end; SystemExit with its last error line if it fails."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{' '.join(command[:2])} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done


def refereed(game: str, spec: str, games: int, max_plies: int, folder: Path) -> dict[str, Any]:
    """``awale referee`` between ``spec`` and greedy: the agent's games, losses on time and longest answers."""
    out = folder / "referee.json"
    run([AWALE, "referee", bot(game, spec), bot(game, "greedy"), "--game", game, "--games", str(games), "--time", "3",
         "--startup", "0", "--max-plies", str(max_plies), "--out", str(out)])  # fmt: skip
    program = json.loads(out.read_text())["programs"][0]
    return {"games": program["games"], "time_losses": program["faults"].get("timeout", 0),
            "faults": program["faults"], "first_answer_s": round(program["first_answer"], 2),
            "longest_answer_s": round(program["longest_answer"], 2)}  # fmt: skip


def tournament(game: str, specs: list[str], games_per_pair: int, max_plies: int, folder: Path) -> dict[str, Any]:
    """``awale tournament`` of ``specs`` as in-process agents: per agent, its games and losses on time."""
    players = folder / "players.toml"
    players.write_text("".join(f'[[player]]\nname = "{spec}"\nagent = "{spec}"\n\n' for spec in specs))
    done = run([AWALE, "tournament", "run", str(players), "--game", game, "--games-per-pair", str(games_per_pair),
                "--time", "3", "--startup", "0", "--max-plies", str(max_plies), "--db", str(folder / "t.db"),
                "--no-progress", "--json"])  # fmt: skip
    standings = json.loads(done.stdout[done.stdout.index("[") :])
    return {row["player"]: {"games": row["games"], "time_losses": row["faults_timeout"],
                            "faults": {key[len("faults_"):]: count for key, count in row.items()
                                       if key.startswith("faults_") and count}} for row in standings}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, help="the course's game (registry name)")
    parser.add_argument("--agents", nargs="+", default=list(COURSE_AGENTS), help="agent specs")
    parser.add_argument("--busy", type=int, default=8, help="busy processes beside the games")
    parser.add_argument("--games", type=int, default=2, help="awale referee: games per agent (seats alternate)")
    parser.add_argument("--games-per-pair", type=int, default=2, help="awale tournament: games per pair")
    parser.add_argument("--referee-plies", type=int, default=50, help="ply limit of awale referee's games")
    parser.add_argument("--tournament-plies", type=int, default=20, help="ply limit of awale tournament's games")
    add_out_option(parser, "time_losses")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {"referee": {}, "tournament": {}}
    with tempfile.TemporaryDirectory() as scratch, busy_processes(args.busy):
        for spec in args.agents:
            result = refereed(args.game, spec, args.games, args.referee_plies, Path(scratch))
            figures["referee"][spec] = result
            print(f"awale referee     {spec:<30} {result['games']} games, {result['time_losses']} lost on time "
                  f"(first answer {result['first_answer_s']} s, longest later {result['longest_answer_s']} s)",
                  flush=True)  # fmt: skip
        plies = args.tournament_plies
        figures["tournament"] = tournament(args.game, args.agents, args.games_per_pair, plies, Path(scratch))
        for spec, result in figures["tournament"].items():
            print(f"awale tournament  {spec:<30} {result['games']} games, {result['time_losses']} lost on time")
    lost = sum(r["time_losses"] for setting in figures.values() for r in setting.values())
    figures["time_losses"] = lost
    print(f"{lost} game(s) lost on time, {args.busy} busy processes beside them")
    if args.out:
        write_result(args.out, figures, options={k: v for k, v in vars(args).items() if k != "out"})


if __name__ == "__main__":
    main()
