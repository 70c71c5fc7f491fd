"""Everything the README shows runs: its Python blocks (in order, sharing one namespace, as a reader would paste
them); every program of its shell blocks answers ``--help`` and has the options the README uses; the quick start is
the two commands of the issue; the board picture is the project's own drawing."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
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


def test_readme_python_blocks_run(capsys):
    python = blocks("python")
    assert len(python) >= 6, "the README shows the State API, the three envs, the agents and the arena in Python"
    namespace: dict = {}
    for block in python:
        exec(compile(block, str(README), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "alphazero visit counts" in printed and "Elo" in printed


@pytest.mark.parametrize(
    "argv",
    sorted(PROGRAMS),
    ids=lambda argv: " ".join([Path(argv[0]).name, *(a.replace(f"{ROOT}/", "") for a in argv[1:])]),
)
def test_readme_command_exists_with_its_options(argv):
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run([*argv, "--help"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, f"{' '.join(argv)} --help failed:\n{done.stderr}"
    for option in sorted(PROGRAMS[argv]):
        assert option in done.stdout, f"{' '.join(argv)}: the README shows {option}, which is not one of its options"


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
    from awale_env.games.awale16.render import board_image

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from make_board_png import position
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert "](docs/board.png)" in README.read_text()
    with Image.open(ROOT / "docs" / "board.png") as picture:
        expected = board_image(*position())
        assert picture.size == (expected.shape[1], expected.shape[0])
