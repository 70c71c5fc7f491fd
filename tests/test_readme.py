"""Everything the README shows runs: each of its Python blocks on its own, extracted from README.md and run in a
fresh interpreter (as a reader pastes one block into a new file: its imports must be its own); every program of its
shell blocks answers ``--help`` and has the options the README uses (shell blocks train, serve or play for minutes,
so they are checked, not run); the quick start is the two commands of the issue; the board picture is the project's
own drawing.

Marker rule: a Python block that must not run in the suite (a long-running job) is preceded, on the line just
above its fence, by ``<!-- readme-test: not run: REASON -->``; the test skips it, naming the reason, and fails on a
marker without a reason. Blocks run with ``AWALE_QUICK=1`` (the small budgets of the notebooks) in a temporary
directory.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_runner import awale
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BIN = Path(sys.executable).parent
#: Commands that set up a machine, checked by test_quick_start rather than run.
SETUP = {("python3", "-m", "venv"), (".venv/bin/pip", "install"), ("bash", ".ci/run")}


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def shell_commands() -> list[list[str]]:
    """Every command of the bash blocks, comments dropped, ``a && b`` split, as argument lists."""
    commands = []
    for block in blocks("bash"):
        for line in block.splitlines():
            for command in line.split("&&"):
                words = shlex.split(command, comments=True)
                if words:
                    commands.append(words)
    return commands


def is_setup(words: list[str]) -> bool:
    return tuple(words[:3]) in SETUP or tuple(words[:2]) in SETUP


def programs() -> dict[tuple[str, ...], set[str]]:
    """The argv of each program (with its subcommands) the README runs, and the options it is shown with."""
    found: dict[tuple[str, ...], set[str]] = {}
    for words in shell_commands():
        if is_setup(words):
            continue
        program = words[0].removeprefix(".venv/bin/")
        if program in ("python", "python3") and words[1] == "-m":
            argv, rest = (sys.executable, "-m", words[2]), words[3:]
        elif program in ("python", "python3"):
            argv, rest = (sys.executable, str(ROOT / words[1])), words[2:]
        elif program == "awale":
            subcommands = []
            for word in words[1:]:
                if word.startswith("-"):
                    break
                subcommands.append(word)
            argv, rest = (str(BIN / "awale"), *subcommands), words[1 + len(subcommands) :]
        else:
            raise AssertionError(f"the README shows a command this test cannot check: {' '.join(words)}")
        found.setdefault(argv, set()).update(word.split("=")[0] for word in rest if word.startswith("--"))
    return found


PROGRAMS = programs()


NOT_RUN = re.compile(r"<!-- readme-test: not run(?::\s*(?P<reason>[^>]*?))?\s*-->\n$")


@dataclass
class PythonBlock:
    heading: str
    code: str
    not_run: str | None  # the reason given by a not-run marker, "" for a marker without one


def python_blocks() -> list[PythonBlock]:
    """The README's Python blocks in order, each with the heading it stands under and its not-run marker."""
    text = README.read_text()
    found = []
    for match in re.finditer(r"```python\n(.*?)```", text, flags=re.S):
        before = text[: match.start()]
        headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", before, flags=re.S), flags=re.M)
        marker = NOT_RUN.search(before[-300:])
        reason = None if marker is None else marker["reason"] or ""
        found.append(PythonBlock(headings[-1] if headings else "top", match.group(1), reason))
    return found


PYTHON_BLOCKS = python_blocks()


def block_id(block: PythonBlock) -> str:
    same = [b for b in PYTHON_BLOCKS if b.heading == block.heading]
    suffix = f"-{same.index(block) + 1}" if len(same) > 1 else ""
    return re.sub(r"[^a-z0-9]+", "-", block.heading.lower()).strip("-") + suffix


def test_readme_shows_the_apis_in_python():
    assert len(PYTHON_BLOCKS) >= 6, "the README shows the State API, the three envs, the agents and the arena"


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[block_id(block) for block in PYTHON_BLOCKS])
def test_readme_python_block_runs_on_its_own(block, tmp_path):
    if block.not_run is not None:
        assert block.not_run.strip(), "a not-run marker says why: <!-- readme-test: not run: REASON -->"
        pytest.skip(f"marked not run: {block.not_run}")
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    # TMPDIR: SB3 makes a log directory in the temporary directory at every learn() without a logger of the caller's
    env = {**os.environ, "AWALE_QUICK": "1", "PYTHONPATH": path, "MPLBACKEND": "Agg", "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", block.code], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900
    )
    assert done.returncode == 0, f"the README block under '{block.heading}' fails on its own:\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), "every README block prints what it shows"
    if "alphazero.policy" in block.code:
        assert "alphazero visit counts" in done.stdout
    if "format_table" in block.code:
        assert "Elo" in done.stdout


@pytest.mark.parametrize(
    "argv",
    sorted(PROGRAMS),
    ids=lambda argv: " ".join([Path(argv[0]).name, *(a.replace(f"{ROOT}/", "") for a in argv[1:])]),
)
def test_readme_command_exists_with_its_options(argv):
    """``awale`` commands answer in this process (tests/cli_runner.py), the other programs in their own."""
    wide = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    if Path(argv[0]) == BIN / "awale":
        result = awale(*argv[1:], "--help", cwd=ROOT, env=wide)
        code, out, err = result.exit_code, result.stdout, result.output
    else:
        done = subprocess.run([*argv, "--help"], capture_output=True, text=True, cwd=ROOT, env={**os.environ, **wide},
                              timeout=120)  # fmt: skip
        code, out, err = done.returncode, done.stdout, done.stderr
    assert code == 0, f"{' '.join(argv)} --help failed:\n{err}"
    for option in sorted(PROGRAMS[argv]):
        assert option in out, f"{' '.join(argv)}: the README shows {option}, which is not one of its options"


def test_quick_start_is_two_commands_install_and_demo_then_ci():
    (quick_start,) = [block for block in blocks("bash") if "awale demo" in block]
    commands = [line for line in quick_start.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2 and commands[1] == "bash .ci/run"
    assert commands[0].endswith("&& .venv/bin/awale demo")
    pin = re.search(r"pip install (torch==\S+)", commands[0]).group(1)
    assert f"install --quiet {pin}" in (ROOT / ".ci" / "run").read_text(), "the README and CI install the same torch"
    extras = re.search(r'pip install -e "\.\[([^\]]+)\]"', commands[0]).group(1).split(",")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert all(re.search(rf"^{extra} = \[", pyproject, flags=re.M) for extra in extras), "extras of pyproject.toml"
    assert {tuple(w[:2]) for w in shell_commands() if is_setup(w)} == {
        ("python3", "-m"),
        (".venv/bin/pip", "install"),
        ("bash", ".ci/run"),
    }


def test_board_picture_is_drawn_by_the_project():
    from awale_env.games.awale16.render import render_rgb

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from make_board_png import position
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert "](docs/board.png)" in README.read_text()
    with Image.open(ROOT / "docs" / "board.png") as picture:
        expected = render_rgb(*position())
        assert picture.size == (expected.shape[1], expected.shape[0])


def test_web_section_counts_every_game_of_the_registry():
    """The page serves every registered game; the README's web section says how many."""
    from awale_env.games import GAMES

    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    section = README.read_text().split("## Play in the browser", 1)[1].split("\n## ", 1)[0]
    section = " ".join(section.split())
    assert f"each of the {words[len(GAMES)]} games of the registry" in section
