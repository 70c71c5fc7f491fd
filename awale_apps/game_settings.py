"""A game and its settings from the command line's words, shared by every ``awale`` command that takes ``--game``
(``awale bot`` among them, which parses its options before the rest of the ``awale`` command loads)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from awale_env.games import Game

#: The largest ``--max-plies`` (0 is no limit): far beyond any game, well inside what the compiled rules count.
MAX_PLIES_LIMIT = 1_000_000


def rule_values(rules: list[str] | None, game: str, flags: tuple[str, ...]) -> dict[str, Any]:
    """The rule flags of ``name=value`` words: ints, true/false, else text (the game checks names and values);
    ValueError for a word that is not ``name=value``, naming the flags of ``game``. Standard library only: ``awale
    bot`` reads its flags before numpy loads."""
    options: dict[str, Any] = {}
    for rule in rules or []:
        key, eq, text = rule.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--rule takes name=value, got {rule!r}; the rule flags of {game}: "
                             f"{', '.join(flags) or 'none'}")  # fmt: skip
        text = text.strip()
        lowered = text.lower()
        value: Any = text
        if text.lstrip("-").isdigit():
            value = int(text)
        elif lowered in ("true", "false"):
            value = lowered == "true"
        options[key.strip()] = value
    return options


def game_settings(name: str, rules: list[str] | None, max_plies: int | None) -> tuple[Game, dict[str, Any], int | None]:
    """The game, its rule flags parsed from ``name=value`` words (ints, true/false, else text) and the ply limit
    (None: the game's default, 0: none); ValueError naming what is allowed for a bad name, flag or value."""
    from awale_env.games import get_game

    game = get_game(name)
    options = rule_values(rules, game.name, game.rule_options)
    unknown = sorted(set(options) - set(game.rule_options))
    if unknown:
        raise ValueError(f"unknown rule flag(s) {', '.join(unknown)} for {game.name}; its flags: "
                         f"{', '.join(game.rule_options) or 'none'}")  # fmt: skip
    if max_plies is not None and not 0 <= max_plies <= MAX_PLIES_LIMIT:
        raise ValueError(f"--max-plies must be 0 (no limit) to {MAX_PLIES_LIMIT:,}, got {max_plies}")
    limit = game.default_max_plies if max_plies is None else (max_plies or None)
    game.initial(max_plies=limit, **options)
    return game, options, limit
