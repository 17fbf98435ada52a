"""How long a search may run and how much memory it may take: the budgets of ``tune`` and
``suggest``.

A :class:`SearchBudget` says how many seconds a search may run (``seconds``), how many
bytes of resident memory it may add to the process (``memory``: measured from where the
search started, so the answers read before it do not count) and, optionally, an event
that cancels it from another thread (``cancel``). :func:`coscore.tune.tune` and
:func:`coscore.suggest.suggest` take one (``budget=``; :data:`DEFAULT_SEARCH_BUDGET`
unless told otherwise); ``None`` for a field means no bound of that kind.

A search checks its budget between small steps of work (each candidate setting, each
batch of answers scored), so it stops within a fraction of a second of a bound; it then
raises :class:`SearchStopped`, which names the budget, its limit and the stage the
search was in, and carries the best result so far (:attr:`SearchStopped.best`, one line
of text, and :attr:`SearchStopped.partial`, JSON-ready data).

>>> budget = SearchBudget(seconds=30, memory=512 * 2**20)
>>> meter = budget.start()
>>> meter.check()   # within budget: nothing happens
"""
from __future__ import annotations

import argparse
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .errors import CoscoreError
from .limits import finite_number, parse_size, rss_bytes

__all__ = ["BATCH", "DEFAULT_SEARCH_BUDGET", "Meter", "SearchBudget", "SearchStopped", "add_arguments",
           "from_arguments"]


class _Sliceable(Protocol):
    def __len__(self) -> int: ...
    def __getitem__(self, index: slice, /) -> Any: ...


S = TypeVar("S", bound=_Sliceable)

#: The default wall time of a search, in seconds.
DEFAULT_SECONDS = 120.0
#: The default memory a search may add to the process, in bytes.
DEFAULT_MEMORY = 1 << 30
#: How often the resident memory is read, at most (seconds): reading it costs ~10 µs.
MEMORY_EVERY = 0.02
#: The answers a search scores between two checks of its budget (:meth:`Meter.batches`).
BATCH = 1024


@dataclass(frozen=True)
class SearchBudget:
    """The budgets of one search: ``seconds`` of wall time, ``memory`` bytes of resident
    memory added, and an event ``cancel`` that stops it when set (``None``: no bound)."""

    seconds: float | None = DEFAULT_SECONDS
    memory: int | None = DEFAULT_MEMORY
    cancel: threading.Event | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and (isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float))
                                         or not math.isfinite(self.seconds) or self.seconds <= 0):
            raise ValueError(f"SearchBudget.seconds must be a positive finite number or None, not {self.seconds!r}")
        if self.memory is not None and (type(self.memory) is not int or self.memory < 1):
            raise ValueError(f"SearchBudget.memory must be a positive int (bytes) or None, not {self.memory!r}")

    def start(self) -> Meter:
        """A :class:`Meter` of this budget, counting from now."""
        return Meter(self)


#: The budget a search gets unless told otherwise: 120 s and 1 GiB.
DEFAULT_SEARCH_BUDGET = SearchBudget()
#: No bound at all (for a search you trust, run where nothing else waits).
UNBOUNDED = SearchBudget(None, None)


class SearchStopped(CoscoreError):
    """A search went over its budget, or was cancelled.

    Attributes:
        budget: ``"time"``, ``"memory"`` or ``"cancelled"``.
        limit: the budget's value (seconds, bytes; ``None`` when cancelled).
        stage: what the search was doing (``"the search on all rows"``, ``"fold 2 of 5"``, …).
        best: the best result so far, one line of text (``""`` when there is none yet).
        partial: the best result so far as JSON-ready data (``{}`` when there is none).
        what: the search (``"tune"``, ``"suggest"``).
    """

    def __init__(self, budget: str, limit: float | int | None, stage: str = "", what: str = "the search",
                 best: str = "", partial: dict[str, Any] | None = None):
        self.budget = budget
        self.limit = limit
        self.stage = stage
        self.what = what
        self.best = best
        self.partial = partial or {}
        super().__init__(self._message())

    def _message(self) -> str:
        if self.budget == "time":
            head = f"{self.what} stopped at its time budget of {self.limit:g} s"
        elif self.budget == "memory":
            head = f"{self.what} stopped at its memory budget of {_size(int(self.limit or 0))}"
        else:
            head = f"{self.what} was cancelled"
        where = f" during {self.stage}" if self.stage else ""
        return f"{head}{where}: " + (f"best so far: {self.best}" if self.best else "nothing found yet")

    def with_result(self, what: str, stage: str, best: str, partial: dict[str, Any]) -> SearchStopped:
        """The same stop, saying which search, where and what it had found."""
        return SearchStopped(self.budget, self.limit, stage or self.stage, what, best, partial)


def _size(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} bytes"


class Meter:
    """A running :class:`SearchBudget`: :meth:`check` raises :class:`SearchStopped` once a
    bound is passed; :attr:`stage` is what the search says it is doing."""

    def __init__(self, budget: SearchBudget):
        self.budget = budget
        self.stage = ""
        self.started = time.monotonic()
        self.base = rss_bytes() if budget.memory is not None else 0
        self._next_memory = 0.0

    def elapsed(self) -> float:
        """Seconds since the search started."""
        return time.monotonic() - self.started

    def batches(self, items: S, size: int = BATCH) -> Iterator[S]:
        """``items`` in slices of ``size``, the budget checked before each."""
        for start in range(0, len(items), size):
            self.check()
            yield items[start:start + size]

    def check(self) -> None:
        """Raise :class:`SearchStopped` if the search is over a budget or cancelled."""
        budget = self.budget
        now = time.monotonic()
        if budget.cancel is not None and budget.cancel.is_set():
            raise SearchStopped("cancelled", None, self.stage)
        if budget.seconds is not None and now - self.started > budget.seconds:
            raise SearchStopped("time", budget.seconds, self.stage)
        if budget.memory is not None and now >= self._next_memory:
            self._next_memory = now + MEMORY_EVERY
            if rss_bytes() - self.base > budget.memory:
                raise SearchStopped("memory", budget.memory, self.stage)


# -- command-line flags -------------------------------------------------------------------


def _seconds(text: str) -> float:
    return finite_number(text, 0, "a positive number of seconds", above=True)


def _memory(text: str) -> int:
    value = parse_size(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive size in bytes, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--max-seconds S`` and ``--max-memory SIZE``, the budgets of a search."""
    group = parser.add_argument_group("budgets", "the search stops at either, printing the best result so far "
                                      "(see docs/budgets.md)")
    group.add_argument("--max-seconds", type=_seconds, default=DEFAULT_SECONDS, metavar="S",
                       help=f"wall time the search may take (default {DEFAULT_SECONDS:g})")
    group.add_argument("--max-memory", type=_memory, default=DEFAULT_MEMORY, metavar="SIZE",
                       help="memory the search may add, e.g. 512M or 2G (default 1G)")


def from_arguments(args: argparse.Namespace) -> SearchBudget:
    """The :class:`SearchBudget` the flags of :func:`add_arguments` ask for."""
    return SearchBudget(args.max_seconds, args.max_memory)
