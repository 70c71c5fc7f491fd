"""The course editions' rules (EDITIONS.md): the worked examples A-D exactly, conservation of seeds, the legality of
transparent moves, the 2025 edition's 400-move limit and ``end_at_both_40`` option, 2023's 40-40 draw, the
notation, the State's dict, and 2024 as 2021 with the colours renamed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from awale_env import State as State2021
from awale_env.errors import IllegalMoveError
from awale_env.games import get_game
from awale_env.games.editions import kernels
from awale_env.kernels.rng import make_rng
from awale_env.kernels.search import new_scratch

S2023 = get_game("awale16_2023").state_type
S2024 = get_game("awale16_2024").state_type
S2025 = get_game("awale16_2025").state_type
#: A hole that is not part of an example: seeds of both players everywhere, so that no one is starved.
FILLER = (1, 1, 1)


def position(state_type, holes, *, filler=FILLER, skip=(), **kwargs):
    """A position whose ``holes`` ({hole: (R, B, T)}) are as given, the holes in ``skip`` empty and every other hole
    ``filler``; player 0 to move unless ``kwargs`` say otherwise."""
    columns = [[0] * 16 for _ in range(3)]
    for hole in range(1, 17):
        counts = holes.get(hole, (0, 0, 0) if hole in skip else filler)
        for column, count in zip(columns, counts):
            column[hole - 1] = count
    return state_type.from_position(*columns, **kwargs)


def holes_of(state) -> dict[int, tuple[int, int, int]]:
    return {h: (state.red[h - 1], state.blue[h - 1], state.transparent[h - 1]) for h in range(1, 17)}


def assert_changed(before, after, expected):
    """``after`` is ``before`` with the holes of ``expected`` changed to those counts, and nothing else."""
    assert holes_of(after) == {**holes_of(before), **expected}


# --- the worked examples --------------------------------------------------------------------------------------------


def test_example_a_2025_3tb_from_the_start():
    start = S2025.initial()
    after = start.play("3TB")
    expected = {3: (2, 0, 0), 4: (2, 2, 3), 6: (2, 2, 3), 8: (2, 3, 2), 10: (2, 3, 2)}
    assert_changed(start, after, expected)
    assert after.last_capture == 0 and after.stores == (0, 0)
    assert start.to_action("3TB") == 11


def test_example_b_2025_9tb_with_a_capture():
    holes = {9: (3, 2, 1), 10: (0, 0, 0), 12: (0, 0, 0), 13: (0, 4, 5), 14: (1, 0, 0)}
    before = position(S2025, holes)
    after = before.play("9TB")
    assert_changed(before, after, {9: (3, 0, 0), 10: (0, 0, 1), 12: (0, 1, 0), 13: (0, 4, 5), 14: (0, 0, 0)})
    assert after.last_capture == 2 and after.stores == (2, 0) and not after.is_terminal


@pytest.mark.parametrize(
    ("state_type", "gained", "expected"),
    [
        (S2023, 4, {1: (1, 0, 0), 2: (0, 0, 0), 3: (0, 0, 0)}),  # T alone; 3 then 2 captured, 1 holds 1
        (S2025, 0, {1: (0, 0, 0), 2: (0, 1, 1), 3: (0, 0, 2), 4: (1, 0, 0)}),  # T first, then red to hole 4
    ],
)
def test_example_c_the_same_move_in_2023_and_2025(state_type, gained, expected):
    before = position(state_type, {1: (1, 0, 2), 2: (0, 1, 0), 3: (0, 0, 1)}, skip=(4,))
    after = before.play("1TR")
    assert_changed(before, after, expected)
    assert after.last_capture == gained and after.stores == (gained, 0)


def swapped(red, blue):
    return blue, red


def example_1_board():
    """AWALE16.md example 1: 1(2R) 16(2R) 15(2B) 14(2B2R) 13(2R2B), player 2 (index 1) to move."""
    red, blue = [0] * 16, [0] * 16
    for hole, r, b in ((1, 2, 0), (16, 2, 0), (15, 0, 2), (14, 2, 2), (13, 2, 2)):
        red[hole - 1], blue[hole - 1] = r, b
    return red, blue


def test_example_d_2024_is_2021_with_the_colours_renamed():
    red, blue = example_1_board()
    in_2021 = State2021.from_position(red, blue, to_move=1).play("14B")
    in_2024 = S2024.from_position(*swapped(red, blue), to_move=1).play("14R")
    assert in_2021.last_capture == in_2024.last_capture == 10
    assert (in_2024.red, in_2024.blue) == swapped(in_2021.red, in_2021.blue)
    assert in_2024.red[12] == in_2024.blue[12] == 2 and sum(in_2024.red) + sum(in_2024.blue) == 4  # 13(2R2B) only


def test_2024_plays_every_2021_position_with_the_colours_renamed():
    rng = np.random.default_rng(24)
    compared = 0
    while compared < 1000:
        counts = rng.multinomial(int(rng.integers(8, 65)), rng.dirichlet(np.ones(32)))
        red, blue = counts[0::2].tolist(), counts[1::2].tolist()
        to_move = int(rng.integers(2))
        try:
            old = State2021.from_position(red, blue, (0, 0), to_move)
        except ValueError:
            continue
        new = S2024.from_position(blue, red, (0, 0), to_move)
        assert sorted(a ^ 1 for a in old.legal_actions()) == new.legal_actions()
        for action in old.legal_actions():
            a, b = old.play(action), new.play(action ^ 1)
            assert (b.red, b.blue, b.stores, b.end_reason) == (a.blue, a.red, a.stores, a.end_reason)
            np.testing.assert_array_equal(a.observation_tensor(), b.observation_tensor())  # same meaning per entry
        compared += 1


# --- seeds, legality, notation --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "total"), [("awale16_2023", 80), ("awale16_2024", 64), ("awale16_2025", 96)])
def test_seeds_are_conserved_in_random_games(name, total):
    game = get_game(name)
    rng = np.random.default_rng(total)
    for _ in range(200):
        state = game.initial()
        assert state.seeds_on_board == total
        while not state.is_terminal:
            state = state.play(int(rng.choice(state.legal_actions())))
            assert state.seeds_on_board + sum(state.stores) == total
    search = game.search
    for seed in range(500):  # the compiled playouts too
        root = search.root(game.initial())
        board, stores = root.board.copy(), root.stores.copy()
        search.playout(root.env(None, None, None), board, stores, 0, 0, 0, None, make_rng(seed))
        assert int(board.sum()) + int(stores.sum()) == total


@pytest.mark.parametrize("state_type", [S2023, S2025])
def test_a_transparent_move_needs_transparent_seeds_not_the_chosen_colour(state_type):
    state = position(state_type, {1: (0, 0, 1), 3: (2, 2, 0)})
    assert state.legal_moves()[:2] == ["1TR", "1TB"]  # hole 1: no red, no blue, one transparent seed
    for move in ("1R", "1B"):
        with pytest.raises(IllegalMoveError, match="hole 1 holds no (red|blue) seed"):
            state.play(move)
    for move in ("3TR", "3TB"):
        with pytest.raises(IllegalMoveError, match="hole 3 holds no transparent seed"):
            state.play(move)
    after = state.play("1TB")  # the transparent seed alone, to hole 2, in both editions
    assert holes_of(after)[1] == (0, 0, 0) and holes_of(after)[2] == (1, 1, 2)


def test_2025_ntb_without_blue_sows_the_transparent_seeds_only():
    before = position(S2025, {5: (3, 0, 2)}, skip=(6, 8))
    after = before.play("5TB")
    assert_changed(before, after, {5: (3, 0, 0), 6: (0, 0, 1), 8: (0, 0, 1)})


def test_2025_coloured_seeds_continue_round_the_pattern_and_skip_the_origin():
    """Hole 2: 9 T then 10 blue seeds in blue's pattern (the 8 odd holes 3, 5, ..., 15, 1): the T seeds make one lap
    and reach hole 3 again, the blue ones continue from hole 5: a lap and holes 5 and 7 again."""
    before = position(S2025, {2: (0, 10, 9)}, filler=(2, 0, 0), to_move=1)
    after = before.play("2TB")
    for hole in range(1, 17, 2):
        t = 2 if hole == 3 else 1
        b = 2 if hole in (5, 7) else 1
        assert holes_of(after)[hole] == (2, b, t), hole
    assert holes_of(after)[2] == (0, 0, 0) and after.last_capture == 0


def test_notation_of_the_transparent_editions():
    game = get_game("awale16_2025")
    assert [game.format_move(a) for a in (0, 1, 2, 3, 11, 63)] == ["1R", "1B", "1TR", "1TB", "3TB", "16TB"]
    assert [game.parse_move(text) for text in ("12tb", "12TB", "3r", "16TR")] == [47, 47, 8, 62]
    for text in ("17R", "0R", "3T", "3RB", " 3R", "3 R", "12BT"):
        with pytest.raises(IllegalMoveError, match="malformed move"):
            game.parse_move(text)
    assert get_game("awale16_2024").format_move(27) == "14B"


@pytest.mark.parametrize("name", ["awale16_2023", "awale16_2024", "awale16_2025"])
def test_the_state_dict_holds_the_colours_stores_and_player(name):
    state = get_game(name).initial()
    state = state.play(state.legal_actions()[-1])
    data = state.to_dict()
    colours = ["red", "blue"] if name == "awale16_2024" else ["red", "blue", "transparent"]
    assert data["game"] == name and [key for key in ("red", "blue", "transparent") if key in data] == colours
    assert data["stores"] == list(state.stores) and data["to_move"] == 1
    assert all(len(data[c]) == 16 for c in colours) and data["red"][0] == state.red[0]
    assert type(state).from_dict(json.loads(json.dumps(data))) == state
    with pytest.raises(ValueError, match="not 'awale16'"):
        State2021.from_dict(data)


# --- how the games end ----------------------------------------------------------------------------------------------


def quiet_move_position(**kwargs):
    """Player 0's hole 1 holds one red seed, which goes to the empty hole 2: a move that captures nothing. 29 seeds
    on the board."""
    return position(S2025, {1: (1, 0, 0)}, skip=(2,), filler=(1, 1, 0), **kwargs)


def test_2025_stops_after_400_moves_and_more_seeds_wins():
    state = quiet_move_position(stores=(30, 28), ply=399)
    assert state.max_plies is None and state.move_limit == 400 and not state.is_terminal
    after = state.play("1R")
    assert after.ply == 400 and after.end_reason == "move_limit"
    assert after.winner == 0 and after.returns() == (1.0, -1.0) and after.legal_actions() == []
    assert quiet_move_position(ply=400).end_reason == "move_limit"
    assert quiet_move_position(ply=399, max_plies=1000).play("1R").end_reason == "move_limit"
    assert quiet_move_position(ply=399, max_plies=400).play("1R").end_reason == "move_limit"  # the rule first
    assert quiet_move_position(ply=299, max_plies=300).play("1R").end_reason == "ply_limit"


def test_alpha_beta_sees_the_nearer_of_the_move_limit_and_max_plies():
    """The move limit ends a game before any larger ``max_plies``: it is the horizon by which alpha-beta's table
    tells positions apart (the plies left), the status of a move being the same with either limit."""
    search = get_game("awale16_2025").search
    for max_plies, horizon in [(None, 400), (1000, 400), (400, 400), (300, 300)]:
        root = search.root(quiet_move_position(ply=10, max_plies=max_plies))
        assert root.max_plies == (max_plies or 0) and search.horizon(root) == horizon
    edition_2023 = get_game("awale16_2023")
    assert edition_2023.search.horizon(edition_2023.search.root(edition_2023.initial(max_plies=None))) == 0
    state = quiet_move_position(ply=399, stores=(30, 28))
    root = search.root(state)
    env = root.env(new_scratch(), np.zeros(8, dtype=np.int64), np.zeros(8, dtype=np.int64))
    board, stores = root.board.copy(), root.stores.copy()
    gained = search.move(env, board, stores, 0, state.to_action("1R"))
    codes = {search.status(env, board, stores, 1, 400, limit, gained, False) for limit in (0, 400, 1000)}
    assert len(codes) == 1 and codes != {0}  # the move limit, whichever max_plies: not ongoing


def test_2025_random_games_end_by_the_400th_move_without_a_ply_limit():
    rng = np.random.default_rng(400)
    game = get_game("awale16_2025")
    reasons = set()
    for _ in range(300):
        state = game.initial()
        while not state.is_terminal:
            state = state.play(int(rng.choice(state.legal_actions())))
        assert state.ply <= 400
        reasons.add(state.end_reason)
    assert reasons <= {"score", "few_seeds", "move_limit"}


def seeds_position(stores, on_board, end_at_both_40):
    """A position with ``stores`` and ``on_board`` seeds, both players holding some of them."""
    holes = {1: (on_board - 2, 0, 0), 2: (1, 1, 0)}
    return position(S2025, holes, filler=(0, 0, 0), stores=stores, end_at_both_40=end_at_both_40)


@pytest.mark.parametrize(
    ("stores", "on_board", "with_option", "without_option"),
    [
        ((45, 41), 10, "both_40", None),  # the students' server ends it
        ((45, 41), 9, "both_40", "few_seeds"),  # both_40 is checked before fewer than 10
        ((49, 41), 6, "score", "score"),  # the win is checked first
        ((40, 40), 16, "both_40", None),  # no 40-40 rule in 2025, but with the option both hold 40
        ((45, 39), 12, None, None),  # player 1 holds less than 40
    ],
)
def test_2025_end_at_both_40(stores, on_board, with_option, without_option):
    for option, reason in ((True, with_option), (False, without_option)):
        assert seeds_position(stores, on_board, option).end_reason == reason, (stores, option)
    if with_option == "both_40":
        state = seeds_position(stores, on_board, True)
        assert state.winner == (None if stores[0] == stores[1] else 0) and not state.legal_actions()


def test_2025_a_move_reaching_both_40_ends_the_game_with_the_option():
    """Player 0 (39) captures 2 with ``1R`` (hole 2: 1 blue + the red seed): 41-45 and 10 seeds left."""
    holes = {1: (1, 0, 0), 2: (0, 1, 0), 3: (6, 0, 0), 4: (1, 1, 0), 6: (1, 1, 0)}
    for option, reason in ((True, "both_40"), (False, None)):
        after = position(S2025, holes, filler=(0, 0, 0), stores=(39, 45), end_at_both_40=option).play("1R")
        assert after.stores == (41, 45) and after.seeds_on_board == 10 and after.end_reason == reason
    assert after.winner is None and not after.is_terminal


def test_end_at_both_40_is_a_rule_option_of_the_2025_edition_only():
    game = get_game("awale16_2025")
    assert game.rule_options == ("end_at_both_40",)
    assert not game.initial().end_at_both_40 and game.initial(end_at_both_40=True).end_at_both_40
    with pytest.raises(ValueError, match="end_at_both_40 must be True or False"):
        game.initial(end_at_both_40="yes")
    with pytest.raises(ValueError, match="unknown option"):
        get_game("awale16_2023").initial(end_at_both_40=True)
    state = game.initial(end_at_both_40=True).play("1R")
    assert state.to_dict()["end_at_both_40"] is True and S2025.from_dict(state.to_dict()) == state
    assert S2025.from_dict({**state.to_dict(), "end_at_both_40": False}) != state


def test_2023_40_40_is_a_draw():
    """40-40 means every seed is captured: here player 0 (30) captures hole 2, starves player 1 and sweeps the 8
    seeds left, 40-40; the draw rule is checked before the seeds on the board."""
    holes = {1: (1, 0, 0), 2: (0, 1, 0), 3: (8, 0, 0)}
    after = position(S2023, holes, filler=(0, 0, 0), stores=(30, 40)).play("1R")
    assert after.stores == (40, 40) and after.end_reason == "draw" and after.winner is None


def test_2023_and_2025_scores():
    assert position(S2023, {}, filler=(1, 1, 0), stores=(41, 0)).end_reason == "score"
    assert not position(S2025, {}, filler=(1, 1, 0), stores=(41, 0)).is_terminal
    assert position(S2025, {}, filler=(1, 1, 0), stores=(49, 0)).end_reason == "score"
    assert position(S2025, {1: (9, 0, 0)}, filler=(0, 0, 0)).end_reason == "few_seeds"
    for state_type in (S2023, S2025):  # fewer than 10 seeds on the board end both transparent editions, 10 do not
        few = position(state_type, {1: (8, 0, 0), 2: (0, 0, 1)}, filler=(0, 0, 0), stores=(30, 30))
        assert few.end_reason == "few_seeds" and few.stores == (30, 30) and few.winner is None
        assert not position(state_type, {1: (8, 0, 0), 2: (0, 1, 1)}, filler=(0, 0, 0)).is_terminal


# --- pictures -------------------------------------------------------------------------------------------------------


def test_pictures_show_the_three_colours():
    from awale_env.games.editions.render import RGB

    game = get_game("awale16_2025")
    state = game.initial().play("3TB")
    text = game.render_ansi(state, 11)
    assert "\x1b[31m" in text and "\x1b[34m" in text and "[" in text and "last move 3TB" in text
    # transparent seeds in the terminal's own text colour: bright white vanished on light backgrounds
    assert "\x1b[39m" in text and "\x1b[97m" not in text
    image = game.render_rgb(state, 11)
    assert image.ndim == 3 and image.dtype == np.uint8
    for colour in RGB.values():
        assert (image == colour).all(axis=2).any(), colour
    assert "2R2B3T" in str(state) and "ply 1 of 400" in str(state)


def test_the_kernels_rules_code_fields():
    code = kernels.rules_code(True, 2, 49, kernels.NO_PAIR, 400)
    assert kernels.move_limit(code) == 400 and kernels.total_seeds(code) == 96
    assert kernels.transparent_per_hole(kernels.rules_code(False, 1, 41, 40, 0)) == 1
