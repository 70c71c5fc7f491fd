"""The 2023 edition as the compiled searches see it: the search kernels of the editions with transparent seeds
(:mod:`awale_env.games.editions.search`) under this edition's env class."""

from __future__ import annotations

from collections import namedtuple

from awale_env.games.awale16_2023.state import TOTAL_SEEDS
from awale_env.games.editions.search import search_kernels

#: The env of the 2023 edition's searches: its rules code.
Awale2023Env = namedtuple("Awale2023Env", ("flags",))

SEARCH = search_kernels(Awale2023Env, TOTAL_SEEDS)
