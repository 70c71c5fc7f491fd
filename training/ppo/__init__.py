"""Self-play PPO with Stable-Baselines3: the options (:mod:`~training.ppo.config`), the trainer
(:mod:`~training.ppo.trainer`, ``awale train ppo``), its opponent pool and learner envs (:mod:`~training.ppo.pool`),
checkpoints (:mod:`~training.ppo.checkpoints`) and behaviour cloning from a teacher (:mod:`~training.ppo.teacher`)."""
