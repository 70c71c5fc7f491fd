"""A program's answer lines as the referee reads them (competition/answer_lines.py): lines written together
are handed over together, long lines and unread lines are capped, the end of the output comes last."""

from __future__ import annotations

import os
import queue
import threading

import pytest

from competition.answer_lines import MAX_LINE_BYTES, MAX_UNREAD_LINES, AnswerLines, LineSplitter, LongLine


def reader() -> tuple[AnswerLines, int]:
    """Answer lines read from a new pipe, and the pipe's write end."""
    read_end, write_end = os.pipe()
    return AnswerLines(os.fdopen(read_end, "rb")), write_end


def all_lines(lines: AnswerLines) -> list:
    """Every line up to the end of the output (None)."""
    found = []
    while (line := lines.next(10)[0]) is not None:
        found.append(line)
    return found


def test_a_second_line_written_with_an_answer_is_there_as_soon_as_the_answer_is():
    """The chatty player of test_bot_referee: ``1R`` twice in one write. Once the first is handed over, the second
    must be waiting (a referee asking for it without waiting finds it), on every one of many tries."""
    for _ in range(200):
        lines, write_end = reader()
        os.write(write_end, b"1R\n1R\n")
        assert lines.next(10)[0] == "1R\n"
        assert lines.next(0)[0] == "1R\n"
        os.close(write_end)
        assert lines.next(10)[0] is None
        lines.thread.join(timeout=10)


def test_no_line_yet_is_queue_empty_and_the_times_say_when_lines_arrived():
    lines, write_end = reader()
    with pytest.raises(queue.Empty):
        lines.next(0)
    with pytest.raises(queue.Empty):
        lines.next(0.05)
    threading.Timer(0.2, os.write, (write_end, b"3L\n")).start()
    line, arrived = lines.next(10)
    assert line == "3L\n" and arrived > 0
    os.close(write_end)
    assert lines.next(10)[0] is None


def test_a_long_line_is_its_start_and_length_and_the_next_line_is_whole():
    """A line over MAX_LINE_BYTES, written in pieces: the referee keeps its first bytes and counts the rest."""
    lines, write_end = reader()
    writer = threading.Thread(target=lambda: [os.write(write_end, piece) for piece in
                                              (b"x" * 70_000, b"y" * 70_000 + b"\n2R", b"\n", b"\xff\n")])  # fmt: skip
    writer.start()
    writer.join()
    os.close(write_end)
    assert all_lines(lines) == [LongLine(b"x" * 60, 140_001), "2R\n", "\ufffd\n"]


def test_a_line_of_exactly_the_limit_is_kept_and_one_byte_more_is_long():
    splitter = LineSplitter()
    assert splitter.feed(b"a" * MAX_LINE_BYTES + b"\n", 16) == ["a" * MAX_LINE_BYTES + "\n"]
    assert splitter.feed(b"a" * (MAX_LINE_BYTES + 1) + b"\n", 16) == [LongLine(b"a" * 60, MAX_LINE_BYTES + 2)]


def test_a_last_line_without_newline_is_a_line_and_an_empty_output_has_none():
    splitter = LineSplitter()
    assert splitter.feed(b"1R\n4", 16) == ["1R\n"]
    assert splitter.feed(b"L", 16) == []
    assert splitter.end() == ["4L"]
    assert LineSplitter().end() == []


def test_lines_beyond_the_limit_of_one_read_are_dropped_and_the_line_under_way_is_not():
    splitter = LineSplitter()
    assert splitter.feed(b"ab\n1\n2\n3\nc", 2) == ["ab\n", "1\n"]
    assert splitter.feed(b"d\n", 2) == ["cd\n"]
    assert splitter.feed(b"e\nf\ng", 0) == []
    assert splitter.end() == ["g"]


def test_a_flood_of_lines_keeps_at_most_the_cap_unread_and_the_end_still_comes():
    """Four megabytes of short lines while nobody reads: the first MAX_UNREAD_LINES stay, the rest are dropped, the
    writer never blocks on a full pipe, and the end of the output is still handed over."""
    lines, write_end = reader()
    flood = b"".join(b"%dR\n" % n for n in range(1_000_000))
    with os.fdopen(write_end, "wb") as pipe:
        pipe.write(flood)
    lines.thread.join(timeout=30)
    assert not lines.thread.is_alive()
    assert all_lines(lines) == [f"{n}R\n" for n in range(MAX_UNREAD_LINES)]
