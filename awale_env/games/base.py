"""The game protocol: what environments, agents and the arena need to know about a game, so that one code path runs
every game of the toolkit with no game-specific branches; and :class:`BoardState`, what every game's State shares.

A :class:`Game` names the game, its action and observation sizes, its ``State`` class and default ply limit, and
builds starting positions from validated options; moves and pictures go through it as well, and it leads to the
game's optional compiled parts (``search``, ``batched``) and its web page. Every ``State`` has the API of
:class:`awale_env.State` (``play``, ``legal_mask``, ``observation_tensor``, ``returns``, ...), and its actions
``0..num_actions-1`` are the moves of the player to move.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from numbers import Integral
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from awale_env.errors import IllegalMoveError
from awale_env.games.validation import NO_LIMIT, check_seed, digit_index, is_int

if TYPE_CHECKING:
    from gymnasium import spaces

    from awale_env.kernels.search import SearchKernels

#: The options :meth:`Game.initial` takes for every game, beside the game's own rule flags.
COMMON_OPTIONS = ("max_plies", "seed")
#: ``max_plies=GAME_DEFAULT`` (every environment's default) asks for the game's own ply limit; None means no limit.
GAME_DEFAULT = "default"


@dataclass(frozen=True, kw_only=True)
class Game:
    """One game of the toolkit, declared by keyword, each fact once (its State class carries ``num_actions`` and
    ``end_reasons``; the rest is the game's package, found by the conventions below).

    ``title`` names its environments (``awale_env/{title}-v0`` for Gymnasium, the lower-case one for PettingZoo);
    ``total_seeds`` scales the ``"score_diff"`` rewards (a game's rewards add up to the final store difference
    divided by it); ``rule_options`` are the rule flags :meth:`initial` accepts beside ``max_plies`` and ``seed``;
    ``end_reasons`` (from the State) names the status codes of its kernels (index 0 = None, a live game; the vector
    env codes an illegal action ``len(end_reasons)``).

    For learners: ``board_planes`` are the observation indexes forming each input channel of a ring network (one
    entry per board position, in sowing order from the observer's first position; default one plane of the
    ``board_entries``), ``actions_per_position`` the actions a position offers, ``own_positions`` the positions
    that are the mover's (default the first ``num_actions / actions_per_position``), ``symmetry_step`` the rotation
    of relative actions that maps the game to itself (0 for none), ``absolute_actions`` whether actions number the
    board's positions for both players (player 1's are player 0's turned by one position) rather than each
    mover's own from their first position.

    ``package`` is the game's package, whose modules the defaults use: ``state_type.initial`` builds starting
    positions, ``notation`` (``format_move``, ``parse_move``; else moves are action numbers) writes moves,
    ``render`` (``render_rgb``, ``render_ansi``) draws positions; its optional parts are ``search`` (``SEARCH``, the
    compiled searches' kernels, which the vector env steps on too) and ``page`` (``PAGE``, the web page's drawing).
    None: no optional part. A game whose rules differ from these conventions subclasses Game.
    """

    name: str
    title: str
    state_type: type
    obs_size: int
    default_max_plies: int | None
    total_seeds: int
    board_entries: int
    max_board_entry: float
    rule_options: tuple[str, ...] = ()
    board_planes: tuple[tuple[int, ...], ...] = ()
    actions_per_position: int = 1
    own_positions: tuple[int, ...] = ()
    symmetry_step: int = 0
    absolute_actions: bool = False
    package: str | None = None
    num_actions: int = field(init=False)
    end_reasons: tuple[str | None, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_actions", self.state_type.num_actions)
        object.__setattr__(self, "end_reasons", self.state_type.end_reasons)
        if not self.board_planes:
            object.__setattr__(self, "board_planes", (tuple(range(self.board_entries)),))
        if not self.own_positions:
            object.__setattr__(self, "own_positions", tuple(range(self.num_actions // self.actions_per_position)))

    def observation_space(self) -> spaces.Box:
        """The Box of ``State.observation_tensor``: float32[obs_size], the first ``board_entries`` entries pit
        contents (at most ``max_board_entry``: every seed of the game in one pit), the others fractions in [0, 1]."""
        from gymnasium import spaces  # here: the games and their kernels load without gymnasium

        high = np.ones(self.obs_size, dtype=np.float32)
        high[: self.board_entries] = self.max_board_entry
        return spaces.Box(low=np.zeros(self.obs_size, dtype=np.float32), high=high, dtype=np.float32)

    @property
    def options(self) -> tuple[str, ...]:
        """Every option :meth:`initial` accepts."""
        return (*COMMON_OPTIONS, *self.rule_options)

    def check_options(self, options: dict[str, Any], rule_flags_only: bool = False) -> None:
        """Raise ValueError naming the allowed options if ``options`` holds another one (the values are checked by
        the game's ``State.initial``). ``rule_flags_only``: allow only :attr:`rule_options` (environments take
        ``max_plies`` themselves and the seed from ``reset``)."""
        allowed = self.rule_options if rule_flags_only else self.options
        unknown = sorted(set(options) - set(allowed))
        if rule_flags_only and "seed" in unknown:
            raise ValueError("seed is not an environment option: pass it to reset(seed=...)")
        if unknown:
            what = "rule options" if rule_flags_only else "options"
            raise ValueError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for the game {self.name!r}; "
                f"its {what} are {', '.join(allowed) or 'none'}"
            )

    def ply_limit(self, max_plies: int | str | None) -> int | None:
        """``max_plies`` with :data:`GAME_DEFAULT` replaced by :attr:`default_max_plies` (other values unchecked)."""
        return self.default_max_plies if isinstance(max_plies, str) and max_plies == GAME_DEFAULT else max_plies

    def initial(self, **options: Any) -> Any:
        """The starting position. ``max_plies`` defaults to :attr:`default_max_plies` (None: no limit), ``seed``
        draws whatever the rules leave to chance (Oware's ``"texts"`` first player); the game's rule flags
        (:attr:`rule_options`) pass through to its ``State.initial``."""
        self.check_options(options)
        options.setdefault("max_plies", self.default_max_plies)
        options["seed"] = check_seed(options.get("seed"))
        return self._initial(**options)

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> Any:
        """The game's ``State.initial`` with checked option names."""
        return self.state_type.initial(max_plies=max_plies, seed=seed, **flags)

    def action_shift(self, player: int) -> int:
        """How far ``player``'s actions are turned from the mover's own numbering: the mover's relative action r is
        the game's action ``(r + action_shift(player)) % num_actions``. Games that number actions from the mover's
        side already answer 0, so one network can play both seats without it."""
        return self.actions_per_position * player if self.absolute_actions else 0

    def format_move(self, action: int) -> str:
        """How a move is written: the game's ``notation.format_move``, or the action number itself."""
        notation = self._part("notation")
        if notation is not None:
            return notation.format_move(action)
        if isinstance(action, bool) or not isinstance(action, Integral) or not 0 <= action < self.num_actions:
            raise IllegalMoveError(f"action {action!r} out of range: {self.name} actions are 0-{self.num_actions - 1}")
        return str(int(action))

    def parse_move(self, text: str) -> int:
        """The action of a move written as :meth:`format_move` writes it (IllegalMoveError for anything else)."""
        notation = self._part("notation")
        if notation is not None:
            return notation.parse_move(text)
        action = digit_index(text, self.num_actions)
        if action is not None:
            return action
        raise IllegalMoveError(f"malformed move {text!r}: {self.name} moves are numbers 0-{self.num_actions - 1}")

    def render_rgb(self, state: Any, last_action: int | None = None) -> np.ndarray:
        """The position as an RGB image, H x W x 3 uint8 (the game's ``render.render_rgb``, loaded with Pillow when
        first drawn)."""
        return self._render().render_rgb(state, last_action)

    def render_ansi(self, state: Any, last_action: int | None = None) -> str:
        """The position as text, ANSI colours where the game has them (the game's ``render.render_ansi``)."""
        return self._render().render_ansi(state, last_action)

    def _render(self) -> Any:
        module = self._part("render")
        if module is None:
            raise NotImplementedError(f"the game {self.name!r} draws no pictures (no render module)")
        return module

    # --- the optional parts, loaded when first used ---------------------------------------------------------------

    def _part(self, module: str) -> Any:
        """The game's module ``module`` (of its :attr:`package`), or None when it has none."""
        return None if self.package is None else _module(self.package, module)

    @property
    def has_search(self) -> bool:
        """Whether the game has compiled search kernels (:attr:`search`)."""
        return self._part("search") is not None

    @property
    def search(self) -> SearchKernels:
        """The kernels the compiled searches (alpha-beta, MCTS, AlphaZero) call for this game; NotImplementedError
        for a game without them."""
        module = self._part("search")
        if module is None:
            raise NotImplementedError(f"the game {self.name!r} has no compiled search kernels (no search module)")
        return module.SEARCH

    def page(self) -> dict[str, Any]:
        """How the web page draws the game (a JSON-able dict); NotImplementedError for a game without one."""
        module = self._part("page")
        if module is None:
            raise NotImplementedError(f"the game {self.name!r} has no web page (no page module)")
        return module.PAGE


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of a State's board array, as the compiled kernels take it."""
    view = array.view()
    view.flags.writeable = False
    return view


@cache
def _module(package: str, name: str) -> Any:
    """Module ``name`` of ``package``, or None when there is none (looked up once)."""
    if importlib.util.find_spec(f"{package}.{name}") is None:
        return None
    return importlib.import_module(f"{package}.{name}")


@cache
def actions_of(bits: int) -> tuple[int, ...]:
    """The actions whose bits are set in ``bits``, increasing."""
    return tuple(a for a in range(bits.bit_length()) if (bits >> a) & 1)


@cache
def _mask_of(bits: int, num_actions: int) -> np.ndarray:
    mask = np.zeros(num_actions, dtype=bool)
    mask[list(actions_of(bits))] = True
    mask.flags.writeable = False
    return mask


class BoardState:
    """What every game's State shares: an immutable, hashable position whose status code, legal-action bits, player
    to move, ply and ply limit the game's kernels computed (the slots below, ``_max_plies`` ``NO_LIMIT`` for none,
    filled by :meth:`_new`), and how a move is read and refused (:meth:`to_action`).

    A game's State adds its rules: its slots (the board, its rules), construction (``initial``, ``from_position``,
    ``from_dict``; a ``_make`` that calls :meth:`_new` and sets its own slots), ``play``, ``observation_tensor``,
    ``to_dict``, :meth:`_key` (what equality compares), :meth:`_why_illegal` and the board's accessors; it overrides
    what its rules decide otherwise (Hawalis's ``winner``).
    """

    __slots__ = ("_stores", "_to_move", "_ply", "_max_plies", "_status", "_legal", "_last_capture")

    #: The game's number of actions and the names of its status codes (class attributes of each game's State).
    num_actions: ClassVar[int]
    end_reasons: ClassVar[tuple[str | None, ...]]
    #: The registered Game this State plays (set by :func:`awale_env.games.register`).
    game: ClassVar[Game]
    #: The ply limit a position has unless told otherwise (``max_plies=GAME_DEFAULT``).
    default_max_plies: ClassVar[int | None]
    #: How a move is written, in messages (the game's notation; plain action numbers by default).
    format_move: ClassVar[Callable[[int], str]] = staticmethod(str)
    #: How a move string is read when moves have names (the game's notation), with a move to show in messages;
    #: None: a move is an action number, as an int or a digit string, named ``move_noun`` in messages.
    parse_move: ClassVar[Callable[[str], int] | None] = None
    example_move: ClassVar[str] = ""
    move_noun: ClassVar[str] = "an action"

    _status: int
    _legal: int
    _to_move: int
    _ply: int
    _max_plies: int
    _stores: tuple[int, int]
    _last_capture: int

    def __init__(self) -> None:
        raise TypeError("use State.initial() or State.from_position(...) to make a State")

    # --- construction: what every game's ``initial``, ``from_position`` and ``from_dict`` build on -----------------

    @classmethod
    def _new(cls, stores: tuple[int, int] | None, to_move: int, ply: int, max_plies: int, status: int, legal: int,
             last_capture: int = 0) -> Any:  # fmt: skip
        """A State of this class with the slots every game has, set by plain assignment (a State is made on every
        move: a generic keyword constructor cost the AEC env a quarter of its speed); the game's ``_make`` sets its
        own. ``stores`` None: the game counts its captures otherwise (Hawalis's follow from the board)."""
        state = object.__new__(cls)
        state._stores = stores
        state._to_move = to_move
        state._ply = ply
        state._max_plies = max_plies
        state._status = status
        state._legal = legal
        state._last_capture = last_capture
        return state

    @classmethod
    def _dict_fields(cls, data: Any, required: tuple[str, ...]) -> dict[str, Any]:
        """``data`` checked as the start of ``from_dict``: a dict of this game's position (its ``"game"``, if given,
        is this game's name) holding every field of ``required``; ValueError naming what is wrong."""
        name = cls.game.name
        if not isinstance(data, dict):
            raise ValueError(f"a State dict must be a dict, got {type(data).__name__}")
        if data.get("game", name) != name:
            raise ValueError(f"this is a {data.get('game')!r} position, not {name!r}")
        missing = [key for key in required if key not in data]
        if missing:
            raise ValueError(f"State dict lacks {', '.join(missing)}")
        return data

    @classmethod
    def _limit(cls, max_plies: int | str | None) -> int | None:
        """``max_plies`` with :data:`GAME_DEFAULT` replaced by the game's :attr:`default_max_plies`."""
        return cls.default_max_plies if isinstance(max_plies, str) and max_plies == GAME_DEFAULT else max_plies

    def _viewer(self, player: Any) -> int:
        """The player an observation is drawn for: ``player``, or the player to move for None; ValueError for
        anything but 0 and 1."""
        if player is None:
            return self._to_move
        if type(player) is int and 0 <= player <= 1:
            return player  # fast path for the common case (an environment asks on every step)
        if not (is_int(player) and player in (0, 1)):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        return int(player)

    @property
    def to_move(self) -> int:
        """The player whose turn it is, 0 or 1. Still alternates once the game is over."""
        return self._to_move

    @property
    def ply(self) -> int:
        """Moves played so far, by either player."""
        return self._ply

    @property
    def max_plies(self) -> int | None:
        """The ply limit, or None for no limit."""
        return None if self._max_plies == NO_LIMIT else self._max_plies

    @property
    def stores(self) -> tuple[int, int]:
        """Seeds captured by player 0 and player 1."""
        return self._stores

    @property
    def is_terminal(self) -> bool:
        return self._status != 0

    @property
    def end_reason(self) -> str | None:
        """Why the game ended (the game's ``end_reasons``); None while it goes on."""
        return self.end_reasons[self._status]

    @property
    def winner(self) -> int | None:
        """0 or 1 once the game is over and someone captured more; None for a draw or a live game."""
        s0, s1 = self._stores
        if self._status == 0 or s0 == s1:
            return None
        return 0 if s0 > s1 else 1

    @property
    def last_capture(self) -> int:
        """Seeds the move that led here captured."""
        return self._last_capture

    def result_text(self, names: tuple[str, str] = ("player 0", "player 1")) -> str | None:
        """``game over (<end reason>): <name> wins`` (or ``draw``) once the game is over, for status lines; None
        while it goes on."""
        if self._status == 0:
            return None
        winner = self.winner
        return f"game over ({self.end_reason}): {'draw' if winner is None else f'{names[winner]} wins'}"

    def returns(self) -> tuple[float, float]:
        """+1 / -1 / 0 for each player once the game is over; (0.0, 0.0) before."""
        winner = self.winner
        if winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move, sorted; empty once the game is over."""
        return list(actions_of(self._legal))

    def legal_mask(self) -> np.ndarray:
        """Boolean mask of shape (num_actions,), True for legal actions."""
        return _mask_of(self._legal, self.num_actions).copy()

    def is_legal(self, action: Any) -> bool:
        return (
            isinstance(action, Integral)
            and not isinstance(action, bool)
            and 0 <= action < self.num_actions
            and bool((self._legal >> int(action)) & 1)
        )

    # --- reading a move ---------------------------------------------------------------------------------------------

    def to_action(self, move: Any) -> int:
        """The legal action of ``move`` (an action number, or a move string: the game's notation, else a digit
        string), or IllegalMoveError saying why it cannot be played and which moves can."""
        if type(move) is int and 0 <= move < self.num_actions and (self._legal >> move) & 1:
            return move  # fast path for the common case
        action = self._action_of(move)
        if (self._legal >> action) & 1:
            return action
        text = self.format_move(action)
        if self._status != 0:
            raise IllegalMoveError(f"cannot play {text}: the game is over ({self.end_reason})")
        legal = " ".join(map(self.format_move, actions_of(self._legal)))
        raise IllegalMoveError(
            f"illegal move {text} for {self._mover()}: {self._why_illegal(action)}; legal moves: {legal}"
        )

    def _action_of(self, move: Any) -> int:
        """The action ``move`` names, legal or not; IllegalMoveError naming what a move is for anything else."""
        last = self.num_actions - 1
        if isinstance(move, str) and self.parse_move is not None:
            return self.parse_move(move)
        action = digit_index(move, self.num_actions) if isinstance(move, str) else int(move) if is_int(move) else None
        if action is not None and 0 <= action <= last:
            return action
        if self.parse_move is None:
            beyond = "" if action is None else " (out of range)"
            raise IllegalMoveError(
                f"malformed move {move!r}: a move is {self.move_noun} 0-{last}, as an int or a digit string{beyond}"
            )
        if action is not None:
            raise IllegalMoveError(f"action {move!r} out of range: actions are integers 0-{last}")
        raise IllegalMoveError(
            f"a move is an action index 0-{last} or a string like {self.example_move!r}, got {move!r}"
        )

    def _mover(self) -> str:
        """The player to move, as messages name them."""
        return f"player {self._to_move}"

    def _why_illegal(self, action: int) -> str:
        """Why ``action`` (in range) cannot be played in this live position (the game's rules say)."""
        raise NotImplementedError

    @property
    def first_player_drawn(self) -> bool:
        """Whether this game's rules draw the first player at random (then ``initial``'s seed decides it)."""
        return False

    def at_position(self, board: np.ndarray, stores: tuple[int, int], to_move: int, ply: int) -> BoardState:
        """The State of the position ``board`` (in the game core's layout, as the searches and the vector env keep
        it), ``stores``, ``to_move`` and ``ply``, under this State's rules and ply limit (the history the rules may
        keep, such as Oware's repetition set, starts afresh)."""
        raise NotImplementedError

    def clone(self) -> BoardState:
        """States are immutable, so a clone is the State itself (kept for OpenSpiel-style code)."""
        return self

    def _key(self) -> tuple:
        """What makes two States equal (the game's State says what)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        fields = {**self._board_fields(), "stores": self.stores, "to_move": self._to_move, "ply": self._ply,
                  "max_plies": self.max_plies, **self._rule_fields()}  # fmt: skip
        return f"{self.game.name}.State({', '.join(f'{name}={value!r}' for name, value in fields.items())})"

    def _board_fields(self) -> dict[str, Any]:
        """The board as ``repr`` shows it (by the names ``from_position`` takes)."""
        return {}

    def _rule_fields(self) -> dict[str, Any]:
        """The rules as ``repr`` shows them (none by default)."""
        return {}

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _repr_png_(self) -> bytes:
        """The board as a PNG image (the game's ``render_rgb``), so a notebook shows the position."""
        from awale_env.drawing import png_bytes  # here: pictures (Pillow) are drawn on demand only

        return png_bytes(self.game.render_rgb(self))
