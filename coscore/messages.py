"""How coscore quotes what it was given: every message that quotes user input is
:func:`shorten`-ed to at most :data:`MESSAGE_LIMIT` characters.

It sits below every other module (the rule model, the engine, io and the fronts all
quote input), and knows nothing of rules or files.
"""
from __future__ import annotations

#: The longest message (in characters) that coscore puts in an answer or a diagnostic.
MESSAGE_LIMIT = 1000


def shorten(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters: its start, an ellipsis and its length.

    ``shorten("x" * 5000, 40)`` is 20 ``x`` then ``"… (5,000 characters)"``. Text that
    fits is returned unchanged.
    """
    if len(text) <= limit:
        return text
    tail = f"… ({len(text):,} characters)"
    if len(tail) >= limit:
        return text[:limit]
    return text[: limit - len(tail)] + tail
