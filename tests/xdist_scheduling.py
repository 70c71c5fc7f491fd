"""How a parallel run (``pytest -n``) hands the tests to its workers: one at a time, in the suite's order (the slow
tests first, tests/conftest.py), except that the tests of a file with a module-scoped fixture go to one worker
together, so that the fixture (a tournament, a trained model: often a minute or more) is built once, not on every
worker that happens to run one of its tests.

xdist's own ``--dist load`` sends each worker a quarter of its share at once, so the first worker got every slow test
and the two finished minutes apart; its ``--dist loadfile`` keeps every file together, parametrised files of hundreds
of short tests included. conftest's ``pytest_xdist_make_scheduler`` puts this scheduler in place of ``load``.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

#: How many tests a worker holds (the one it runs and the next: a worker waits for its next test before running one,
#: to know which fixtures to tear down).
HELD = 2


@functools.cache
def shares_a_module_fixture(path: Path) -> bool:
    """Whether the test file ``path`` defines a fixture of module scope."""
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, ValueError):
        return False  # not a Python file pytest could collect from either: nothing to keep together
    return any(
        isinstance(decorator, ast.Call)
        and any(word.arg == "scope" and getattr(word.value, "value", None) == "module" for word in decorator.keywords)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for decorator in node.decorator_list
    )


class FixtureFileScheduling(LoadScopeScheduling):
    """Each test is a work unit of its own, except the tests of a file sharing a module fixture, which form one.
    Those files' units go first (each a fixture's build and its tests: the longest units), then the other tests in
    the collection's order; each worker is kept holding :data:`HELD` tests."""

    def _split_scope(self, nodeid: str) -> str:
        file = nodeid.split("::", 1)[0]
        return file if shares_a_module_fixture(Path(self.config.rootpath, file)) else nodeid

    def _reschedule(self, node) -> None:
        if node.shutting_down:
            return
        while self.workqueue and self._pending_of(self.assigned_work[node]) < HELD:
            self._assign_work_unit(node)
        if not self.workqueue:
            node.shutdown()

    def schedule(self) -> None:
        if self.collection is None:
            if not self._check_nodes_have_same_collection():
                self.log("**Different tests collected, aborting run**")
                return
            self.collection = list(next(iter(self.registered_collections.values())))
            units: dict[str, dict[str, bool]] = {}
            for nodeid in self.collection:
                units.setdefault(self._split_scope(nodeid), {})[nodeid] = False
            files = [scope for scope in units if "::" not in scope]
            for scope in files + [scope for scope in units if "::" in scope]:
                self.workqueue[scope] = units[scope]
        for node in self.nodes:
            self._reschedule(node)
