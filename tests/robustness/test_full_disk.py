"""A full disk while awale_env writes a file (issue 17: nothing is lost). The only file awale_env writes is a game
record (``GameRecord.save``); a failed write must raise its OSError, leave no partial file and keep an earlier
record at the same path whole.

The disk fills for real, without a disk to fill: RLIMIT_FSIZE caps the size a file of this process may reach, so
the kernel refuses the write past it (EFBIG, SIGXFSZ ignored) exactly where a full disk refuses it (ENOSPC), part of
the text already written.
"""

from __future__ import annotations

import errno
import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from awale_env.record import GameRecord

resource = pytest.importorskip("resource")  # POSIX only


@contextmanager
def file_size_limit(size: int) -> Iterator[None]:
    """While inside, no file of this process grows beyond ``size`` bytes: a write past it fails with OSError."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


def record_of(game, plies: int) -> GameRecord:
    """The first ``plies`` moves of the game, the first legal move each time."""
    moves, state = [], game.initial(seed=0)
    while len(moves) < plies and not state.is_terminal:
        moves.append(state.legal_actions()[0])
        state = state.play(moves[-1])
    return GameRecord(moves, game.default_max_plies, game=game.name)


@pytest.mark.parametrize("name", ["game.txt", "game.json"])
def test_a_full_disk_loses_no_record(registry_game, tmp_path, name):
    path = tmp_path / name
    earlier, later = record_of(registry_game, 2), record_of(registry_game, 40)
    earlier.save(path)
    saved = path.read_bytes()
    with file_size_limit(16), pytest.raises(OSError) as failure:
        later.save(path)
    assert failure.value.errno in (errno.EFBIG, errno.ENOSPC)
    assert failure.value.filename == str(path)  # the one line of a command names the file (issue 29)
    assert path.read_bytes() == saved and GameRecord.load(path) == earlier, "the earlier record was damaged"
    assert list(tmp_path.iterdir()) == [path], "a partial file was left behind"
    with file_size_limit(16), pytest.raises(OSError):
        later.save(tmp_path / f"new-{name}")
    assert list(tmp_path.iterdir()) == [path]
    later.save(path)  # the disk has room again
    assert GameRecord.load(path) == later


def test_a_record_saved_where_no_file_can_be_leaves_nothing(registry_game, tmp_path):
    (tmp_path / "taken").mkdir()
    record = record_of(registry_game, 3)
    for path in (tmp_path / "taken", tmp_path / "missing" / "game.txt"):
        with pytest.raises(OSError):
            record.save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"] and not any((tmp_path / "taken").iterdir())


def test_a_store_that_cannot_be_made_leaves_no_half_made_file(tmp_path):
    """The disk fills while a results store is created: one StoreError naming the file, nothing left behind (not a
    file that would later be refused as another program's database), and the same path works once there is room."""
    from competition.store import StoreError, open_store

    path = tmp_path / "class.db"
    with file_size_limit(6000), pytest.raises(StoreError, match="class.db: cannot create the results store"):
        open_store(path, write=True)
    assert list(tmp_path.iterdir()) == []
    with open_store(path, write=True) as store:
        assert store.events() == []
