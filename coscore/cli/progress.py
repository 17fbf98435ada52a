"""The progress bar ``coscore score`` shows on stderr (tqdm), over bytes or rows."""
from __future__ import annotations

import sys
from typing import Any


class Progress:
    """A tqdm bar over bytes (text files), rows (Parquet) or rows without a total (stdin)."""

    def __init__(self, enabled: bool, reader: Any) -> None:
        self._bar: Any = None
        self._last = 0
        self._by_bytes = bool(getattr(reader, "total_bytes", None))
        if not enabled:
            return
        from tqdm import tqdm

        if self._by_bytes:
            self._bar = tqdm(total=reader.total_bytes, unit="B", unit_scale=True, desc="scoring", file=sys.stderr)
        else:
            total = getattr(reader, "total_rows", None)
            self._bar = tqdm(total=total, unit=" rows", unit_scale=True, desc="scoring", file=sys.stderr)
        self._rows = 0

    def advance(self, chunk: Any) -> None:
        """Move the bar past ``chunk`` (a :class:`coscore.io.Chunk` just written)."""
        if self._bar is None:
            return
        self._rows += len(chunk)
        if self._by_bytes and chunk.position is not None:
            self._bar.update(chunk.position - self._last)
            self._last = chunk.position
            self._bar.set_postfix_str(f"{self._rows:,} rows", refresh=False)
        else:
            self._bar.update(len(chunk))

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.close()


#: Formats read whole before the first row is scored (the bar starts after).
WHOLE = ("xlsx", "xls", "ods")


def announce_reading(flag: bool | None, first: str, fmt: str | None) -> None:
    """Say on stderr (where the bar would be shown) that a workbook is being read: it is
    read whole before scoring starts, which takes seconds for a large one."""
    enabled = sys.stderr.isatty() if flag is None else flag
    if not enabled:
        return
    from ..io import format_of

    try:
        kind = format_of(first, fmt)
    except ValueError:
        return
    if kind in WHOLE:
        print(f"reading {first} (a workbook is read whole before scoring starts)…", file=sys.stderr, flush=True)


def progress_bar(flag: bool | None, reader: Any) -> Progress:
    """The bar for ``--progress``/``--no-progress`` (``None``: shown when stderr is a terminal)."""
    enabled = sys.stderr.isatty() if flag is None else flag
    return Progress(enabled, reader)
