"""Write the measured figures into README.md and docs/*.md from the result files under benchmarks/results/.

    python benchmarks/update_docs.py           # rewrite every marked region from its result file
    python benchmarks/update_docs.py --check   # change nothing; exit 1 naming each region its file disagrees with

A figure in the docs lives between two HTML comments (invisible on GitHub) naming where it comes from. FILE is a
result under benchmarks/results/ without its suffix: ``engine`` is ``engine.json``, written by a benchmark's ``--out``
(benchmarks/provenance.py), and ``arena_awale16`` is the folder an ``awale arena --out`` wrote (its
``results.json``, with the ``provenance.json`` that ``python benchmarks/provenance.py DIR -- COMMAND`` records).

- ``<!-- figure:FILE#KEY|FORMAT -->10.7M<!-- /figure -->``: one figure. KEY is a key of the file's figures (nested
  keys joined by dots: ``self_play.moves_per_s``); in an arena folder an agent spec (its standing) or ``A vs B``
  (their pair's games, from A's side); in a match's file (benchmarks/match.py) ``match`` is its W-D-L and
  ``score_interval`` its score with its 95 % interval (format ``interval``: ``58.0 % [51.3, 64.7]``). FORMAT
  (optional) is one of :data:`FORMATS`.
- ``<!-- source:FILE -->...<!-- /source -->``: where FILE's figures come from: command, date, machine, load. A doc
  that shows a figure of FILE credits FILE with a source marker or a table of it.
- ``<!-- table:NAME -->`` + newline ... ``<!-- /table -->``: a generated block. NAME is one of :data:`TABLES` or an
  arena folder, whose standings table (agent, score, Elo) it writes with its source below.

tests/test_doc_figures.py runs the check, so a doc whose figure and result file disagree fails the suite.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
MARKER = re.compile(
    r"<!-- (?P<kind>figure|source|table):(?P<name>[^#|>]+?)(?:#(?P<key>[^|>]+?))?(?:\|(?P<format>\w+))? -->"
    r"(?P<body>.*?)<!-- /(?P=kind) -->",
    re.S,
)
OPENING = re.compile(r"<!-- (figure|source|table):")
#: What a measured figure looks like in prose: a speed (``465 moves/s``, ``4,340 games/hour``), a match's result
#: (``113-2-85 (57.0 %)``, ``98.8 % of 200 games``, any W-D-L) or any other percentage (:data:`NOT_MEASURED` aside).
#: Outside a figure marker and code, one must stand in a paragraph that names its result file (a
#: ``benchmarks/results/`` path or a source marker; a table's caption names them for it), else ``--check`` fails.
MEASURED = re.compile(
    r"\d[\d,.]*[kM]? (?:moves|steps|plies|simulations|nodes|games|evaluations)/s|\d[\d,.]*[kM]? games/hour"
    r"|\b\d+-\d+-\d+ \(\d[\d.]*(?: ?%)?|\d+(?:\.\d)? % of \d[\d,]* games"
    r"|(?<![\w.-])(?:\d+(?:\.\d+)?-)?\d+(?:\.\d+)? ?%"  # any percentage: a score, a share, a rate of agreement
    r"|(?<![\w.-])(?!20\d\d-\d\d-\d\d)\d+-\d+-\d+(?![\w.-])"  # any wins-draws-losses (not a date)
)
#: The percentages that are no measurement: the confidence level of an interval (``95 % interval``, ``95 % CI``,
#: ``[95 %]``). A setting is written as the fraction its option takes (``--pool-random 0.1``), never as a percentage.
NOT_MEASURED = re.compile(r"\b95 %(?= (?:confidence|intervals?|CI)\b|\])")
FILED = ("benchmarks/results/", "<!-- source:", "<!-- table:")


class FigureError(ValueError):
    """A marker that names no result file, no figure of it, or no known format."""


@dataclass
class Result:
    """One result file: its figures flattened to one level of keys, and its provenance."""

    name: str
    figures: dict[str, Any]
    provenance: dict[str, Any]
    arena: dict[str, Any] | None = None


def flatten(figures: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in figures.items():
        if isinstance(value, dict):
            flat |= flatten(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def load(name: str, cache: dict[str, Result]) -> Result:
    """The result ``name``: ``benchmarks/results/<name>.json`` or the arena folder ``benchmarks/results/<name>``."""
    if name in cache:
        return cache[name]
    path = RESULTS / f"{name}.json"
    folder = RESULTS / name
    if path.is_file():
        record = json.loads(path.read_text())
        if not isinstance(record, dict) or not {"figures", "provenance"} <= record.keys():
            raise FigureError(f"{path} is no result file (its figures and provenance, as provenance.py writes them)")
        figures = flatten(record["figures"])
        if {"wins", "draws", "losses"} <= figures.keys():  # a match (benchmarks/match.py): its W-D-L as one figure
            figures["match"] = {key: figures[key] for key in ("wins", "draws", "losses")}
        if {"score", "score_low", "score_high"} <= figures.keys():  # its score with the 95 % interval, as one figure
            figures["score_interval"] = (figures["score"], figures["score_low"], figures["score_high"])
        result = Result(name, figures, record["provenance"])
    elif (folder / "results.json").is_file():
        arena = json.loads((folder / "results.json").read_text())
        origin = folder / "provenance.json"
        figures: dict[str, Any] = {row["agent"]: row for row in arena["standings"]}
        for pair in arena["pairs"]:
            figures[f"{pair['agent']} vs {pair['opponent']}"] = pair
            reverse = {"wins": pair["losses"], "draws": pair["draws"], "losses": pair["wins"]}
            figures[f"{pair['opponent']} vs {pair['agent']}"] = reverse
        provenance = json.loads(origin.read_text()) if origin.is_file() else {}
        result = Result(name, figures, provenance, arena)
    else:
        raise FigureError(f"no result file {name}.json nor arena folder {name}/ (with results.json) in {RESULTS}")
    cache[name] = result
    return result


def significant(value: float, digits: int = 3) -> float:
    """``value`` rounded to ``digits`` significant digits."""
    if value == 0:
        return 0.0
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def wdl(games: dict[str, Any]) -> str:
    return f"{games['wins']}-{games['draws']}-{games['losses']}"


def score(games: dict[str, Any]) -> str:
    """The score (win 1, draw 1/2) in percent: given by a standing, computed for a pair."""
    if "score" in games:
        return f"{100 * games['score']:.1f} %"
    total = games["wins"] + games["draws"] + games["losses"]
    return f"{100 * (games['wins'] + games['draws'] / 2) / total:.1f} %"


#: How a figure is written: FORMAT -> function of the value.
FORMATS: dict[str, Callable[[Any], str]] = {
    "M": lambda v: f"{significant(v / 1e6):g}M",  # 10.7M
    "k": lambda v: f"{significant(v / 1e3):g}k",  # 163k
    "int": lambda v: f"{significant(v):,.0f}",  # 17,600 (three significant digits)
    "x": lambda v: f"{v:.1f}x",  # 3.6x
    "percent": lambda v: f"{100 * v:.1f} %",  # a share: 0.572 is 57.2 %
    "s": lambda v: f"{v:.2f} s",  # 0.62 s
    "min": lambda v: f"{v / 60:.0f} min",  # seconds as minutes: 1,234 is 21 min
    "raw": lambda v: f"{v}",
    "wdl": wdl,  # 72-1-27 (a pair or a standing)
    "score": score,  # 72.5 %
    "wdl_score": lambda g: f"{wdl(g)} ({score(g)})",
    "elo": lambda g: f"{g['elo']:.0f} [{g['elo_low']:.0f}, {g['elo_high']:.0f}]",
    "interval": lambda v: f"{100 * v[0]:.1f} % [{100 * v[1]:.1f}, {100 * v[2]:.1f}]",  # a match's score_interval
}


def default_format(value: Any) -> str:
    if isinstance(value, dict):
        return "wdl_score"
    if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) >= 1e6:
        return "M"
    return "int" if isinstance(value, int | float) and abs(value) >= 100 else "raw"


def figure_text(result: Result, key: str, style: str | None) -> str:
    if key not in result.figures:
        raise FigureError(f"{result.name} has no figure {key!r}; it has: {', '.join(sorted(result.figures))}")
    value = result.figures[key]
    style = style or default_format(value)
    if style not in FORMATS:
        raise FigureError(f"unknown format {style!r} (formats: {', '.join(FORMATS)})")
    return FORMATS[style](value)


def load_text(provenance: dict[str, Any]) -> str:
    before, after = provenance.get("load_before"), provenance.get("load_after")
    if before is None:
        return "load not recorded"
    if after is None or f"{after:.1f}" == f"{before:.1f}":
        return f"load {before:.1f}"
    return f"load {before:.1f}-{after:.1f}"


def machine_text(provenance: dict[str, Any], with_torch: bool = True) -> str:
    machine = provenance.get("machine", {})
    parts = [f"{machine.get('cores', '?')} cores {machine.get('cpu', '?')}"]
    if machine.get("memory_gb"):
        parts.append(f"{machine['memory_gb']:.0f} GB")
    if machine.get("python"):
        parts.append(f"Python {machine['python']}")
    if machine.get("torch") and with_torch:
        parts.append(f"torch {machine['torch']}")
    return ", ".join(parts)


def source_text(result: Result) -> str:
    p = result.provenance
    if not p:
        raise FigureError(f"{result.name} has no provenance (date, command, machine, load)")
    return f"`{p['command']}`, {p['date'][:10]}, {load_text(p)} ({machine_text(p)})"


def arena_table(result: Result) -> str:
    """The standings of an arena run: agent, score, Elo with its interval; its source below."""
    assert result.arena is not None
    rows = ["| agent | W-D-L | score | Elo [95 % CI] |", "| --- | ---: | ---: | --- |"]
    for row in result.arena["standings"]:
        rows.append(f"| `{row['agent']}` | {wdl(row)} | {score(row)} | {FORMATS['elo'](row)} |")
    games = {pair["wins"] + pair["draws"] + pair["losses"] for pair in result.arena["pairs"]}
    per_pair = "/".join(str(n) for n in sorted(games))
    rows.append("")
    rows.append(f"{per_pair} games per pair, seed {result.arena['seed']}; made by {source_text(result)}.")
    return "\n".join(rows)


#: The README's benchmark table: (what, how its figures read, [(FILE, KEY, FORMAT), ...]). CPU time is what the core
#: gave the process: on a shared machine it moves far less with the load than the wall clock.
BENCHMARK_ROWS: list[tuple[str, str, list[tuple[str, str, str]]]] = [
    (
        "compiled random playouts, one thread",
        "{} plies/s of CPU time ({} wall-clock)",
        [("engine", "playout_plies_per_cpu_s", "M"), ("engine", "playout_plies_per_s", "M")],
    ),
    (
        "`State.play` + `legal_actions` from Python",
        "{} moves/s of CPU time ({} wall-clock)",
        [("engine", "state_api_moves_per_cpu_s", "k"), ("engine", "state_api_moves_per_s", "k")],
    ),
    (
        "PettingZoo AEC env, random masked play",
        "{} steps/s of CPU time ({} wall-clock; {} PettingZoo's `connect_four_v3` measured alike)",
        [
            ("envs", "aec_steps_per_cpu_s", "int"),
            ("envs", "aec_steps_per_s", "int"),
            ("envs", "aec_vs_connect_four", "x"),
        ],
    ),
    (
        "Gymnasium env against the random opponent",
        "{} steps/s of CPU time ({} wall-clock)",
        [("envs", "gym_steps_per_cpu_s", "int"), ("envs", "gym_steps_per_s", "int")],
    ),
    (
        "vector env, self-play, 4,096 games",
        "{} steps/s of CPU time ({} wall-clock); against the built-in random opponent {} ({})",
        [
            ("envs", "vector_steps_per_cpu_s", "M"),
            ("envs", "vector_steps_per_s", "M"),
            ("envs", "vector_vs_random_steps_per_cpu_s", "M"),
            ("envs", "vector_vs_random_steps_per_s", "M"),
        ],
    ),
    (
        "alpha-beta (default evaluation), one core",
        "{} nodes/s of CPU time ({} wall-clock); depth 10 from the opening in {} of CPU time ({} wall-clock)",
        [
            ("agents", "alphabeta_nodes_per_cpu_s_tuned", "M"),
            ("agents", "alphabeta_nodes_per_s_tuned", "M"),
            ("agents", "alphabeta_depth10_cpu_seconds", "s"),
            ("agents", "alphabeta_depth10_seconds", "s"),
        ],
    ),
    (
        "MCTS, one core",
        "{} simulations/s of CPU time ({} wall-clock)",
        [("agents", "mcts_simulations_per_cpu_s", "int"), ("agents", "mcts_simulations_per_s", "int")],
    ),
    (
        "PPO learner env (tactical features)",
        "{} moves/s against random, {} against a snapshot (wall-clock)",
        [("ppo", "env_tactics_vs_random", "int"), ("ppo", "env_tactics_vs_snapshot", "int")],
    ),
    (
        "PPO learner's 16 games against `mcts:simulations=2000`",
        "{} moves/s in worker processes (`--vec-env subproc`), {} in the learner's process (wall-clock)",
        [("ppo_vec_env", "subproc_moves_per_s", "int"), ("ppo_vec_env", "dummy_moves_per_s", "int")],
    ),
    (
        "AlphaZero self-play, 64x4 net, 100 simulations, 2 workers",
        "{} moves/s, {} network evaluations/s (wall-clock)",
        [("alphazero", "self_play.moves_per_s", "int"), ("alphazero", "self_play.evaluations_per_s", "int")],
    ),
]


def benchmark_table(cache: dict[str, Result]) -> str:
    rows = ["| what | figure | measured |", "| --- | --- | --- |"]
    files: list[str] = []
    for what, template, figures in BENCHMARK_ROWS:
        texts = [figure_text(load(name, cache), key, style) for name, key, style in figures]
        names = list(dict.fromkeys(name for name, _, _ in figures))
        for name in names:
            if name not in files:
                files.append(name)
        origins = [load(name, cache).provenance for name in names]
        when = "; ".join(f"{origin['date'][:10]}, {load_text(origin)}" for origin in origins)
        rows.append(f"| {what} | {template.format(*texts)} | {when} |")
    rows.append("")
    machines = list(dict.fromkeys(machine_text(load(name, cache).provenance, with_torch=False) for name in files))
    said = f"Machine: {machines[0]}" if len(machines) == 1 else f"Machines: {'; '.join(machines)} (each file's below)"
    rows.append(f"{said}. Made by:")
    rows.append("")
    rows += [f"- {name}: {source_text(load(name, cache))}" for name in files]
    return "\n".join(rows)


def strength_table(heading: str | None) -> Callable[[dict[str, Result]], str]:
    """A table of the file ``benchmarks/strength.py --markdown`` wrote from the round robins' journals: the first one
    (every agent at every budget), or the first under ``heading`` (one budget's standings)."""

    def table(cache: dict[str, Result]) -> str:
        path = RESULTS / "strength" / "strength.md"
        lines = path.read_text().splitlines()
        first = 0 if heading is None else lines.index(heading) if heading in lines else len(lines)
        start = next((i for i in range(first, len(lines)) if lines[i].startswith("| agent |")), None)
        if start is None:
            raise FigureError(f"{path} holds no table of agents under {heading or 'its title'}")
        end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
        return "\n".join(lines[start:end])

    return table


def playouts_table(cache: dict[str, Result]) -> str:
    """The engines' random playouts per CPU second, game by game, beside the default game's (bench_playouts.py)."""
    result = load("playouts", cache)
    rates = {key.split(".", 1)[1]: value for key, value in result.figures.items() if key.startswith("plies_per_cpu_s.")}
    rows = ["| game | random playouts | vs the default game |", "| --- | ---: | ---: |"]
    ratios = {name: result.figures[f"vs_default.{name}"] for name in rates}
    rows += [f"| `{name}` | {FORMATS['M'](rate)} plies/s | {ratios[name]:.2f}x |" for name, rate in rates.items()]
    return "\n".join([*rows, "", f"Made by {source_text(result)}."])


#: Generated blocks by name (an arena folder's name gives its standings table).
TABLES: dict[str, Callable[[dict[str, Result]], str]] = {
    "benchmarks": benchmark_table,
    "playouts": playouts_table,
    "strength": strength_table(None),
    **{f"strength_{seconds}s": strength_table(f"## {seconds} s per move") for seconds in ("0.1", "0.3", "1")},
}


def render(kind: str, name: str, key: str | None, style: str | None, cache: dict[str, Result]) -> str:
    """What the region of a marker holds, from its result file."""
    if kind == "figure":
        if key is None:
            raise FigureError(f"figure:{name} names no figure: figure:{name}#KEY")
        return figure_text(load(name, cache), key, style)
    if kind == "source":
        return source_text(load(name, cache))
    table = TABLES[name](cache) if name in TABLES else arena_table(load(name, cache))
    return f"\n{table}\n"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def update_text(text: str, where: str, cache: dict[str, Result]) -> tuple[str, list[str]]:
    """``text`` with every region rewritten from its file, and the regions that were out of date."""
    stale: list[str] = []
    if len(OPENING.findall(text)) != len(MARKER.findall(text)):
        raise FigureError(f"{where}: a figure, source or table marker is not closed (<!-- /figure --> etc.)")
    shown: set[str] = set()
    credited: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        kind, name, key, style = match["kind"], match["name"], match["key"], match["format"]
        try:
            body = render(kind, name, key, style, cache)
        except FigureError as error:
            raise FigureError(f"{where}: {error}") from None
        (shown if kind == "figure" else credited).add(name)
        if body != match["body"]:
            line = text.count("\n", 0, match.start()) + 1
            label = f"{kind}:{name}" + (f"#{key}" if key else "")
            stale.append(f"{where}:{line}: {label} says {match['body'].strip()[:60]!r}, its file {body.strip()[:60]!r}")
        start = match.group(0)[: match.start("body") - match.start()]
        return f"{start}{body}<!-- /{kind} -->"

    updated = MARKER.sub(replace, text)
    uncredited = shown - credited
    if uncredited:
        raise FigureError(f"{where}: shows figures of {', '.join(sorted(uncredited))} without a source or table marker")
    return updated, stale


def unfiled(text: str, where: str) -> list[str]:
    """The measured figures (:data:`MEASURED`) of ``text`` outside figure markers and code in a paragraph (or list
    item) that names no result file, nor, for a table, in the paragraph just before it (its caption): a claim
    nothing stands behind."""
    found = []

    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    blanked = re.sub(r"```.*?```", blank, text, flags=re.S)  # code blocks: commands
    blanked = MARKER.sub(lambda m: blank(m) if m["kind"] == "figure" else m.group(0), blanked)
    prose = NOT_MEASURED.sub(blank, re.sub(r"`[^`]*`", blank, blanked))  # inline code: options, what a program prints
    start, caption_filed = 0, False
    for paragraph in re.split(r"(\n\s*\n|\n(?=\s*- ))", blanked):
        filed = any(mark in paragraph for mark in FILED)
        table = paragraph.strip().startswith("|")
        if not filed and not (table and caption_filed):
            for match in MEASURED.finditer(prose, start, start + len(paragraph)):
                line = blanked.count("\n", 0, match.start()) + 1
                found.append(f"{where}:{line}: {match.group(0)!r} has no result file: put it in a figure marker or "
                             "name its file (benchmarks/results/...) beside it")  # fmt: skip
        if paragraph.strip():
            caption_filed = filed or (table and caption_filed)  # a table split in several keeps its caption
        start += len(paragraph)
    return found


def update(check: bool = False) -> tuple[list[str], list[str]]:
    """Rewrite (or with ``check``, only compare) every marked region of the docs; the regions out of date, and the
    measured figures without a result file (:func:`unfiled`)."""
    cache: dict[str, Result] = {}
    stale: list[str] = []
    missing: list[str] = []
    for path in documents():
        text = path.read_text()
        where = str(path.relative_to(ROOT))
        updated, found = update_text(text, where, cache)
        stale += found
        missing += unfiled(updated, where)
        if not check and updated != text:
            path.write_text(updated)
    return stale, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a region is out of date")
    args = parser.parse_args(argv)
    try:
        stale, missing = update(check=args.check)
    except FigureError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for line in [*stale, *missing]:
        print(line)
    if missing:
        print(f"{len(missing)} measured figure(s) with no result file behind them: mark them or name their files")
    if args.check and stale:
        print(f"{len(stale)} region(s) disagree with their result files: python benchmarks/update_docs.py")
    if args.check and (stale or missing):
        return 1
    print("up to date" if not stale else f"rewrote {len(stale)} region(s)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
