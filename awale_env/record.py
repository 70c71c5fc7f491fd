"""Game records: a game as the list of its moves, saved as plain text and replayed with validation.

The text format is one header line and the moves in notation, separated by white space::

    awale16 max_plies=400
    1R 14B 3r ...

``max_plies=none`` means no ply limit. Lines starting with ``#`` are comments. JSON records
(``{"game": "awale16", "max_plies": 400, "moves": ["1R", ...]}``) are read too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from awale_env.errors import IllegalMoveError, RecordError
from awale_env.notation import format_move
from awale_env.rules import DEFAULT_MAX_PLIES, GAME_NAME, State


@dataclass
class GameRecord:
    """The moves of one game from the initial position, as action indices."""

    moves: list[int] = field(default_factory=list)
    max_plies: int | None = DEFAULT_MAX_PLIES

    def replay(self) -> list[State]:
        """Every State of the game, the initial one first; RecordError names the ply of the first bad move."""
        states = [_initial(self.max_plies)]
        for ply, move in enumerate(self.moves, start=1):
            try:
                states.append(states[-1].play(move))
            except IllegalMoveError as err:
                raise RecordError(f"ply {ply}: {err}") from None
        return states

    def final_state(self) -> State:
        return self.replay()[-1]

    def to_text(self) -> str:
        limit = "none" if self.max_plies is None else str(self.max_plies)
        return f"{GAME_NAME} max_plies={limit}\n{' '.join(format_move(m) for m in self.moves)}\n"

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        """Parse a text or JSON record and replay it, so a record that loads is a legal game."""
        return cls._from_json(text) if text.lstrip().startswith("{") else cls._from_plain(text)

    @classmethod
    def _from_plain(cls, text: str) -> GameRecord:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        if not lines:
            raise RecordError("empty game record: expected a header line 'awale16 max_plies=N'")
        header = lines[0].split()
        if header[0] != GAME_NAME or len(header) != 2 or not header[1].startswith("max_plies="):
            raise RecordError(f"bad record header {lines[0]!r}: expected '{GAME_NAME} max_plies=N' or 'max_plies=none'")
        value = header[1].removeprefix("max_plies=")
        if value == "none":
            max_plies = None
        elif value.isdigit():
            max_plies = int(value)
        else:
            raise RecordError(f"bad max_plies {value!r} in record header: expected a positive integer or 'none'")
        return cls._checked(" ".join(lines[1:]).split(), max_plies)

    @classmethod
    def _from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise RecordError(f"game record is not valid JSON: {err}") from None
        if not isinstance(data, dict) or data.get("game") != GAME_NAME or not isinstance(data.get("moves"), list):
            raise RecordError(f"a JSON record needs 'game': '{GAME_NAME}' and a 'moves' list")
        return cls._checked(data["moves"], data.get("max_plies", DEFAULT_MAX_PLIES))

    @classmethod
    def _checked(cls, moves: list, max_plies) -> GameRecord:
        """Moves as action indices, checked against the game as they are replayed."""
        record = cls([], max_plies)
        state = _initial(max_plies)
        for ply, move in enumerate(moves, start=1):
            try:
                action = state.to_action(move)
            except IllegalMoveError as err:
                raise RecordError(f"ply {ply}: {err}") from None
            record.moves.append(action)
            state = state.play(action)
        return record

    def to_json(self) -> str:
        return json.dumps(
            {"game": GAME_NAME, "max_plies": self.max_plies, "moves": [format_move(m) for m in self.moves]}
        )

    def save(self, path: str | Path) -> None:
        """Write the record; a ``.json`` path gets JSON, anything else the text format."""
        path = Path(path)
        path.write_text(self.to_json() if path.suffix == ".json" else self.to_text())

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            text = Path(path).read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise RecordError(f"cannot read game record {path}: {err}") from None
        return cls.from_text(text)


def _initial(max_plies) -> State:
    try:
        return State.initial(max_plies)
    except ValueError as err:
        raise RecordError(f"bad record header: {err}") from None
