"""The games being played: each one's States and moves, its JSON for the page and its record, and the store that
bounds how many are kept.

What a game shows beyond its State (why it ended, a note on a move, where a sowing ended) comes from the game's page
data, ``Game.page()`` (``awale_env/games/<name>/page.py``; its keys are described in docs/web.md), so nothing here
knows one game from another.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from string import Formatter
from typing import Any

from awale_apps.web.errors import ApiError
from awale_env.games import GAMES, Game, game_of, get_game
from awale_env.record import GameRecord


def web_games() -> dict[str, Game]:
    """The games of the registry the page can draw: those with page data (a game registered without a ``page``
    module, like the toy game of the tests, still plays everywhere else)."""
    playable = {}
    for name, game in GAMES.items():
        try:
            game.page()
        except NotImplementedError:
            continue
        playable[name] = game
    return playable


def end_explanation(state: Any) -> str:
    """Why the game of ``state`` ended, in words: its page's ``end_reasons`` text, with the rules it names in braces
    written as the page's ``rule_words`` say (a rule is read from ``State.to_dict()``, at its top or under
    ``"rules"``)."""
    page = game_of(state).page()
    data = state.to_dict()
    rules = {**data, **data.get("rules", {})}
    words = {rule: texts[rules[rule]] for rule, texts in page["rule_words"].items()}
    return page["end_reasons"][state.end_reason].format_map(words)


def move_details(game: Game, page: dict[str, Any], after: Any) -> dict[str, str | None]:
    """What the page shows of a move beyond its text, from the State ``after`` it (``page`` is the game's page data):
    ``note``, its ``move_note`` template filled with the State's properties it names, and ``ended``, the mover's pit
    where the sowing ended (the State property its ``sowing_end`` names) written as the move from that pit; each None
    when the page has none or a property it needs is None (a move that never ends)."""
    template, ended = page["move_note"], page["sowing_end"]
    values = {name: getattr(after, name) for _, name, _, _ in Formatter().parse(template or "") if name}
    pit = None if ended is None else getattr(after, ended)
    return {
        "note": None if template is None or None in values.values() else template.format_map(values),
        "ended": None if pit is None else game.format_move(pit),
    }


@dataclass(eq=False)
class LiveGame:
    """One game between the person (``human``, a seat) and an agent: every State from the start, and the moves.

    ``game`` names the game in :data:`awale_env.games.GAMES`, ``rules`` are the rule options it was started with.
    """

    id: str
    game: str
    rules: dict[str, Any]
    opponent: str
    opponent_name: str
    human: int
    seed: int | None
    worker: int
    states: list[Any]
    moves: list[int] = field(default_factory=list)
    #: Seconds the agent thought for each of its moves; None for the person's moves.
    seconds: list[float | None] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def state(self) -> Any:
        return self.states[-1]

    def last_human_ply(self) -> int | None:
        """The index of the person's last move (what undo goes back to), or None."""
        return next((i for i in range(len(self.moves) - 1, -1, -1) if self.states[i].to_move == self.human), None)

    def record(self) -> str:
        """The game as :class:`awale_env.record.GameRecord` text: its ply limit, rule options (with the first player
        the rules drew, if they drew one) and moves, which ``GameRecord.from_text`` replays."""
        options = dict(self.rules)
        if "first_player" in get_game(self.game).rule_options:
            options["first_player"] = self.states[0].to_move
        return GameRecord(list(self.moves), self.state.max_plies, self.game, options).to_text()

    def to_json(self) -> dict[str, Any]:
        state = self.state
        kind = get_game(self.game)
        page = kind.page()
        moves = [
            {
                "ply": ply + 1,
                "move": kind.format_move(action),
                "player": self.states[ply].to_move,
                "by": "you" if self.states[ply].to_move == self.human else "opponent",
                "captured": self.states[ply + 1].last_capture,
                "seconds": None if seconds is None else round(seconds, 3),
                **move_details(kind, page, self.states[ply + 1]),
            }
            for ply, (action, seconds) in enumerate(zip(self.moves, self.seconds))
        ]
        result = None
        if state.is_terminal:
            winner = state.winner
            outcome = "draw" if winner is None else "win" if winner == self.human else "loss"
            result = {
                "winner": winner,
                "outcome": outcome,
                "end_reason": state.end_reason,
                "explanation": end_explanation(state),
            }
        return {
            "id": self.id,
            "game": self.game,
            "rules": self.rules,
            "opponent": self.opponent,
            "opponent_name": self.opponent_name,
            "seat": self.human,
            "seed": self.seed,
            "status": "over" if state.is_terminal else "your_turn",
            "state": state.to_dict(),
            "stores": list(state.stores),
            "legal_moves": [kind.format_move(a) for a in state.legal_actions()] if state.to_move == self.human else [],
            "moves": moves,
            "last_move": moves[-1] if moves else None,
            "can_undo": self.last_human_ply() is not None,
            "result": result,
            "record": self.record(),
        }


class GameStore:
    """The live games (or any items with an ``id``: the reviews), least recently used first; adding one beyond
    ``max_games`` evicts the longest idle. ``noun`` and ``hint`` word the 404 of an unknown id."""

    def __init__(self, max_games: int, noun: str = "game", hint: str = "create one with POST /api/games") -> None:
        self.max_games = max_games
        self.noun, self.hint = noun, hint
        self._games: OrderedDict[str, Any] = OrderedDict()

    def add(self, game: Any) -> list[Any]:
        """Store ``game``; return the games evicted to make room."""
        self._games[game.id] = game
        evicted = []
        while len(self._games) > self.max_games:
            evicted.append(self._games.popitem(last=False)[1])
        return evicted

    def peek(self, game_id: str) -> Any:
        """The game ``game_id`` without marking it used (a replay of it); ApiError 404 if it is not kept."""
        if game_id not in self._games:
            raise ApiError(
                404,
                f"unknown {self.noun} id {game_id!r}: it never existed or was evicted (this server keeps the "
                f"{self.max_games} most recently used {self.noun}s); {self.hint}",
            )
        return self._games[game_id]

    def get(self, game_id: str) -> Any:
        """The game ``game_id``, marked as the most recently used; ApiError 404 if it is not kept."""
        game = self.peek(game_id)
        self._games.move_to_end(game_id)
        return game

    def games(self) -> list[Any]:
        """The games, least recently used first."""
        return list(self._games.values())

    def remove(self, game_id: str) -> Any:
        game = self.get(game_id)
        del self._games[game_id]
        return game
