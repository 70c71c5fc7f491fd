"""The games' plain-Python rules (``plain.py`` in a game package: ``awale bot``'s fallback player) against their
compiled rules: random games of every game that has such a file, under every value of its rule flags and with and
without a ply limit, give the same board, stores, player to move, legal moves, move notation and ending at every
ply. Loading them imports neither numpy nor numba."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import pytest

from awale_apps.bot_fallback import plain_rules, shallow_search
from awale_env.games import GAMES

PLAIN = [name for name in GAMES if plain_rules(name) is not None]
#: Random games per game and setting.
GAMES_EACH = 40


def settings(name: str) -> list[dict]:
    """Every combination of the rule flags' values (a flag's default and, for a bool, its other value)."""
    flags = plain_rules(name).flags
    values = [[value, not value] if isinstance(value, bool) else [value] for value in flags.values()]
    return [dict(zip(flags, combination)) for combination in itertools.product(*values)]


def test_the_course_editions_have_plain_rules():
    assert {"awale16", "awale16_2023", "awale16_2024", "awale16_2025"} <= set(PLAIN)


@pytest.mark.parametrize("name", PLAIN)
def test_plain_rules_play_every_game_as_the_compiled_rules(name):
    game, rules_type = GAMES[name], plain_rules(name)
    assert rules_type.name == name and set(rules_type.flags) == set(game.rule_options)
    rng = random.Random(name)
    for flags, max_plies in itertools.product(settings(name), (None, 30)):
        rules = rules_type(max_plies, **flags)
        for _ in range(GAMES_EACH):
            compiled, plain = game.initial(max_plies=max_plies, **flags), rules.initial()
            while True:
                colours = rules.colours
                board = tuple(tuple(plain.board[c::colours]) for c in range(colours))
                assert board == (compiled.red, compiled.blue, *([compiled.transparent] if colours == 3 else []))
                assert plain.stores == tuple(compiled.stores) and plain.to_move == compiled.to_move
                assert (plain.ply, plain.is_terminal, plain.end_reason) == (
                    compiled.ply, compiled.is_terminal, compiled.end_reason)  # fmt: skip
                assert plain.legal_actions() == sorted(compiled.legal_actions())
                if plain.is_terminal:
                    break
                action = rng.choice(plain.legal_actions())
                text = rules.format_move(action)
                assert text == game.format_move(action) and rules.parse_move(text.lower()) == action
                compiled, plain = compiled.play(action), plain.play(plain.to_action(text))


@pytest.mark.parametrize("name", PLAIN)
def test_plain_rules_refuse_what_the_compiled_rules_refuse(name):
    game, rules = GAMES[name], plain_rules(name)()
    state = rules.initial()
    for text in ("", "0R", "17R", "3X", "3 R", "3R ", "1R1R"):
        with pytest.raises(ValueError, match="malformed move"):
            state.to_action(text)
    opponents = next(a for a in range(rules.num_actions) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="illegal move"):
        state.to_action(rules.format_move(opponents))
    with pytest.raises(ValueError, match="unknown rule flag"):
        type(rules)(no_such_flag=True)
    assert not game.initial().is_legal(opponents)


def test_the_shallow_search_plays_legal_moves_and_at_least_the_best_capture_now():
    """With no time (one ply), it takes the largest capture there is; against random moves, legal moves only."""
    rules = plain_rules("awale16_2025")()
    state, rng, captures = rules.initial(), random.Random(1), 0
    while not state.is_terminal:
        if state.to_move == 0:
            action = shallow_search(state, 0)
            best = max(after.stores[0] for after in map(state.play, state.legal_actions()))
            captures += best > state.stores[0]
            assert action in state.legal_actions() and state.play(action).stores[0] == best
        else:
            action = rng.choice(state.legal_actions())
        state = state.play(action)
    assert captures > 3


def test_loading_the_plain_rules_imports_neither_numpy_nor_numba():
    code = ("import sys; from awale_apps.bot_fallback import plain_rules, shallow_search; "
            "[plain_rules(name)().initial().play(0) for name in sys.argv[1:]]; "
            "print(sorted({'numpy', 'numba', 'torch', 'awale_env'} & set(sys.modules)))")  # fmt: skip
    run = subprocess.run([sys.executable, "-c", code, *PLAIN], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_the_shallow_search_follows_the_mover_through_extra_turns(toy_turns):
    """On the toy game with another turn (the fallback of a game without plain rules searches its compiled State),
    searched to the end (no time limit, 12 plies), it wins the endgames that can be won, extra turns included."""
    from toy_turns_search import endgames, extra_turns, outcome

    positions = endgames(10)
    assert sum(extra_turns(state, 4) > 0 for state in positions) >= 5
    for state in positions:
        assert outcome(state, shallow_search(state, float("inf"), max_depth=12)) == 1, state
