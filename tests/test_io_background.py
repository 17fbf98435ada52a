"""Reading ahead and writing behind in threads: order kept, errors raised in the
caller's thread where they belong, threads stopped when the caller stops."""
from __future__ import annotations

import threading

import pytest

from coscore.pipeline.stages import WriteBehind, read_ahead


def _threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("coscore-")}


def test_read_ahead_keeps_order_and_raises_in_place():
    assert list(read_ahead(iter(range(100)), depth=3)) == list(range(100))

    def failing():
        yield 1
        yield 2
        raise ValueError("bad row 3")

    got = []
    with pytest.raises(ValueError, match="bad row 3"):
        for item in read_ahead(failing()):
            got.append(item)
    assert got == [1, 2]
    assert not _threads()


def test_read_ahead_stops_its_thread_when_the_caller_stops():
    closed = []

    def endless():
        try:
            n = 0
            while True:
                yield n
                n += 1
        finally:
            closed.append(True)

    items = read_ahead(endless(), depth=2)
    assert [next(items) for _ in range(5)] == [0, 1, 2, 3, 4]
    items.close()
    assert closed == [True] and not _threads()


class _Writer:
    def __init__(self, fail_at=None):
        self.written, self.closed, self.fail_at = [], False, fail_at

    def write(self, chunk):
        if chunk == self.fail_at:
            raise OSError(f"disk full at {chunk}")
        self.written.append(chunk)

    def close(self):
        self.closed = True


def test_write_behind_writes_in_order_and_leaves_the_writer_to_its_owner():
    writer = _Writer()
    behind = WriteBehind(writer)
    for i in range(50):
        behind.write(i)
    behind.close()
    assert writer.written == list(range(50)) and not writer.closed and not _threads()


def test_write_behind_raises_a_write_error_and_stops():
    writer = _Writer(fail_at=3)
    behind = WriteBehind(writer, depth=1)
    with pytest.raises(OSError, match="disk full at 3"):
        for i in range(100):
            behind.write(i)
        behind.close()
    behind.abort()
    assert writer.written == [0, 1, 2] and not writer.closed and not _threads()
