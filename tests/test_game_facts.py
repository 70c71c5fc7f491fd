"""The games' facts for help pages (:mod:`awale_env.games.facts`): the registry's, kept in a file that follows the
games' sources, and nothing but well-formed data read back from it."""

from __future__ import annotations

import json
import os

import pytest

from awale_env.games import DEFAULT_GAME, GAMES, facts


@pytest.fixture
def kept_in(tmp_path, monkeypatch):
    """The facts kept in ``tmp_path`` instead of beside the games, read again from there."""
    place = tmp_path / "cache" / facts.FILE_NAME
    monkeypatch.setattr(facts, "places", lambda: [place])
    facts.packaged_games.cache_clear()
    yield place
    facts.packaged_games.cache_clear()


def test_the_facts_are_the_registrys():
    listing = facts.game_list()
    assert listing.default == DEFAULT_GAME
    assert listing.games == tuple(facts.facts_of(game) for game in GAMES.values())
    assert listing.names == tuple(GAMES)


def test_the_kept_file_is_read_until_a_source_changes_then_made_again(kept_in, monkeypatch):
    digest = facts.fingerprint()
    other = facts.GameList("other", (facts.GameFacts("other", ("flag",), 7),))
    facts.write(other, digest)
    assert json.loads(kept_in.read_text())["sources"] == digest
    assert facts.packaged_games() == other  # the file, not the registry
    facts.packaged_games.cache_clear()
    monkeypatch.setattr(facts, "fingerprint", lambda: "changed")
    assert facts.packaged_games() == facts.from_registry()
    assert json.loads(kept_in.read_text())["sources"] == "changed"


def test_the_fingerprint_follows_the_source_files_only(tmp_path):
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "__pycache__").mkdir()
    source = tmp_path / "game" / "state.py"
    source.write_text("A = 1\n")
    before = facts.fingerprint(tmp_path)
    (tmp_path / "game" / "__pycache__" / "state.nbi").write_bytes(b"compiled")
    (tmp_path / "game" / "endgame.npz").write_bytes(b"data")
    assert facts.fingerprint(tmp_path) == before
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 1))
    touched = facts.fingerprint(tmp_path)
    assert touched != before
    (tmp_path / "game" / "rules.py").write_text("")
    assert facts.fingerprint(tmp_path) != touched


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b"[]",
        b'{"format": 2, "sources": "D", "default": "a", "games": [["a", [], 1]]}',
        b'{"format": 1, "sources": "other", "default": "a", "games": [["a", [], 1]]}',
        b'{"format": 1, "sources": "D", "default": "b", "games": [["a", [], 1]]}',
        b'{"format": 1, "sources": "D", "default": "a", "games": [["a", [1], 1]]}',
        b'{"format": 1, "sources": "D", "default": "a", "games": [["a", [], true]]}',
        b'{"format": 1, "sources": "D", "default": "a", "games": [["a", []]]}',
        b'{"format": 1, "sources": "D", "default": "a", "games": {"a": 1}}',
        b'{"format": 1, "sources": "D", "default": "a", "games": [["a", [], 1]], "pad": "'
        + b"x" * facts.MAX_BYTES
        + b'"}',
    ],
    ids=["not-json", "a-list", "format", "sources", "default", "option", "plies", "short-row", "rows", "too-large"],
)
def test_anything_but_the_facts_of_these_sources_in_the_file_is_no_file(tmp_path, content):
    path = tmp_path / facts.FILE_NAME
    path.write_bytes(content)
    assert facts.read(path, "D") is None
    path.write_bytes(b'{"format": 1, "sources": "D", "default": "a", "games": [["a", ["f"], null]]}')
    assert facts.read(path, "D") == facts.GameList("a", (facts.GameFacts("a", ("f",), None),))


def test_no_writable_place_leaves_the_facts_to_the_registry(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setattr(facts, "places", lambda: [blocked / "under a file" / facts.FILE_NAME])
    facts.packaged_games.cache_clear()
    try:
        assert facts.packaged_games() == facts.from_registry()
    finally:
        facts.packaged_games.cache_clear()


def test_a_failed_write_leaves_no_file_behind(kept_in, monkeypatch):
    def full_disk(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(facts.os, "replace", full_disk)
    facts.write(facts.from_registry(), facts.fingerprint())
    assert list(kept_in.parent.iterdir()) == []
