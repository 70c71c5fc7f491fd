"""Game records: a game as the list of its moves, saved as plain text and replayed with validation.

The text format is one header line (the game's registered name, its ply limit and the rule options the game was
played under, ``name=value`` with strings bare and other values in JSON) and the moves in the game's notation
(``Game.format_move``), separated by white space::

    awale16_2025 max_plies=none end_at_both_40=true
    1R 14B 3tr ...

``max_plies=none`` means no ply limit. Lines starting with ``#`` are comments. JSON records
(``{"game": "awale16", "max_plies": 400, "options": {}, "moves": ["1R", ...]}``) are read too. A record replays the
game from its starting position under those options (a game that draws its first player at random starts as its
seed-0 position does, unless the options name the first player).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from awale_env.errors import IllegalMoveError, RecordError
from awale_env.games import DEFAULT_GAME, GAMES, get_game
from awale_env.games.base import GAME_DEFAULT
from awale_env.games.validation import MAX_PLY


@dataclass
class GameRecord:
    """The moves of one game of ``game`` (a registered name) from its starting position, as action indices;
    ``max_plies`` ``"default"`` is the game's own limit; ``options`` the game's rule options (``Game.rule_options``)."""

    moves: list[int] = field(default_factory=list)
    max_plies: int | str | None = GAME_DEFAULT
    game: str = DEFAULT_GAME
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Check the header (the game, its ply limit and options, by building the start) and that every move is an
        action of the game: RecordError now rather than at :meth:`replay` (which checks the moves are legal)."""
        if not isinstance(self.game, str):
            raise RecordError(f"the game of a record is a game's name, one of {', '.join(GAMES)}; got {self.game!r}")
        try:
            game = get_game(self.game)
        except ValueError as err:
            raise RecordError(str(err)) from None
        self.game = game.name
        self.max_plies = game.ply_limit(self.max_plies)
        _initial(self.game, self.max_plies, self.options)
        for ply, move in enumerate(self.moves, start=1):
            if isinstance(move, bool) or not isinstance(move, int | np.integer) or not 0 <= move < game.num_actions:
                raise RecordError(f"ply {ply}: move {move!r} is not an action of {game.name} (0 to "
                                  f"{game.num_actions - 1})")  # fmt: skip

    def replay(self) -> list[Any]:
        """Every State of the game, the initial one first; RecordError names the ply of the first bad move."""
        states = [_initial(self.game, self.max_plies, self.options)]
        for ply, move in enumerate(self.moves, start=1):
            try:
                states.append(states[-1].play(move))
            except IllegalMoveError as err:
                raise RecordError(f"ply {ply}: {err}") from None
        return states

    def final_state(self) -> Any:
        return self.replay()[-1]

    def to_text(self) -> str:
        limit = "none" if self.max_plies is None else str(self.max_plies)
        options = (
            f"{name}={value if isinstance(value, str) else json.dumps(value)}" for name, value in self.options.items()
        )
        moves = " ".join(map(get_game(self.game).format_move, self.moves))
        return f"{' '.join([self.game, f'max_plies={limit}', *options])}\n{moves}\n"

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        """Parse a text or JSON record and replay it, so a record that loads is a legal game."""
        return cls._from_json(text) if text.lstrip().startswith("{") else cls._from_plain(text)

    @classmethod
    def _from_plain(cls, text: str) -> GameRecord:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        if not lines:
            raise RecordError("empty game record: expected a header line 'GAME max_plies=N'")
        header = lines[0].split()
        if header[0] not in GAMES or len(header) < 2 or not header[1].startswith("max_plies="):
            raise RecordError(
                f"bad record header {lines[0]!r}: expected 'GAME max_plies=N [OPTION=VALUE ...]' (N a number or none),"
                f" GAME one of {', '.join(GAMES)}"
            )
        value = header[1].removeprefix("max_plies=")
        if value == "none":
            max_plies = None
        elif value.isascii() and value.isdigit() and len(value) <= len(str(MAX_PLY)):
            max_plies = int(value)
        else:
            raise RecordError(
                f"bad max_plies {value!r} in record header: expected a positive integer up to 2**62 or 'none'"
            )
        options = dict(_option(item) for item in header[2:])
        return cls._checked(header[0], " ".join(lines[1:]).split(), max_plies, options)

    @classmethod
    def _from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:  # a JSONDecodeError, a number of too many digits, deep nesting
            raise RecordError(f"game record is not valid JSON: {err}") from None
        game = data.get("game") if isinstance(data, dict) else None
        if not isinstance(game, str) or game not in GAMES or not isinstance(data.get("moves"), list):
            raise RecordError(f"a JSON record needs 'game' (one of {', '.join(GAMES)}) and a 'moves' list")
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise RecordError(f"a JSON record's 'options' must be an object of rule options, got {options!r}")
        return cls._checked(data["game"], data["moves"], data.get("max_plies", GAME_DEFAULT), options)

    @classmethod
    def _checked(cls, game: str, moves: list, max_plies: Any, options: dict[str, Any]) -> GameRecord:
        """Moves as action indices, checked against the game as they are replayed."""
        state = _initial(game, max_plies, options)
        record = cls([], state.max_plies, game, dict(options))
        parse = get_game(game).parse_move
        for ply, move in enumerate(moves, start=1):
            try:
                action = state.to_action(parse(move) if isinstance(move, str) else move)
            except IllegalMoveError as err:
                raise RecordError(f"ply {ply}: {err}") from None
            record.moves.append(action)
            state = state.play(action)
        return record

    def to_json(self) -> str:
        moves = list(map(get_game(self.game).format_move, self.moves))
        return json.dumps({"game": self.game, "max_plies": self.max_plies, "options": self.options, "moves": moves})

    def save(self, path: str | Path) -> None:
        """Write the record; a ``.json`` path gets JSON, anything else the text format. The file is written whole or
        not at all: a failed write (a full disk) raises its OSError and leaves no partial file, and an earlier
        record at ``path`` as it was."""
        path = Path(path)
        text = self.to_json() if path.suffix == ".json" else self.to_text()
        partial = path.with_name(f"{path.name}.partial")
        try:
            partial.write_text(text)
            partial.replace(path)
        except BaseException as error:
            partial.unlink(missing_ok=True)
            if isinstance(error, OSError) and error.filename is None:
                error.filename = str(path)  # a failed write (a full disk) names no file of its own
            raise

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            text = Path(path).read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise RecordError(f"cannot read game record {path}: {err}") from None
        return cls.from_text(text)


def _option(item: str) -> tuple[str, Any]:
    """A header's ``name=value``: the value read as JSON (``true``, ``3``), else as a bare string."""
    name, sep, value = item.partition("=")
    if not sep or not name:
        raise RecordError(f"bad rule option {item!r} in record header: expected NAME=VALUE")
    try:
        return name, json.loads(value)
    except (ValueError, RecursionError):
        return name, value


def _initial(game: str, max_plies: Any, options: dict[str, Any]) -> Any:
    try:
        spec = get_game(game)
        spec.check_options(options, rule_flags_only=True)
        return spec.initial(max_plies=spec.ply_limit(max_plies), seed=0, **options)
    except ValueError as err:
        raise RecordError(f"bad record header: {err}") from None
