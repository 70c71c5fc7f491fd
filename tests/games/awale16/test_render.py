"""Rendering: the ANSI board, the RGB image, human mode, and the notebook picture of a State."""

from __future__ import annotations

import re

import numpy as np
import pytest

import awale_env
from awale_env import State
from awale_env.games.awale16.render import render_ansi, render_rgb
from awale_env.gym_env import AwaleEnv, render_frame

ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")


def test_ansi_board_shows_both_rows_colours_stores_and_last_move():
    state = State.from_position([5] + [0] * 15, [0] * 13 + [3, 0, 0], stores=(12, 7), to_move=0, ply=9)
    text = render_ansi(state, last_action=27)  # 14B
    assert "\x1b[31m" in text and "\x1b[34m" in text  # red and blue
    plain = ANSI_CODE.sub("", text)
    lines = plain.splitlines()
    assert lines[0].split() == ["16", "15*", "14", "13*", "12", "11*", "10", "9*"]
    assert lines[3].split() == ["1*", "2", "3*", "4", "5*", "6", "7*", "8"]
    assert "[ 0 3 ]" in lines[1]  # hole 14, the last move's, bracketed: 0 red, 3 blue
    assert lines[2].split()[:2] == ["5", "0"]  # hole 1: 5 red, 0 blue
    assert "player 0 (odd*) 12" in plain and "player 1 (even) 7" in plain and "last move 14B" in plain


def test_board_image_draws_seeds_in_their_colours():
    empty = render_rgb(State.from_position([0] * 15 + [1], [8] + [0] * 15))
    image = render_rgb(State.initial())
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.shape == empty.shape

    def count(img, colour):
        return int(np.all(img == colour, axis=2).sum())

    red, blue = (215, 40, 40), (40, 90, 220)
    assert count(image, red) > 10 * count(empty, red) > 0  # 32 red seeds against 1
    assert count(empty, blue) > 0 and count(image, blue) > count(empty, blue)
    marked = render_rgb(State.initial(), last_action=0)
    assert count(marked, (250, 215, 40)) > 0 == count(image, (250, 215, 40))


def test_state_shows_itself_in_notebooks():
    png = State.initial()._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_render_modes_of_the_environments(capsys):
    env = AwaleEnv(render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape[2] == 3 and frame.dtype == np.uint8
    env = AwaleEnv(render_mode="ansi")
    env.reset(seed=0)
    env.step(0)
    assert "last move" in env.render()
    aec = awale_env.env(render_mode="human")
    aec.reset()
    capsys.readouterr()
    aec.step(0)
    assert aec.render() is None
    assert "last move 1R" in capsys.readouterr().out


def test_render_without_a_mode_warns():
    with pytest.warns(UserWarning, match="render_mode"):
        assert render_frame(None, State.initial()) is None
