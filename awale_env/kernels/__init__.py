"""Compiled code shared by every game that is no game's rules: the random generator (:mod:`.rng`), the search
kernels' protocol with its defaults (:mod:`.search`), the dispatch to a game's kernels (:mod:`.dispatch`), the vector
env's stepper written once over them (:mod:`.stepper`) and what its batches agree on (:mod:`.batch`). Nothing here
imports gymnasium or pettingzoo, nor names a game."""
