"""AlphaZero's self-play workers die with their learner (issue 42): a learner killed with SIGKILL mid-generation
leaves no worker playing its generation to the end (they only looked at their parent between generations)."""

from __future__ import annotations

import textwrap

from killed_learner import assert_workers_die_with_killed_learner

#: CPU seconds each worker must have used before the learner is killed: it is playing its generation.
PLAYING_CPU_SECONDS = 3.0

#: A learner: two self-play processes start a generation of 64 games x 400 moves at 400 simulations a move (hours on
#: a laptop), then it waits.
LEARNER = textwrap.dedent(
    """\
    import sys, time
    from agents.alphazero.network import build_network
    from training.alphazero.config import AlphaZeroConfig
    from training.alphazero.selfplay_pool import SelfPlayPool
    if __name__ == "__main__":  # the spawned workers import this file too
        config = AlphaZeroConfig(run_dir=sys.argv[1], workers=2, games_per_worker=64, moves_per_generation=400,
                                 simulations=400, channels=8, blocks=1)
        net = build_network(config.network_config())
        pool = SelfPlayPool(config, 0)
        pool.start(net)
        print(*[process.pid for process in pool.processes], flush=True)
        time.sleep(3600)
    """
)


def test_self_play_workers_die_with_a_learner_killed_mid_generation(tmp_path):
    assert_workers_die_with_killed_learner(tmp_path, LEARNER, PLAYING_CPU_SECONDS, "a self-play worker")
