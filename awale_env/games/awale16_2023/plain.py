"""The 2023 edition, and what the editions with transparent seeds share, in plain Python for ``awale bot``'s fallback
player (see :mod:`..awale16.plain`; the kernels' twin is :mod:`.kernels`): a third, transparent colour; ``NTR`` /
``NTB`` sow a hole's transparent seeds in red's or blue's pattern (and, with ``with_colour``, its seeds of that
colour after them)."""

from __future__ import annotations

from ..awale16.plain import NO_LIMIT, NUM_HOLES, ONGOING, PLY_LIMIT, PlainRules, deal, end_status

#: The status code of the rules' move limit.
MOVE_LIMIT = PLY_LIMIT + 1
#: The pair score of rules without a pair rule.
NO_PAIR = 0xFF


class TransparentRules(PlainRules):
    """The 2023 edition: one transparent seed per hole, 41 seeds win, both players at 40 is a draw."""

    name = "awale16_2023"
    colours = 3
    actions_per_hole = 4
    move_colours = ("red", "blue", "transparent", "transparent")
    kinds = ("R", "B", "TR", "TB")
    win, pair, few = 41, 40, 10
    transparent_per_hole = 1
    with_colour = False
    move_limit = 0

    def start_board(self) -> list[int]:
        return [2, 2, self.transparent_per_hole] * NUM_HOLES

    def legal(self, board: list[int], player: int) -> list[int]:
        legal = []
        for h in range(player, NUM_HOLES, 2):
            base, a = 3 * h, 4 * h
            legal += [a] if board[base] > 0 else []
            legal += [a + 1] if board[base + 1] > 0 else []
            legal += [a + 2, a + 3] if board[base + 2] > 0 else []
        return legal

    def sow(self, board: list[int], action: int) -> int:
        origin, kind = action >> 2, action & 3
        colour, base = kind & 1, 3 * origin
        transparent = coloured = 0
        if kind >= 2:
            transparent, board[base + 2] = board[base + 2], 0
        if kind < 2 or self.with_colour:
            coloured, board[base + colour] = board[base + colour], 0
        step, targets = self.patterns[colour]
        deal(board, origin, 2, transparent, step, targets, 0, 3)
        deal(board, origin, colour, coloured, step, targets, transparent % targets, 3)
        return (origin + 1 + step * ((transparent + coloured - 1) % targets)) & (NUM_HOLES - 1)

    def status(self, on_board: int, stores: tuple[int, int], ply: int) -> int:
        status = end_status(on_board, stores[0], stores[1], ply, NO_LIMIT, self.win, self.pair, self.few)
        if status != ONGOING:
            return status
        if self.move_limit and ply >= self.move_limit:
            return MOVE_LIMIT
        if self.max_plies != NO_LIMIT and ply >= self.max_plies:
            return PLY_LIMIT
        return ONGOING


RULES = TransparentRules
