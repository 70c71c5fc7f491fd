"""The 2025 edition as the compiled searches see it: the search kernels of the editions with transparent seeds
(:mod:`awale_env.games.editions.search`), with this edition's number of seeds."""

from __future__ import annotations

from awale_env.games.awale16_2025.state import TOTAL_SEEDS
from awale_env.games.editions.search import EditionEnv, search_kernels

#: This edition's env class before the editions shared one: numba's cache indexes written then name it, and must
#: still load (an index is read whole before its age is checked).
Awale2025Env = EditionEnv

SEARCH = search_kernels(TOTAL_SEEDS)
