"""The pieces every competition of the toolkit is made of: the arena's round robins of agents (:mod:`training.arena`),
tournaments of course programs and agents (:mod:`training.competition.tournament`, ``awale tournament``) and the
referee's matches (``awale referee``).

* :mod:`~training.competition.tasks`: a game to play as a task computed up front (agents by spec, opening, seeds),
  played with ``task.play()`` wherever it lands; the checks of agent specs and game settings.
* :mod:`~training.competition.programs`: player programs speaking the course referee's protocol, run contained
  (own process group, killed on every exit path, capped output, memory limit), every answer checked by the engine.
* :mod:`~training.competition.pool`: the worker pool that plays tasks in processes here or on Ray actors.
* :mod:`~training.competition.ratings`: standings and Elo (Bradley-Terry) with confidence intervals, tables and plots.
* :mod:`~training.competition.journal`: the arena's resumable JSON-lines journal.
* :mod:`~training.competition.store`: the SQLite results store shared by the tournament, the arena and the referee,
  with its read API.
"""
