"""Write a file all or nothing: to a temporary file beside it, renamed on success; and
tell when an output would be one of the run's own input files."""
from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Any

from .errors import InputError


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str] | None, binary: bool = False) -> Iterator[IO]:
    """A stream to write ``path`` through; the file appears only if the block succeeds.

    ``None`` or ``-`` is standard output (written as it goes), and so are devices and
    pipes (``/dev/stdout``, a FIFO): written through in place, never replaced. Any other
    ``path`` is written to a temporary file in the folder of the file it names — for a
    symbolic link, the file the link leads to, so the link stays a link — and renamed
    onto that file at the end (atomic); on any exception the temporary file is removed
    and an existing file is left untouched. A file replaced keeps its permissions.
    """
    if path is None or os.fspath(path) == "-":
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    target = os.fspath(path)
    mode = "wb" if binary else "w"
    kwargs: dict[str, Any] = {} if binary else {"encoding": "utf-8", "newline": ""}
    if os.path.isdir(target):
        raise InputError(target, "is a directory, not a file")
    existing = _stat(target)
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        # a device or a pipe (/dev/stdout, a FIFO): written through, never replaced
        try:
            special = open(target, mode, **kwargs)  # noqa: SIM115 - closed by the with below; its OSError told apart
        except OSError as exc:
            raise InputError(target, f"cannot write: {exc.strerror or exc}") from None
        with special:
            yield special
        return
    final = os.path.realpath(target)  # through every link: the file that gets the data
    folder = os.path.dirname(final)
    if not os.path.isdir(folder):
        raise InputError(target, "the output folder does not exist")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(final)}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(target, f"cannot write here: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, mode, **kwargs) as stream:
            yield stream
        _set_mode(temp, existing)
        os.replace(temp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def clashing_input(output: str | os.PathLike[str] | None,
                   inputs: Iterable[str | os.PathLike[str]]) -> str | None:
    """The first of ``inputs`` that writing ``output`` would replace — the same file,
    whatever the links (symbolic or hard) and spellings (``./x``, ``x``) — or ``None``.

    Only regular files count (``/dev/null`` in and out is no clash); ``-`` among the
    inputs is standard input, a clash when it was redirected from ``output``.
    """
    if output is None or os.fspath(output) == "-":
        return None
    out = _stat(os.fspath(output))
    if out is None or not stat.S_ISREG(out.st_mode):
        return None
    for name in inputs:
        name = os.fspath(name)
        if name == "-":
            try:
                seen: os.stat_result | None = os.fstat(sys.stdin.fileno())
            except (OSError, ValueError, AttributeError):  # no stdin, or a stand-in without a descriptor
                seen = None
        else:
            seen = _stat(name)
        if seen is not None and stat.S_ISREG(seen.st_mode) and (seen.st_dev, seen.st_ino) == (out.st_dev, out.st_ino):
            return "<stdin>" if name == "-" else name
    return None


def _stat(path: str) -> os.stat_result | None:
    """``os.stat`` through links, or ``None`` when there is nothing there (yet)."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _set_mode(path: str, replaced: os.stat_result | None) -> None:
    """Give the new file the permissions of the file it replaces, or those a plain
    ``open()`` would (mkstemp makes it 0600)."""
    if replaced is not None:
        mode = stat.S_IMODE(replaced.st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    with contextlib.suppress(OSError):
        os.chmod(path, mode)
