"""AlphaZero training: the options (:mod:`~training.alphazero.config`), the trainer (:mod:`~training.alphazero.trainer`,
``awale train alphazero``), its self-play workers in processes (:mod:`~training.alphazero.selfplay_pool`) or on Ray
(:mod:`~training.alphazero.ray_selfplay`), and the network's warm start from a teacher
(:mod:`~training.alphazero.imitation`, ``awale train imitation``)."""
