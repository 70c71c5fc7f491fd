"""How the web page of ``awale serve`` draws Hawalis: :data:`PAGE`, read through ``Game.page()``.

Rule 3's grid: four rows from South's outer row to North's, columns west to east as South sees them, the person's
two rows at the bottom (the board turned round for North); each player's pits are numbered 0..13 as their moves.
The keys are described in docs/web.md.
"""

from __future__ import annotations

from typing import Any

from awale_env.games.web_page import page

COLUMNS = 7
SIDES = ("south", "north")


def pit(row: int, column: int) -> dict[str, Any]:
    """The pit at ``row`` (0-3, South's outer row first) and ``column`` (0-6, west to east as South sees them)."""
    owner, index = [(0, column), (0, 13 - column), (1, column + 7), (1, 6 - column)][row]
    return {"label": str(index), "owner": owner, "seeds": [[SIDES[owner], index]], "move": str(index)}


def view(rows: range, columns: range) -> list[list[dict[str, Any]]]:
    return [[pit(row, column) for column in columns] for row in rows]


PAGE: dict[str, Any] = page(
    title="Hawalis, 4 × 7 relay sowing",
    players=("South", "North"),
    store_label="captured",
    views=[view(range(3, -1, -1), range(COLUMNS)), view(range(4), range(COLUMNS - 1, -1, -1))],
    gap_before_row=2,  # the person's two rows stand apart from the opponent's
    hint="Each player sows round their own two rows, anticlockwise; a last seed landing in an occupied pit picks it "
    "up and sows on. Ending in your inner row captures the facing pit of the opponent and the one behind it. Click "
    "one of your pits (numbered 0-13) to sow it.",
    example="12",
    rule_choices=(
        {"label": "endless move loses", "rules": {"endless_move": "loses"}},
        {"label": "endless moves illegal", "rules": {"endless_move": "illegal"}},
    ),
    end_reasons={
        "opponent_empty": "the last move took the last seeds of the other side",
        "no_legal_move": "the player to move had seeds but no legal move, and loses",
        "endless_move": "the last move would never end (its relay sowing runs in a cycle), so its player loses",
        "ply_limit": "the ply limit was reached (the player with more seeds on their side wins)",
    },
    move_note="ended in pit {last_pit} on lap {laps}",
    sowing_end="last_pit",
)
