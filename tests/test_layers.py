"""The project's layering, read from the source (ast): imports never point up, no module-level import circle, and no
code outside a game's own package names a game.

Layers, bottom to top: ``awale_env`` (games, environments, records), ``agents``, ``competition`` (the arena,
tournaments, the referee's pieces), ``training``, ``awale_apps`` (the CLI and the web app). A module may import its
own layer and the layers below, wherever the import stands (module level, inside a function, under
``if TYPE_CHECKING:``). The only exception is ``python -m awale_env``'s entry point, run and never
imported (:data:`UPWARD_ALLOWED`).

Circles are looked for among every import that can run: at module level (class bodies and ``if``/``try`` blocks
included) and inside functions alike, since a function-level import only hides a circle (the two modules still need
each other); imports under ``if TYPE_CHECKING:`` never run and are left out. A game's optional parts (``Game.search``,
``Game.page``) are loaded by name with ``importlib.import_module``, downwards from the registry to the game.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from awale_env.games import GAMES

ROOT = Path(__file__).resolve().parents[1]
#: The project's packages, bottom layer first.
LAYERS = ("awale_env", "agents", "competition", "training", "awale_apps")
#: Modules that may import a layer above theirs: ``python -m awale_env``'s entry point.
UPWARD_ALLOWED = frozenset({"awale_env.__main__"})
#: Where game names are looked for in code: the packages and the benchmark scripts.
NAMING_ROOTS = (*LAYERS, "benchmarks")
#: Where naming a game is the point: every package under it (a game's own, or one a game builds on).
GAME_PACKAGES = Path("awale_env", "games")


@dataclass(frozen=True)
class Import:
    """One import of a module: the module it names, its line, and whether it can run (not under ``if
    TYPE_CHECKING:``)."""

    target: str
    line: int
    runs: bool = True


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module in ``path`` (a package's ``__init__.py`` is the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            modules[module_name(path, root)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement, wherever it stands, with whether it can run (not under ``if TYPE_CHECKING:``)."""
    stack: list[tuple[ast.AST, bool]] = [(tree, True)]
    while stack:
        node, can_run = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, can_run
            continue
        for child in ast.iter_child_nodes(node):
            type_only = isinstance(node, ast.If) and _is_type_checking(node.test) and child in node.body
            stack.append((child, can_run and not type_only))


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """The imports of module ``name``: ``from package import submodule`` names the submodule, ``from module import
    name`` the module; relative imports are resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node, can_run in _import_nodes(tree):
        if isinstance(node, ast.Import):
            found += [Import(alias.name, node.lineno, can_run) for alias in node.names]
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            found.append(Import(submodule if submodule in modules else base, node.lineno, can_run))
    return found


def layer_of(module: str) -> int | None:
    top = module.partition(".")[0]
    return LAYERS.index(top) if top in LAYERS else None


def upward_imports(root: Path) -> list[str]:
    """``module:line imports target`` for every import of a higher layer."""
    modules = project_modules(root, LAYERS)
    found = []
    for name, path in modules.items():
        if name in UPWARD_ALLOWED:
            continue
        for imp in imports_of(name, path, modules):
            target_layer = layer_of(imp.target)
            if target_layer is not None and target_layer > layer_of(name):
                found.append(f"{name}:{imp.line} imports {imp.target} (layer {LAYERS[target_layer]})")
    return sorted(found)


def import_circles(root: Path) -> list[list[str]]:
    """The circles of imports that can run (at module level or inside functions) among the project's modules: one
    shortest circle through each strongly connected group of modules (Tarjan's algorithm, then a breadth-first search
    inside the group)."""
    modules = project_modules(root, LAYERS)
    graph = {
        name: sorted({imp.target for imp in imports_of(name, path, modules) if imp.runs and imp.target in modules})
        for name, path in modules.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph[node]:
                groups.append(sorted(group))

    for node in graph:
        if node not in index:
            connect(node)
    return sorted(_shortest_circle(graph, group) for group in groups)


def _shortest_circle(graph: dict[str, list[str]], group: list[str]) -> list[str]:
    """The shortest import circle through the group's first module, staying inside the group."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in graph[node]:
                if target == start:
                    return [*paths[node], start]
                if target in members and target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no circle through {start} in its strongly connected group {group}")


# --- naming games ---------------------------------------------------------------------------------------------------


def words(text: str) -> list[str]:
    """Lower-case words of an identifier or a string: split at anything but letters and digits, between a lower-case
    letter and a capital, and between letters and digits (``Awale16Env`` -> awale, 16, env)."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", text)]


def names_game(text: str, game_words: list[str]) -> bool:
    found = words(text)
    n = len(game_words)
    return any(found[i : i + n] == game_words for i in range(len(found) - n + 1))


def _documentation(tree: ast.Module) -> set[int]:
    """ids of the string constants that are documentation: every string standing alone as a statement (docstrings,
    and the attribute docstrings that follow an assignment)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


def _warns_deprecation(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "DeprecationWarning" for n in ast.walk(node))


def _deprecated_aliases(tree: ast.Module) -> set[int]:
    """ids of the nodes that exist only so old import paths keep working. A module is an alias as a whole when its
    top level warns a DeprecationWarning, or when its only function is a module ``__getattr__`` that warns one (and
    it has no class); otherwise only such a ``__getattr__`` is left out."""
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    top_level = [node for node in tree.body if node not in functions]
    aliases = [node for node in functions if node.name == "__getattr__" and _warns_deprecation(node)]
    if any(_warns_deprecation(node) for node in top_level) or (aliases and aliases == functions):
        return {id(node) for node in ast.walk(tree)}
    return {id(inner) for node in aliases for inner in ast.walk(node)}


def _code_names(node: ast.AST) -> list[str]:
    """The identifiers and module paths a node writes in code."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.keyword):
        return [node.arg] if node.arg else []
    if isinstance(node, ast.alias):
        return [node.name, *([node.asname] if node.asname else [])]
    if isinstance(node, ast.ImportFrom):
        return [node.module] if node.module else []
    if isinstance(node, ast.Global | ast.Nonlocal):
        return list(node.names)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def game_names_in_code(root: Path, game_names: list[str]) -> list[str]:
    """``path:line names game: text`` for every identifier or string literal (documentation and deprecated aliases
    left out) naming one of ``game_names``, outside the packages under awale_env/games/."""
    games = {name: words(name) for name in game_names}
    found = []
    game_packages = root / GAME_PACKAGES
    for path in sorted(path for top in NAMING_ROOTS for path in (root / top).rglob("*.py")):
        if game_packages in path.parents[1:]:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        skipped = _documentation(tree) | _deprecated_aliases(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            for text in _code_names(node):
                named = [name for name, game_words in games.items() if names_game(text, game_words)]
                for name in named:
                    if not any(other != name and names_game(other, games[name]) for other in named):  # the longest
                        found.append((path.relative_to(root).as_posix(), getattr(node, "lineno", 0), name, text))
    return [f"{path}:{line} names {name}: {text!r}" for path, line, name, text in sorted(found)]


# --- the project ------------------------------------------------------------------------------------------------------


def test_no_import_points_up():
    found = upward_imports(ROOT)
    assert not found, "imports of a higher layer:\n" + "\n".join(found)


def test_no_import_circle_not_even_through_an_import_inside_a_function():
    circles = import_circles(ROOT)
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(circle) for circle in circles)


def test_nothing_outside_the_game_packages_names_a_game():
    found = game_names_in_code(ROOT, sorted(GAMES))
    assert not found, f"{len(found)} places name a game outside awale_env/games/<package>/:\n" + "\n".join(found)


# --- the readers themselves, on a made-up project -----------------------------------------------------------------


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_upward_imports_are_found_wherever_they_stand(tmp_path):
    root = write(
        tmp_path,
        {
            "awale_env/__init__.py": "",
            "awale_env/env.py": "def f():\n    from training.arena import play\n",
            "awale_env/__main__.py": "import awale_apps.cli\n",  # the entry point: allowed
            "awale_env/games/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import agents\n",
            "agents/__init__.py": "from awale_env import env\nfrom training import arena\n",
            "training/__init__.py": "import agents.base, awale_env\n",
        },
    )
    assert upward_imports(root) == [
        "agents:2 imports training (layer training)",
        "awale_env.env:2 imports training.arena (layer training)",
        "awale_env.games:3 imports agents (layer agents)",
    ]


def test_circles_are_those_of_imports_that_run_wherever_they_stand(tmp_path):
    root = write(
        tmp_path,
        {
            "awale_env/__init__.py": "from awale_env.env import env\n",
            "awale_env/env.py": "from . import games\n",
            "awale_env/games/__init__.py": "class Game:\n    from awale_env import State\n",  # a class body runs
            "awale_env/rules.py": "def picture():\n    from awale_env.render import draw\n",  # deferred: a circle too
            "awale_env/render.py": "from awale_env.rules import State\n",
            "awale_env/board.py": "import typing\nif typing.TYPE_CHECKING:\n    from awale_env import rules\n",
            "awale_env/kernels.py": "from awale_env import board\n",  # never runs: no circle through board
            "agents/draw.py": "def f():\n    import agents.draw\n",  # itself
            "agents/__init__.py": "import agents.base\n",
            "agents/base.py": "try:\n    import agents\nexcept ImportError:\n    pass\n",
        },
    )
    assert import_circles(root) == [
        ["agents", "agents.base", "agents"],
        ["agents.draw", "agents.draw"],
        ["awale_env", "awale_env.env", "awale_env.games", "awale_env"],
        ["awale_env.render", "awale_env.rules", "awale_env.render"],
    ]


def test_game_names_are_found_in_code_only(tmp_path):
    base = (
        'class Game:\n    """Like OWARE."""\n\n\n'
        "def __getattr__(name):\n    import warnings\n\n"
        "    warnings.warn('OWARE', DeprecationWarning)\n    return OWARE\n"
    )
    root = write(
        tmp_path,
        {
            "awale_env/__init__.py": '"""Plays oware."""\nTITLES = {"Oware-v0": 1}  # oware, in a comment\n',
            "awale_env/games/base.py": base,  # the deprecated names of its __getattr__ only
            "awale_env/games/oware/__init__.py": "GAME = 'oware'\n",  # the game's own package
            "awale_env/core/oware.py": "import warnings\nwarnings.warn('moved', DeprecationWarning)\nimport oware\n",
            "agents/kernels.py": "class OwareEnv:\n    pass\n\n\ndef f(awale16_core):\n    return 'awale16'\n",
            "training/__init__.py": "CHESS = 'awale_env'\nEDITION = 'awale16_2025'\n",  # the longest name only
            "awale_apps/__init__.py": "",
            "benchmarks/bench.py": "run(game=f'{1}-oware')\n",
        },
    )
    assert game_names_in_code(root, ["awale16", "awale16_2025", "oware"]) == [
        "agents/kernels.py:1 names oware: 'OwareEnv'",
        "agents/kernels.py:5 names awale16: 'awale16_core'",
        "agents/kernels.py:6 names awale16: 'awale16'",
        "awale_env/__init__.py:2 names oware: 'Oware-v0'",
        "benchmarks/bench.py:1 names oware: '-oware'",
        "training/__init__.py:2 names awale16_2025: 'awale16_2025'",
    ]
