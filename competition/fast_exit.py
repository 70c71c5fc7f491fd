"""Processes of the toolkit end as soon as their work is done. One that imported torch, numba and Stable-Baselines3
holds hundreds of thousands of objects, and the collections the interpreter runs as it exits walk them all: half a
CPU-second, seconds on a busy machine, after the program's last line (a PPO trainer's env workers took longer than
the 5 s they are given to stop after Ctrl-C, and were killed). :func:`skip_final_collections` freezes every object
once the program has ended (``gc.freeze`` in an exit handler), and the interpreter's exit leaves them to the system.

Only for the processes the toolkit starts (the ``awale`` command, the trainers, the worker processes), never on
import: in a user's own program an object may need that last collection (a file left open in a reference cycle
writes its buffer out when it is collected).
"""

from __future__ import annotations

import atexit
import gc


def skip_final_collections() -> None:
    """Have this process skip the collections of its exit (once, however often it is called)."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
