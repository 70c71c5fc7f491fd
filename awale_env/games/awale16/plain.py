"""The two-colour Awale of 2021 (docs/rules.md) in plain Python: the rules of ``awale bot``'s fallback player, which
must answer before numpy, numba or torch have loaded. The bot loads this file by its path, without the package
(:func:`awale_apps.bot_fallback.plain_rules`), so it imports the standard library alone, and its siblings only
relatively. It follows the compiled kernels (:mod:`.kernels`) step by step, and they compile its ``deal`` and
``end_status`` as they are (so those two stay within what numba compiles, and work on lists and arrays alike);
tests/test_plain_rules.py replays random games of every edition that has such a file against them.

A position is a list of seeds indexed like actions (``board[colours * hole + colour]``), the stores, the player to
move, the ply and a status code (the kernels' codes: 0 ongoing, then the edition's end reasons in order).
"""

from __future__ import annotations

import re

NUM_HOLES = 16
#: The kernels' ``max_plies`` for no limit.
NO_LIMIT = 0
ONGOING, SCORE, PAIR, FEW_SEEDS, PLY_LIMIT = range(5)
#: The 2021 game's end scores: a store of 33 wins, 32 each ends it, fewer than 8 seeds on the board end it.
WIN_SCORE, PAIR_SCORE, MIN_BOARD_SEEDS = 33, 32, 8


def deal(board: list[int], origin: int, slot: int, count: int, step: int, targets: int, start: int,
         colours: int = 2) -> None:  # fmt: skip
    """Drop ``count`` seeds into colour ``slot`` of the holes ``origin + 1 + step * i``, ``i < targets``, the first
    into the ``start``-th of them, then on round them (compiled, the kernels' ``deal``)."""
    laps, rest = divmod(count, targets)
    for k in range(targets if laps > 0 else rest):
        i = start + k
        if i >= targets:
            i -= targets
        hole = (origin + 1 + step * i) & (NUM_HOLES - 1)
        board[colours * hole + slot] += laps + (1 if k < rest else 0)


def capture_chain(board: list[int], last: int, colours: int) -> int:
    """Capture ``last`` and the holes before it while each holds 2 or 3 seeds; the seeds taken."""
    captured, hole = 0, last
    while True:
        base = colours * hole
        total = sum(board[base : base + colours])
        if total != 2 and total != 3:
            return captured
        captured += total
        board[base : base + colours] = [0] * colours
        hole = hole - 1 if hole > 0 else NUM_HOLES - 1


def starving_sweep(board: list[int], opponent: int, colours: int) -> int:
    """Every seed on the board, removed, if ``opponent`` has none in its holes; else 0."""
    if any(board[colours * h + c] for h in range(opponent, NUM_HOLES, 2) for c in range(colours)):
        return 0
    swept = sum(board)
    board[:] = [0] * len(board)
    return swept


def end_status(on_board: int, store0: int, store1: int, ply: int, max_plies: int, win: int = WIN_SCORE,
               pair: int = PAIR_SCORE, few: int = MIN_BOARD_SEEDS) -> int:  # fmt: skip
    """The status after a move's captures and sweep, checked in the rules' order (compiled, the kernels'
    ``end_status``)."""
    if store0 >= win or store1 >= win:
        return SCORE
    if store0 >= pair and store1 >= pair:
        return PAIR
    if on_board < few:
        return FEW_SEEDS
    if max_plies != NO_LIMIT and ply >= max_plies:
        return PLY_LIMIT
    return ONGOING


class PlainState:
    """A position of :class:`PlainRules`' game, immutable: the State API that ``awale bot`` needs (``to_move``,
    ``ply``, ``stores``, ``is_terminal``, ``end_reason``, ``legal_actions``, ``to_action``, ``play``)."""

    __slots__ = ("board", "end_reason", "is_terminal", "ply", "rules", "status", "stores", "to_move")

    def __init__(self, rules: PlainRules, board: list[int], stores: tuple[int, int], to_move: int, ply: int,
                 status: int) -> None:  # fmt: skip
        self.rules, self.board, self.stores, self.to_move, self.ply = rules, board, stores, to_move, ply
        self.status, self.is_terminal, self.end_reason = status, status != ONGOING, rules.end_reasons[status]

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal else self.rules.legal(self.board, self.to_move)

    def to_action(self, move: str | int) -> int:
        """The legal action of a move string (or index); ValueError naming the move and why it is not legal."""
        action = self.rules.parse_move(move) if isinstance(move, str) else move
        if action in self.legal_actions():
            return action
        text = self.rules.format_move(action)
        if self.is_terminal:
            raise ValueError(f"cannot play {text}: the game is over ({self.end_reason})")
        hole = action // self.rules.actions_per_hole
        why = (
            f"hole {hole + 1} belongs to player {1 - self.to_move}"
            if hole % 2 != self.to_move
            else f"hole {hole + 1} holds no {self.rules.move_colours[action % self.rules.actions_per_hole]} seed"
        )
        raise ValueError(f"illegal move {text} for player {self.to_move}: {why}")  # fmt: skip

    def play(self, action: int) -> PlainState:
        """The position after the legal ``action``."""
        board, player = list(self.board), self.to_move
        gained = capture_chain(board, self.rules.sow(board, action), self.rules.colours)
        gained += starving_sweep(board, 1 - player, self.rules.colours)
        stores = (self.stores[0] + gained, self.stores[1]) if player == 0 else (self.stores[0], self.stores[1] + gained)
        status = self.rules.status(sum(board), stores, self.ply + 1)
        return PlainState(self.rules, board, stores, 1 - player, self.ply + 1, status)


class PlainRules:
    """The 2021 game (64 seeds, actions ``2 * (N - 1) + c``, c = 0 red sown into the 15 other holes, 1 blue into the
    opponent's 8): the rules every edition's plain file adapts. ``max_plies`` None or 0: no limit."""

    name = "awale16"
    colours = 2
    actions_per_hole = 2
    move_colours = ("red", "blue")
    kinds = ("R", "B")
    end_reasons = (None, "score", "draw", "few_seeds", "ply_limit")
    #: The edition's rule flags and their defaults.
    flags: dict[str, object] = {}
    default_max_plies: int | None = 400
    win, pair, few = WIN_SCORE, PAIR_SCORE, MIN_BOARD_SEEDS
    #: Each colour's sowing pattern (step, holes): red into the 15 other holes, blue into the opponent's 8.
    patterns = ((1, NUM_HOLES - 1), (2, NUM_HOLES // 2))

    def __init__(self, max_plies: int | None = None, **flags: object) -> None:
        unknown = sorted(set(flags) - set(self.flags))
        if unknown:
            raise ValueError(f"unknown rule flag(s) {', '.join(unknown)} for {self.name}; its flags: "
                             f"{', '.join(self.flags) or 'none'}")  # fmt: skip
        for key, value in flags.items():
            if type(value) is not type(self.flags[key]):
                raise ValueError(f"{key} must be {type(self.flags[key]).__name__}, got {value!r}")
        if max_plies is not None and (type(max_plies) is not int or max_plies < 0):
            raise ValueError(f"max_plies must be None or an integer >= 0, got {max_plies!r}")
        self.max_plies = max_plies or NO_LIMIT
        self.settings = {**self.flags, **flags}
        self.move_pattern = re.compile(r"(1[0-6]|[1-9])(" + "|".join(self.kinds) + ")", re.IGNORECASE)
        self.num_actions = NUM_HOLES * self.actions_per_hole

    def initial(self) -> PlainState:
        board = self.start_board()
        return PlainState(self, board, (0, 0), 0, 0, self.status(sum(board), (0, 0), 0))

    def start_board(self) -> list[int]:
        return [2] * (self.colours * NUM_HOLES)

    def legal(self, board: list[int], player: int) -> list[int]:
        return [a for h in range(player, NUM_HOLES, 2) for a in range(2 * h, 2 * h + 2) if board[a] > 0]

    def sow(self, board: list[int], action: int) -> int:
        """Take the action's seeds out of its hole and sow them; the hole of the last one."""
        origin, colour = action >> 1, action & 1
        n, board[action] = board[action], 0
        step, targets = self.patterns[colour]
        deal(board, origin, colour, n, step, targets, 0, 2)
        return (origin + 1 + step * ((n - 1) % targets)) & (NUM_HOLES - 1)

    def status(self, on_board: int, stores: tuple[int, int], ply: int) -> int:
        return end_status(on_board, stores[0], stores[1], ply, self.max_plies, self.win, self.pair, self.few)

    def parse_move(self, text: str) -> int:
        """The action of a move string (any letter case); ValueError for any other spelling."""
        match = self.move_pattern.fullmatch(text)
        if match is None:
            raise ValueError(f"malformed move {text!r}: expected a hole number 1-16 followed by "
                             f"{', '.join(self.kinds[:-1])} or {self.kinds[-1]}")  # fmt: skip
        return self.actions_per_hole * (int(match.group(1)) - 1) + self.kinds.index(match.group(2).upper())

    def format_move(self, action: int) -> str:
        hole, kind = divmod(action, self.actions_per_hole)
        return f"{hole + 1}{self.kinds[kind]}"


RULES = PlainRules
