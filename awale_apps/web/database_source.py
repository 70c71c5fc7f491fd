"""The games of a results store (``awale serve --db FILE``: the SQLite file of ``awale tournament``, ``awale arena
--db`` and ``awale referee --db``, :mod:`competition.store`) as sources of replays, one per event, each
with its standings.

The file is opened read-only for each request: a tournament still running on it shows its games as they end, and
the event list is re-read when the sources are listed or an unknown one is asked for (:class:`DatabaseEvents`), so an
event started after the server appears at once, named ``db-ID``; a name once given stays (one whose settings cannot be
read is listed too, and answers 503 naming its row). A game is replayed from
its starting position (``initial(seed=start_seed)`` with the event's rules), its moves (the opening's first) with the
seconds each answer took, and its fault; the arena keeps no moves, so its games are listed (``replayable`` false)
and counted in the standings but not replayed; a game whose rows are damaged (a hand-edited file) is listed with
the ``error`` its row gives and answers 503 naming what is wrong, and the other games are served as ever. Seats: 0
is JoueurA (who moves first) in tournaments and referee matches, the rules' player 0 in the arena; a
:class:`~awale_apps.web.replays.Replay` names its players in the rules' order.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from awale_apps.web.errors import ApiError
from awale_apps.web.replays import Replay
from awale_env.errors import IllegalMoveError
from awale_env.games import get_game
from competition.store import Event, Store, StoredGame, StoreError, open_store


def database_sources(path: str | Path, name: str = "db") -> list[DatabaseSource]:
    """A source per event of the store at ``path`` (``name`` if it holds one, else ``name-ID``); StoreError for a
    file that is missing, corrupt, of another program, or holds no event."""
    with open_store(path) as store:
        events = store.events()
        if not events:
            raise StoreError(f"{path} holds no tournament, arena or referee match yet")
    single = len(events) == 1
    return [DatabaseSource(path, event, name if single else f"{name}-{event.id}") for event in events]


class DatabaseEvents:
    """The events of the results store at ``path`` as sources, the list re-read on each :meth:`sources`: the events
    held at start are named as :func:`database_sources` names them, each later one ``name-ID``, and a source keeps
    its name (and object) for the server's life. StoreError at start as :func:`database_sources`."""

    def __init__(self, path: str | Path, name: str = "db") -> None:
        self.path = Path(path)
        self.name = name
        self.known = {source.event.id: source for source in database_sources(path, name)}

    def sources(self) -> list[DatabaseSource]:
        """Every event's source, those the file gained since the last look added (one whose settings cannot be read
        answers 503 naming its row, until they can); the known ones alone when the file cannot be read now (each of
        them then answers 503 naming why)."""
        try:
            with open_store(self.path) as store:
                events = store.events(keep_unreadable=True)
        except (StoreError, sqlite3.Error):
            events = []
        for event in events:
            source = self.known.get(event.id)
            if source is None:
                self.known[event.id] = DatabaseSource(self.path, event, f"{self.name}-{event.id}")
            elif source.event.unreadable is not None:
                source.event = event
        return list(self.known.values())


#: The largest key a game of a store can have: its task index (key - 1) is one of SQLite's integers.
MAX_KEY = 2**63 - 1


def by_player(by_seat: tuple[Any, Any], seat_players: tuple[int, int]) -> list[Any]:
    """Values given by seat (seat 0's first) in the rules' players' order (player 0's first)."""
    values = list(by_seat)
    for seat, player in enumerate(seat_players):
        values[player] = by_seat[seat]
    return values


class DatabaseSource:
    """One event of a results store: its games (keyed by their number in the event, task index + 1, as the commands
    and logs number them) and its standings."""

    def __init__(self, path: str | Path, event: Event, name: str) -> None:
        self.path = Path(path)
        self.event = event
        self.name = name
        self.title = f"{event.kind} {event.name!r} ({event.game}) of {self.path.name}"

    @contextmanager
    def _store(self) -> Iterator[Store]:
        """The store, open; ApiError 503 naming why if it cannot be read, or if the event's settings cannot (read
        again on each request while they cannot, so the event is served once its row is repaired)."""
        try:
            with open_store(self.path) as store:
                if self.event.unreadable is not None:
                    self.event = next((event for event in store.events(keep_unreadable=True)
                                       if event.id == self.event.id), self.event)  # fmt: skip
                if self.event.unreadable is not None:
                    raise ApiError(503, f"the {self.title} cannot be read: {self.event.unreadable}")
                yield store
        except StoreError as error:  # damaged since the server started: the error names the file
            raise ApiError(503, str(error)) from None
        except sqlite3.DatabaseError as error:  # unreadable
            raise ApiError(503, f"cannot read the results store {self.path}: {error}") from None

    def _start(self, game: StoredGame) -> Any:
        """The starting position of ``game``; ApiError 503 naming the game if the stored event's game, rules or ply
        limit, or the game's start seed, do not make one (a damaged or hand-edited file)."""
        settings = self.event.settings
        rules = settings.get("rules", {})
        try:
            if not isinstance(rules, dict):
                raise ValueError(f"the event's settings' rules are {rules!r:.60}, not a JSON object of rule options")
            return get_game(self.event.game).initial(seed=game.start_seed, max_plies=settings.get("max_plies"),
                                                     **rules)  # fmt: skip
        except (ValueError, TypeError) as error:
            raise ApiError(503, f"{self._game_name(game.number)} cannot be replayed: {self.path}: its starting "
                                "position (the event's game, rules and max_plies, the game's start_seed) does not "
                                f"build: {error}") from None  # fmt: skip

    def _game_name(self, number: int | str) -> str:
        return f"game {number} of {self.title}"

    def _seat_players(self, game: StoredGame) -> tuple[int, int]:
        """The rules' player at each seat of ``game``."""
        if self.event.kind == "arena":
            return (0, 1)
        first = self._start(game).to_move
        return (first, 1 - first)

    def _row(self, game: StoredGame, seat_players: tuple[int, int]) -> dict[str, Any]:
        players, scores = by_player(game.players, seat_players), by_player(game.scores, seat_players)
        result = "draw" if game.winner is None else seat_players[game.winner]
        replayable = self.event.kind != "arena"
        return {"key": str(game.number), "game": self.event.game, "players": players, "plies": game.plies,
                "result": result, "title": f"{self.event.name} game {game.number}", "task": game.task,
                "scores": scores, "end_reason": game.end_reason, "replayable": replayable}  # fmt: skip

    def summaries(self) -> list[dict[str, Any]]:
        """One row per game (task order): besides the protocol's keys, the ``task``, the ``scores`` (seeds captured,
        in the players' order), the ``end_reason`` and whether it is ``replayable`` (the arena keeps no moves). A
        game whose row cannot be read (a damaged file) is listed with what can be read, ``replayable`` false and
        the ``error`` naming what is wrong; the other games are listed as ever."""
        with self._store() as store:
            games = store.games(self.event.id, keep_unreadable=True)
        seats: dict[Any, tuple[int, int]] = {}  # by start seed: one start, one player moving first
        rows = []
        for game in games:
            error = None
            try:
                if game.start_seed not in seats:
                    seats[game.start_seed] = self._seat_players(game)
                row = self._row(game, seats[game.start_seed])
            except ApiError as refused:  # no start: its players listed by seat
                row, error = self._row(game, (0, 1)), refused.message
            if game.unreadable is not None:
                error = f"{self._game_name(game.number)} cannot be replayed: {game.unreadable}"
            if error is not None:
                row.update(replayable=False, error=error)
            rows.append(row)
        return rows

    def load(self, key: str) -> Replay:
        """Game number ``key`` of the event as a Replay; 404 for an unknown one or one without moves (an arena
        game), 503 naming what is wrong for one whose stored rows do not replay (a damaged or hand-edited file)."""
        if not (key.isascii() and key.isdigit()) or int(key) > MAX_KEY:
            raise ApiError(404, f"no game {key[:40]!r} in {self.title}: its games are keyed by their number (1 "
                                f"up to {MAX_KEY})")  # fmt: skip
        with self._store() as store:
            try:
                game = store.game_numbered(self.event.id, int(key))
            except KeyError:
                game = None
            except StoreError as error:
                raise ApiError(503, f"{self._game_name(key)} cannot be replayed: {error}") from None
        if game is None:
            raise ApiError(404, f"no game {key!r} in {self.title}: GET /api/sources/{self.name}/games lists them")
        if self.event.kind == "arena" or (game.plies and not game.moves):
            raise ApiError(404, f"game {key} of {self.title} cannot be replayed: the arena keeps no moves, only the "
                                "result (see the standings)")  # fmt: skip
        start = self._start(game)
        seat_players = self._seat_players(game)
        kind = get_game(self.event.game)
        state, actions = start, []
        for move in game.moves:
            try:
                if not isinstance(move.move, str):
                    raise ValueError("a move is text in the game's notation")
                if not (move.seconds is None or isinstance(move.seconds, int | float)):
                    raise ValueError("its seconds must be a number, or NULL for an opening's move")
                action = state.to_action(kind.parse_move(move.move))
                state = state.play(action)
            except (IllegalMoveError, ValueError) as error:
                where = f"{self.path}: moves row of ply {move.ply}: {str(move.move)[:40]!r}"
                raise ApiError(503, f"{self._game_name(key)} cannot be replayed: {where} does not replay: "
                                    f"{error}") from None  # fmt: skip
            actions.append(action)
        players = by_player(game.players, seat_players)
        fault = None
        if game.fault is not None:
            f = game.fault
            who = players.index(f.player) if f.player in players else None
            fault = {"player": who, "name": f.player, "kind": f.kind, "ply": f.ply, "answer": f.answer,
                     "detail": f.detail}  # fmt: skip
        title = f"{self.event.name} game {game.number}: {game.players[0]} vs {game.players[1]}"
        return Replay(start, actions, players, title, [m.seconds for m in game.moves], fault)

    def standings(self) -> list[dict[str, Any]]:
        """The event's standings (:meth:`Store.standings`): ``player``, ``games``, ``points``, ``score`` (points per
        game), ``wins``, ``draws``, ``losses``, ``faults`` (by kind), ``elo`` and its 95 % interval
        ``elo_low``-``elo_high``, best first."""
        with self._store() as store:
            return [row.to_dict() for row in store.standings(self.event.id)]
