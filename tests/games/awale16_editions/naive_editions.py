"""A deliberately naive, independent implementation of the course's editions (2023, 2024, 2025), written from the
text of EDITIONS.md and AWALE16.md alone.

It shares no code with the engine: holes are numbered 1-16 as in the handouts, the board is one list per colour,
seeds are dropped one at a time, and every rule is a separate, obvious loop. The engine is compared with it on many
random positions.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edition:
    colours: str  # the colours on the board: "RB" or "RBT"
    everywhere: str  # the colour sown into every hole; the other is sown into the opponent's holes only
    with_colour: bool  # NTR / NTB also take the hole's seeds of that colour, after the transparent ones
    win: int
    draw: int | None  # both players holding exactly this many is a draw (None: no such rule)
    few: int  # fewer seeds than this on the board end the game
    move_limit: int | None  # the game stops after this many moves (a rule)


EDITIONS = {
    "awale16_2023": Edition("RBT", "R", False, 41, 40, 10, None),
    "awale16_2024": Edition("RB", "B", False, 33, 32, 8, None),
    "awale16_2025": Edition("RBT", "R", True, 49, None, 10, 400),
}


def owner(hole: int) -> int:
    """Player 0 ("player 1" in the handouts) owns the odd holes."""
    return 0 if hole % 2 == 1 else 1


def next_hole(hole: int) -> int:
    return 1 if hole == 16 else hole + 1


def previous_hole(hole: int) -> int:
    return 16 if hole == 1 else hole - 1


def moves_of_hole(edition: Edition) -> list[str]:
    return ["R", "B", "TR", "TB"] if "T" in edition.colours else ["R", "B"]


def legal_moves(edition: Edition, board: dict[str, list[int]], mover: int) -> list[str]:
    """The legal moves in notation, in action order (hole by hole, R B TR TB)."""
    moves = []
    for hole in range(1, 17):
        if owner(hole) != mover:
            continue
        for kind in moves_of_hole(edition):
            taken = "T" if kind.startswith("T") else kind
            if board[taken][hole - 1] > 0:
                moves.append(f"{hole}{kind}")
    return moves


def hole_total(board: dict[str, list[int]], hole: int) -> int:
    return sum(board[colour][hole - 1] for colour in board)


def play(edition, board, stores, mover, move, ply, max_plies, end_at_both_40=False):
    """Return (board, stores, captured, reason) after ``move`` (e.g. "12TB"); reason None while the game goes on."""
    board = {colour: list(counts) for colour, counts in board.items()}
    stores = list(stores)
    digits = len(move) - len(move.lstrip("0123456789"))
    hole, kind = int(move[:digits]), move[digits:]
    pattern = kind[-1]  # sowing follows the pattern of the colour named last: R or B
    in_hand = []
    if kind.startswith("T"):
        in_hand += ["T"] * board["T"][hole - 1]
        board["T"][hole - 1] = 0
        if edition.with_colour:
            in_hand += [pattern] * board[pattern][hole - 1]
            board[pattern][hole - 1] = 0
    else:
        in_hand += [kind] * board[kind][hole - 1]
        board[kind][hole - 1] = 0
    position = hole
    for seed in in_hand:
        position = next_hole(position)
        while position == hole or (pattern != edition.everywhere and owner(position) == mover):
            position = next_hole(position)
        board[seed][position - 1] += 1
    captured = 0
    while hole_total(board, position) in (2, 3):
        captured += hole_total(board, position)
        for colour in board:
            board[colour][position - 1] = 0
        position = previous_hole(position)
    opponent_seeds = sum(hole_total(board, h) for h in range(1, 17) if owner(h) != mover)
    if opponent_seeds == 0:
        captured += sum(hole_total(board, h) for h in range(1, 17))
        board = {colour: [0] * 16 for colour in board}
    stores[mover] += captured
    on_board = sum(hole_total(board, h) for h in range(1, 17))
    moves_played = ply + 1
    if stores[0] >= edition.win or stores[1] >= edition.win:
        reason = "score"
    elif edition.draw is not None and stores[0] == edition.draw and stores[1] == edition.draw:
        reason = "draw"
    elif end_at_both_40 and stores[0] >= 40 and stores[1] >= 40:
        reason = "both_40"
    elif on_board < edition.few:
        reason = "few_seeds"
    elif edition.move_limit is not None and moves_played >= edition.move_limit:
        reason = "move_limit"
    elif max_plies is not None and moves_played >= max_plies:
        reason = "ply_limit"
    else:
        reason = None
    return board, stores, captured, reason
