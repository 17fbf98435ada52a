"""Write a file all or nothing: to a temporary file beside it, renamed on success."""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from typing import IO

from .errors import InputError


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str] | None, binary: bool = False) -> Iterator[IO]:
    """A stream to write ``path`` through; the file appears only if the block succeeds.

    ``None`` or ``-`` is standard output (written as it goes); a symbolic link, a device
    or a pipe (``/dev/stdout``, a FIFO) is written through in place, never replaced. The temporary file is
    made in the target's folder, so the final rename is atomic; on any exception it
    is removed and an existing ``path`` is left untouched.
    """
    if path is None or os.fspath(path) == "-":
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    target = os.fspath(path)
    mode = "wb" if binary else "w"
    kwargs = {} if binary else {"encoding": "utf-8", "newline": ""}
    if os.path.isdir(target):
        raise InputError(target, "is a directory, not a file")
    if os.path.islink(target) or (os.path.exists(target) and not os.path.isfile(target)):
        # a link, a device or a pipe (/dev/stdout, a FIFO): written through, never replaced
        try:
            special = open(target, mode, **kwargs)
        except OSError as exc:
            raise InputError(target, f"cannot write: {exc.strerror or exc}") from None
        with special:
            yield special
        return
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise InputError(target, "the output folder does not exist")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(target, f"cannot write here: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, mode, **kwargs) as stream:
            yield stream
        _set_default_mode(temp)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _set_default_mode(path: str) -> None:
    """Give the file the permissions a plain ``open()`` would (mkstemp makes it 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o666 & ~umask)
