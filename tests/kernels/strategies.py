"""Hypothesis strategies and helpers shared by the kernel tests."""
from __future__ import annotations

import os
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from support import examples

SPECIAL = (
    "\x00\ud800\udbff\udc00\udfff\U0001F600\U00010400\U00010428\U0010FFFF"  # NUL, lone surrogates, astral
    " \t\n\x1c\x1f\x85\xa0\u2006\u3000"                                    # whitespace
    "İiIı\u0307Σσς"                                                        # İ, dotless i, sigma
    "KkK\u212a"                                                            # Kelvin sign
    "绕落回一二前进车道停止变换"                                            # CJK
    "!~|,"                                                                 # SM syntax characters
)
small_alphabet = st.sampled_from("abcAB" + SPECIAL)
any_char = st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)   # lone surrogates too
chars = st.one_of(small_alphabet, small_alphabet, small_alphabet, any_char)

texts = st.text(chars, max_size=60)
long_keys = st.text(small_alphabet, min_size=60, max_size=200)  # multi-word keys
keys_st = st.lists(st.one_of(texts, st.text(small_alphabet, max_size=20), long_keys), max_size=8)
any_text = st.text(st.one_of(small_alphabet, any_char), max_size=6)

# COSCORE_KERNEL_EXAMPLES scales the examples per property (the debug build's run, slower
# under sanitizers, uses a fraction of them), and so does the run's profile (a third in CI)
_SCALE = float(os.environ.get("COSCORE_KERNEL_EXAMPLES", "1"))
SETTINGS = settings(max_examples=examples(int(300 * _SCALE)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SETTINGS_MANY = settings(max_examples=examples(int(100 * _SCALE)), deadline=None,
                         suppress_health_check=[HealthCheck.too_slow])

# --- SM -------------------------------------------------------------------------------
sm_option = st.one_of(
    st.text(small_alphabet, max_size=3),
    st.builds(lambda p, t: p + t, st.sampled_from(["!", "~"]), st.text(small_alphabet, max_size=3)),
)
sm_groups_st = st.lists(st.lists(sm_option, max_size=5), max_size=6)
sm_text_chars = st.one_of(st.sampled_from("abcxyz前进车道停止!~" + "\ud800\U0001F600\xe9\u0100"), any_char)
sm_long_option = st.text(st.sampled_from("abcé前进车道\U0001F600\ud800"), min_size=1, max_size=24)
sm_wide_groups = st.lists(
    st.lists(st.one_of(sm_long_option, sm_option, st.builds(lambda t: "~" + t, sm_long_option)), min_size=1, max_size=5),
    max_size=8,
)


class Sub(str):
    """A str subclass: kernels read its characters, never its methods."""


def as_key(answer: Any) -> tuple:
    """An answer's blanks as a tuple (a str is one blank)."""
    return (answer,) if isinstance(answer, str) else tuple(answer)


# --- comparing the two implementations -------------------------------------------------
def exact(value: Any) -> Any:
    """``value`` in a form that compares equal only when bit for bit the same (floats by
    their bits, arrays by dtype, shape and bytes, containers by type and items)."""
    if isinstance(value, float):
        return ("float", struct.pack("<d", value))
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [exact(v) for v in value])
    if value is None or isinstance(value, (bool, int, str)):
        return (type(value).__name__, value)
    raise AssertionError(f"unexpected result type {type(value).__name__}")


def outcome(call: Callable[..., Any], *args: Any) -> Any:
    """:func:`exact` of ``call(*args)``, or the type of the exception it raised."""
    try:
        return exact(call(*args))
    except Exception as exc:  # noqa: BLE001 - the error is the outcome
        return ("raised", type(exc))


def same(cy_call: Callable[..., Any], py_call: Callable[..., Any], *args: Any) -> Any:
    """Assert both calls give the same outcome; return it."""
    got = outcome(cy_call, *args)
    assert got == outcome(py_call, *args), args
    return got
