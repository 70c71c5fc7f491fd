"""Worker processes that end with the process that started them, however it ends: ``kill -9`` runs no cleanup, so a
pool's workers, a tournament's games and AlphaZero's self-play would otherwise play on for minutes (and keep the
students' programs they started running) after their parent is gone. Each worker calls :func:`die_with_parent` first
thing: the imitation trainer's and PPO's cloning pool (:func:`training.alphazero.imitation.worker_pool`), the
arena's and a tournament's workers (:mod:`competition.pool`), AlphaZero's self-play processes
(:mod:`training.alphazero.selfplay_pool`) and PPO's env workers of ``--vec-env subproc`` (:mod:`training.ppo.pool`).
The guard of a tournament's programs does the same from its own source (:data:`competition.programs.GUARD_SOURCE`,
which runs without the toolkit).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

from competition.fast_exit import skip_final_collections

#: prctl's option that sends this process a signal when its parent dies (Linux).
PR_SET_PDEATHSIG = 1
#: Seconds between two looks of a worker at its parent, where prctl is missing.
PARENT_POLL_SECONDS = 1.0


def die_with_parent(parent: int) -> None:
    """End this process (SIGKILL) when ``parent``, the process that started it, dies, even killed with SIGKILL: on
    Linux the kernel kills it (prctl PDEATHSIG), elsewhere a thread of its own sees it orphaned within
    :data:`PARENT_POLL_SECONDS`. Call it in the worker, in the thread that lives as long as the worker; ``parent``
    is the parent's pid as the parent gave it (a parent that died before the call is seen too). A worker that is
    asked to stop ends fast as well (:func:`competition.fast_exit.skip_final_collections`)."""
    skip_final_collections()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    else:

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(PARENT_POLL_SECONDS)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the watch began
        os._exit(1)
