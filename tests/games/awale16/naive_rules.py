"""A deliberately naive, independent implementation of docs/rules.md, written from the text alone.

It shares no code with the engine: holes are numbered 1-16 as in the rules, the board is two lists, and every rule
is a separate, obvious loop. The engine is compared with it on many random positions.
"""

from __future__ import annotations


def owner(hole: int) -> int:
    """Player 0 owns the odd holes (rule 2)."""
    return 0 if hole % 2 == 1 else 1


def next_hole(hole: int) -> int:
    return 1 if hole == 16 else hole + 1


def previous_hole(hole: int) -> int:
    return 16 if hole == 1 else hole - 1


def legal_moves(red: list[int], blue: list[int], mover: int) -> list[tuple[int, str]]:
    moves = []
    for hole in range(1, 17):
        if owner(hole) != mover:
            continue
        if red[hole - 1] > 0:
            moves.append((hole, "R"))
        if blue[hole - 1] > 0:
            moves.append((hole, "B"))
    return moves


def play(red, blue, stores, mover, hole, colour, ply, max_plies):
    """Return (red, blue, stores, captured, over, reason) after the move."""
    red, blue, stores = list(red), list(blue), list(stores)
    pits = red if colour == "R" else blue
    in_hand = pits[hole - 1]
    pits[hole - 1] = 0
    position = hole
    while in_hand > 0:
        position = next_hole(position)
        if position == hole:
            continue
        if colour == "B" and owner(position) == mover:
            continue
        pits[position - 1] += 1
        in_hand -= 1
    captured = 0
    position = position  # the last hole sown
    while red[position - 1] + blue[position - 1] in (2, 3):
        captured += red[position - 1] + blue[position - 1]
        red[position - 1] = 0
        blue[position - 1] = 0
        position = previous_hole(position)
    opponent = 1 - mover
    opponent_seeds = sum(red[h - 1] + blue[h - 1] for h in range(1, 17) if owner(h) == opponent)
    if opponent_seeds == 0:
        captured += sum(red) + sum(blue)
        red, blue = [0] * 16, [0] * 16
    stores[mover] += captured
    on_board = sum(red) + sum(blue)
    if stores[0] >= 33 or stores[1] >= 33:
        reason = "score"
    elif stores[0] == 32 and stores[1] == 32:
        reason = "draw"
    elif on_board < 8:
        reason = "few_seeds"
    elif max_plies is not None and ply + 1 >= max_plies:
        reason = "ply_limit"
    else:
        reason = None
    return red, blue, stores, captured, reason is not None, reason
