"""PPO's env worker processes (``--vec-env subproc``) die with their learner (issue 42): a learner killed with SIGKILL
while its workers step their games leaves none of them stepping on (a worker only saw its learner gone at its next
read of the pipe, after its step: an MCTS or alpha-beta opponent could think for hours)."""

from __future__ import annotations

import textwrap

from killed_learner import assert_workers_die_with_killed_learner

#: CPU seconds a worker must have used before the learner is killed: past its imports, it is searching a move.
PLAYING_CPU_SECONDS = 10.0

#: A learner: two env workers whose only opponent is alpha-beta searching 30 plies deep (hours a move); a thread
#: resets and steps them (it blocks in the step) while the main thread waits. It prints the workers' PIDs once both
#: have built their env (``get_attr`` waits for each). SB3 steps its workers in lockstep: the first whose opponent
#: searches holds the other idle at the end of the same step (where the learner moved first at reset, already there),
#: so only one of them is ever sure to be searching; the idle one must die as well.
LEARNER = textwrap.dedent(
    """\
    import sys, threading, time
    import numpy as np
    from training.ppo.config import Args
    from training.ppo.pool import OpponentPool, learner_envs
    def step(env):
        env.reset()
        while True:
            masks = env.env_method("action_masks")
            env.step(np.array([int(np.flatnonzero(mask)[0]) for mask in masks]))
    if __name__ == "__main__":  # the spawned workers import this file too
        args = Args(run_dir=sys.argv[1], n_envs=2, vec_env="subproc", league=("alphabeta:depth=30",),
                    pool_random=0, pool_greedy=0, pool_league=1, pool_snapshots=0)
        env = learner_envs(OpponentPool(args), args, 0)
        env.get_attr("render_mode")
        print(*[process.pid for process in env.processes], flush=True)
        threading.Thread(target=step, args=(env,), daemon=True).start()
        time.sleep(3600)
    """
)


def test_env_workers_die_with_a_learner_killed_mid_step(tmp_path):
    assert_workers_die_with_killed_learner(tmp_path, LEARNER, PLAYING_CPU_SECONDS, "an env worker", busy_workers=1)
