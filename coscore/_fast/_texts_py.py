"""Reading a kernel's inputs in the pure-Python twins (the counterpart of ``_texts.pxd``).

The compiled kernels accept the same inputs and raise the same errors: a text is a
``str`` (subclasses included), a batch is any iterable of them but a ``str`` itself.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def text(s: Any) -> str:
    """``s`` as an exact ``str`` (a subclass is copied, so its own methods play no part).

    Raises TypeError when ``s`` is not a ``str``."""
    if type(s) is str:
        return s
    if not isinstance(s, str):
        raise TypeError(f"expected str, got {type(s).__name__}")
    return str.__getitem__(s, slice(None))   # an exact copy


def as_seq(strings: Any) -> Sequence[Any]:
    """A list or tuple of the items (the object itself when it is one), as
    ``PySequence_Fast`` gives it; the items are not checked."""
    if isinstance(strings, str):
        raise TypeError("expected a sequence of str, got a str")
    if isinstance(strings, (list, tuple)):
        return strings
    try:
        items = iter(strings)
    except TypeError:
        raise TypeError("expected a sequence of str") from None
    return list(items)


def texts(seq: Sequence[Any]) -> list[str]:
    """:func:`text` of every item."""
    return [text(s) for s in seq]

