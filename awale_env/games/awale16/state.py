"""The State API: one immutable position of the two-colour Awale, used by every environment, agent and trainer.

Modelled on OpenSpiel's ``State`` (``legal_actions``, ``returns``, ``clone``-free immutability: ``play`` returns a
new State). The rules themselves live in the compiled kernels of :mod:`awale_env.games.awale16.kernels`; what
every game's State shares is :class:`awale_env.games.base.BoardState`, what the games on the 16-hole board share
:class:`awale_env.games.holes.EditionState`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from awale_env.games.awale16 import kernels as core
from awale_env.games.awale16.notation import format_move, parse_move
from awale_env.games.base import read_only
from awale_env.games.holes import EditionState
from awale_env.games.validation import check_max_plies

NUM_ACTIONS = core.NUM_ACTIONS
DEFAULT_MAX_PLIES = 400
GAME_NAME = "awale16"
#: The game has no rule variants: its rules code is 0.
RULES = 0


class State(EditionState):
    """A position of the two-colour Awale and how it came to be (rules: docs/rules.md).

    Holes are numbered 1-16; player 0 ("player 1" in the rules) owns the odd holes and moves first. Actions are
    ``2 * (hole - 1) + colour`` with colour 0 = red, 1 = blue (rule 13). States are immutable and hashable;
    :meth:`play` returns a new one. What the games on the 16-hole board share is
    :class:`~awale_env.games.holes.EditionState`; this is the 2021 game on its kernels.
    """

    __slots__ = ()

    game_name = GAME_NAME
    num_actions = NUM_ACTIONS
    end_reasons = core.END_REASONS
    total_seeds = core.TOTAL_SEEDS
    default_max_plies = DEFAULT_MAX_PLIES
    colours = ("red", "blue")
    slots = (0, 1)
    move_colours = ("red", "blue")
    example_move = "14B"
    format_move = staticmethod(format_move)
    parse_move = staticmethod(parse_move)

    # --- construction -----------------------------------------------------------------------------------------

    @classmethod
    def initial(cls, max_plies: int | None = DEFAULT_MAX_PLIES, seed: int | None = None) -> State:
        """The starting position: 2 red + 2 blue seeds in every hole, player 0 to move (no chance in this game: the
        seed changes nothing)."""
        return cls._settled(core.initial_seeds(), (0, 0), 0, 0, check_max_plies(max_plies), RULES)

    @classmethod
    def from_position(
        cls,
        red: Iterable[int],
        blue: Iterable[int],
        stores: Iterable[int] = (0, 0),
        to_move: int = 0,
        ply: int = 0,
        max_plies: int | None = DEFAULT_MAX_PLIES,
    ) -> State:
        """A position from counts per hole (index 0 = hole 1); the end-of-game checks of rule 11 apply at once.

        The board and stores together may hold at most 64 seeds (fewer is allowed, as in the rules' examples).
        A live position whose player to move has no seed cannot arise (rule 10 sweeps first) and is rejected.
        """
        return cls._from_counts((red, blue), stores, to_move, ply, max_plies, RULES)

    # --- what the kernels answer ------------------------------------------------------------------------------

    @classmethod
    def _end_status(cls, seeds: np.ndarray, stores: tuple[int, int], ply: int, max_plies: int, rules: int) -> int:
        return core.end_status(int(seeds.sum()), stores[0], stores[1], ply, max_plies)

    @classmethod
    def _legal_bits(cls, seeds: np.ndarray, player: int) -> int:
        return core.legal_bits(seeds, player)

    def _step(self, seeds: np.ndarray, action: int) -> tuple[int, int, int]:
        s0, s1 = self._stores
        packed = core.step(seeds, self._to_move, action, self._ply, self._max_plies, s0, s1)
        return packed & 0xFF, (packed >> 8) & 0xFF, packed >> 16

    def _observe(self, player: int) -> np.ndarray:
        """The layout is documented in :func:`awale_env.games.awale16.kernels.observe`."""
        out = np.empty(core.OBS_SIZE, dtype=np.float32)
        core.observe(self._seeds, np.array(self._stores), self._ply, self._max_plies, player, out)
        return out

    # --- reading ------------------------------------------------------------------------------------------------

    @property
    def seeds(self) -> np.ndarray:
        """The board as the compiled core sees it: read-only ``int8[32]``, ``seeds[action]`` = seeds of that colour
        in that hole (``seeds[2 * (hole - 1) + colour]``)."""
        return read_only(self._seeds)

    def legal_mask(self) -> np.ndarray:
        """Boolean mask of shape (32,), True for legal actions. Drawn by the compiled kernel: a position's mask is
        rarely seen twice, so a cache of masks would mostly miss (and a miss costs several kernel calls)."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if self._legal:
            core.legal_mask(self._seeds, self._to_move, mask)
        return mask

    def __str__(self) -> str:
        return board_diagram(self)


def _cell(state: State, hole: int) -> str:
    r, b = int(state.seeds[2 * (hole - 1)]), int(state.seeds[2 * hole - 1])
    return f"{r}R{b}B" if r or b else "."


def board_diagram(state: State, last_action: int | None = None) -> str:
    """A plain-text board: holes 1-8 on the bottom row, 16-9 above them, so sowing runs round anticlockwise on
    screen. ``*`` marks player 0's (odd) holes; ``last_action``'s hole is bracketed."""

    def row(holes: range) -> tuple[str, str]:
        labels, cells = [], []
        for h in holes:
            mark = "*" if h % 2 else " "
            label = f"{h}{mark}"
            cell = _cell(state, h)
            if last_action is not None and (last_action >> 1) + 1 == h:
                cell = f"[{cell}]"
            labels.append(f"{label:>7}")
            cells.append(f"{cell:>7}")
        return "".join(labels), "".join(cells)

    top_labels, top_cells = row(range(16, 8, -1))
    bottom_cells_labels = row(range(1, 9))
    s0, s1 = state.stores
    limit = "no limit" if state.max_plies is None else f"of {state.max_plies}"
    status = state.result_text() or f"player {state.to_move} ({'odd' if state.to_move == 0 else 'even'} holes) to move"
    return "\n".join(
        [
            top_labels,
            top_cells,
            bottom_cells_labels[1],
            bottom_cells_labels[0],
            f"stores: player 0 (odd*) {s0} | player 1 (even) {s1} | ply {state.ply} {limit} | {status}",
        ]
    )
