"""The 2025 edition's batch: the batched kernels of the editions with transparent seeds
(:mod:`awale_env.games.awale16_2023.batch`), with this edition's rules code."""

from __future__ import annotations

from awale_env.games.awale16_2023.batch import TransparentGames

BATCHED = TransparentGames
