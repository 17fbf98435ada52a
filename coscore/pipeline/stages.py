"""Reading ahead and writing behind, each in one thread, so that parsing a file and
reading its texts, and encoding and writing the results (Arrow's readers and writers and
coscore's text reader release the GIL), overlap with scoring.

:func:`read_ahead` yields the items of an iterator that a thread produces at most
``depth`` items ahead; :class:`WriteBehind` hands each chunk to a thread that writes
it, at most ``depth`` chunks behind. Order is kept, an exception is raised in the
caller's thread where it would have been raised without the thread, and both stop
their thread before returning, so memory stays bounded by ``depth`` chunks.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

#: Items a thread works ahead (reading) or behind (writing) of the caller.
DEPTH = 2
_END = object()


def _put(box: queue.Queue[Any], item: Any, stop: threading.Event) -> bool:
    """Put ``item`` unless ``stop`` is set first; whether it was put."""
    while not stop.is_set():
        try:
            box.put(item, timeout=0.05)
            return True
        except queue.Full:
            continue
    return False


def read_ahead(items: Iterable[T], depth: int = DEPTH) -> Iterator[T]:
    """The items of ``items``, produced by a thread at most ``depth`` ahead."""
    box: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()
    source = iter(items)

    def produce() -> None:
        try:
            for item in source:
                if not _put(box, (True, item), stop):
                    break
            else:
                _put(box, (True, _END), stop)
        except BaseException as exc:  # raised in the caller's thread, in order
            _put(box, (False, exc), stop)
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name="coscore-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            ok, item = box.get()
            if not ok:
                raise item
            if item is _END:
                return
            yield item
    finally:
        stop.set()
        thread.join()


class WriteBehind:
    """A writer whose ``write`` hands the chunk to a thread running ``writer.write``.

    An error of the thread is raised by the next ``write`` or by ``close``, which
    waits for every chunk to be written; ``abort`` stops the thread, dropping what is
    queued. Neither closes ``writer``: its owner does."""

    def __init__(self, writer: Any, depth: int = DEPTH) -> None:
        self._writer = writer
        self._box: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._dropping = False
        self._thread = threading.Thread(target=self._run, name="coscore-write-behind", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            chunk = self._box.get()
            if chunk is _END:
                return
            if self._error is None and not self._dropping:
                try:
                    self._writer.write(chunk)
                except BaseException as exc:
                    self._error = exc

    def _raise(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def write(self, chunk: Any) -> None:
        """Queue ``chunk`` for writing (raising an earlier chunk's error, if any)."""
        self._raise()
        self._box.put(chunk)

    def _finish(self) -> None:
        if self._thread.is_alive():
            self._box.put(_END)
            self._thread.join()

    def close(self) -> None:
        """Write the queued chunks, then raise any error."""
        self._finish()
        self._raise()

    def abort(self) -> None:
        """Stop the thread, dropping what is queued (the output is being discarded)."""
        self._dropping = True
        self._finish()
