"""The 2025 edition as the compiled searches see it: the search kernels of the editions with transparent seeds
(:mod:`awale_env.games.editions.search`) under this edition's env class."""

from __future__ import annotations

from collections import namedtuple

from awale_env.games.awale16_2025.state import TOTAL_SEEDS
from awale_env.games.editions.search import search_kernels

#: The env of the 2025 edition's searches: its rules code.
Awale2025Env = namedtuple("Awale2025Env", ("flags",))

SEARCH = search_kernels(Awale2025Env, TOTAL_SEEDS)
