"""The pieces every competition of the toolkit is made of: the arena's round robins of agents
(:mod:`competition.arena`), tournaments of course programs and agents (:mod:`competition.tournament`,
``awale tournament``) and the referee's matches (``awale referee``). A layer between ``agents`` and ``training``: the
applications and the trainers (their reference matches) both use it.

* :mod:`~competition.tasks`: a game to play as a task computed up front (agents by spec, opening, seeds),
  played with ``task.play()`` wherever it lands; the checks of agent specs and game settings.
* :mod:`~competition.programs`: player programs speaking the course referee's protocol, run contained
  (own process group, killed on every exit path, capped output, memory limit).
* :mod:`~competition.refereed_game`: a game of two such programs or in-process agents, every answer checked by the
  engine and timed.
* :mod:`~competition.pool`: the worker pool that plays tasks in processes here or on Ray actors
  (:mod:`~competition.ray_backend`, which AlphaZero's self-play on Ray and the RLlib trainer use too).
* :mod:`~competition.ratings`: standings and Elo (Bradley-Terry) with confidence intervals, tables and plots.
* :mod:`~competition.journal`: the arena's resumable JSON-lines journal.
* :mod:`~competition.progress`, :mod:`~competition.interrupts`: progress lines and Ctrl-C handling, which the trainers
  use too.
* :mod:`~competition.store`: the SQLite results store shared by the tournament, the arena and the referee,
  with its read API.
"""
