"""The research notebooks run top to bottom in quick mode (``AWALE_QUICK=1``: token budgets), in a scratch directory,
and the committed copies carry the outputs of a real run, kept small."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
AsyncKernelManager = pytest.importorskip("jupyter_client.manager").AsyncKernelManager
ensure_event_loop = pytest.importorskip("jupyter_core.utils").ensure_event_loop
NoSuchKernel = pytest.importorskip("jupyter_client.kernelspec").NoSuchKernel

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
#: Each notebook and the module it needs beyond the base install (the training extras), if any.
REQUIRES = {
    "01_quickstart": None,
    "02_ppo_selfplay": "sb3_contrib",
    "03_alphazero": "torch",
    "04_game_analysis": None,
}
MAX_BYTES = 600_000  # outputs are kept small: a few plots at modest resolution, no long logs


def test_every_notebook_is_listed():
    assert sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb")) == sorted(REQUIRES)


def forget_signal_handlers() -> None:
    """Remove the SIGINT and SIGTERM handlers nbclient gives the event loop it runs on: it removes them only once the
    kernel has started, so a kernel that failed to start left them in this test worker, and a later test's Ctrl-C
    reached asyncio instead of Python's handler (test_interrupts failed that way beside a notebook that did)."""
    loop = ensure_event_loop()  # the loop jupyter's run_sync runs nbclient on, in this thread
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.remove_signal_handler(number)  # Python's own handler back; False if there was none


def run_notebook(notebook: nbformat.NotebookNode, directory: Path, kernel_name: str = "python3") -> None:
    """Execute ``notebook`` in ``directory`` on a new kernel; CellExecutionError, with the cell and the traceback, if
    any cell fails. The kernel listens on Unix sockets in ``directory``, not on TCP ports: jupyter_client picks free
    ports before the kernel binds them, and a test running beside it can take one in between (jupyter_client issue
    487: "Address already in use", then "Kernel didn't respond in 60 seconds")."""
    kernel = AsyncKernelManager(kernel_name=kernel_name, transport="ipc", ip=str(directory / "kernel"))
    client = nbclient.NotebookClient(notebook, km=kernel, timeout=300, resources={"metadata": {"path": str(directory)}})
    try:
        client.execute()
    finally:
        forget_signal_handlers()


@pytest.mark.parametrize("name", sorted(REQUIRES))
def test_notebook_runs_in_quick_mode(name, tmp_path, monkeypatch):
    if REQUIRES[name]:
        pytest.importorskip(REQUIRES[name])
    monkeypatch.setenv("AWALE_QUICK", "1")
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    run_notebook(notebook, tmp_path)
    images = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert images, f"{name} drew nothing"


def test_a_kernel_that_fails_to_start_leaves_python_s_signal_handlers(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    with pytest.raises(NoSuchKernel):
        run_notebook(notebook, tmp_path, kernel_name="no-such-kernel")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.parametrize("name", sorted(REQUIRES))
def test_committed_notebook_shows_a_real_run(name):
    path = NOTEBOOKS / f"{name}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code), f"{name}: run every cell before committing"
    counts = [cell.execution_count for cell in code]
    assert counts == list(range(1, len(code) + 1)), f"{name}: run top to bottom in one session"
    assert not any(o.output_type == "error" for cell in code for o in cell.outputs)
    assert path.stat().st_size < MAX_BYTES
