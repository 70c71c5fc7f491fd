"""Self-play PPO with RLlib (:mod:`~training.rllib.trainer`, ``awale train rllib``), its checkpoint files
(:mod:`~training.rllib.files`) and a Ray Tune sweep over it (:mod:`~training.rllib.tune_sweep`); needs the ``rllib``
extra."""
