"""How many keys a block of JSON Lines may hold before Arrow's reader is given it.

Arrow's JSON reader fills a key it meets late with nulls for every row before it, so a
block of ``n`` rows and ``k`` distinct keys costs ``n × k``: 10,000 rows each with a key of
its own (300 KB) took 8.6 s and 1.2 GB. :func:`few_keys` counts the distinct keys of a
block before it is parsed (:func:`coscore._fast.few_keys`: one pass in C; every colon
outside a string ends a key, which is the string before it). A block with more than
:data:`MAX_FAST_KEYS` keys (or a key longer than :data:`KEY_BYTES`, or a line whose quotes
do not pair) is read line by line, where the columns are bounded by
:data:`~.column_limit.MAX_COLUMNS`.
"""
from __future__ import annotations

#: The most distinct keys a block given to Arrow may hold.
MAX_FAST_KEYS = 256
#: The longest key (in bytes, as written) counted here; a block with a longer one goes line by line.
KEY_BYTES = 64


def few_keys(data: bytes) -> bool:
    """Whether the block ``data`` holds at most :data:`MAX_FAST_KEYS` distinct keys (as
    written), none longer than :data:`KEY_BYTES`, every line's quotes paired."""
    from .._fast import few_keys as counted

    return bool(counted(data, MAX_FAST_KEYS, KEY_BYTES))
