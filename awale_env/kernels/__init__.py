"""Compiled helpers shared by every game that are no game's rules: the random generator (:mod:`.rng`), what the
batch kernels of every game agree on (:mod:`.batch`) and the search kernels' protocol with its defaults
(:mod:`.search`). Nothing here imports gymnasium or pettingzoo, nor names a game."""
