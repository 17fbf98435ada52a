"""Whether a block of JSON Lines holds few distinct keys (``few_keys``, for the JSON Lines
reader): the compiled count against its numpy twin, on JSON Lines and broken ones."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import examples


def test_few_keys_examples(kernels):
    few_keys = kernels.json_keys.few_keys
    assert few_keys(b"", 0, 64) and few_keys(b'{"a": 1}\n{"a": 2}\n', 1, 64)
    assert not few_keys(b'{"a": 1}\n{"b": 2}\n', 1, 64)
    assert few_keys(b'{"a": "x: y", "a": "\\"b:"}\n', 1, 64)       # colons inside strings, an escaped quote
    assert not few_keys(b'{"a": "open\n", "b": 1}\n', 5, 64)          # a line starts inside a string
    assert not few_keys(b'{"abcdefghi": 1}\n', 5, 8) and few_keys(b'{"abcdefgh": 1}\n', 5, 8)
    assert not few_keys(b': 1\n', 5, 64)                                # a colon before any key
    assert few_keys(bytearray(b'{"a": 1}\n'), 1, 64) and few_keys(memoryview(b'{"a": "\\\\"}\n'), 1, 64)


KEYS = st.lists(st.sampled_from(["id", "answer", "答案", 'a"b', "c\\d", "x:y", "k" * 70, "e\n", "🙂"]) | st.text(max_size=6),
                max_size=5)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(KEYS, st.lists(st.text(max_size=8) | st.integers(), max_size=5)), min_size=1, max_size=40),
       st.integers(0, 12), st.sampled_from([0, 1, 2, 3]))
def test_the_compiled_key_count_answers_as_its_twin(twins, lines, limit, damage):
    """On JSON Lines (and broken ones: a quote, a backslash or a line break cut in), the
    compiled count of distinct keys gives the twin's answer, for any limit."""
    compiled, twin = (kernels.json_keys for kernels in twins)
    text = "".join(json.dumps(dict(zip(keys, values)), ensure_ascii=bool(damage % 2)) + "\n" for keys, values in lines)
    data = text.encode("utf-8", "surrogatepass")
    if damage == 2:
        data = data[: len(data) // 2] + b'"' + data[len(data) // 2 :]
    if damage == 3:
        data = data[: len(data) // 3] + b"\\\n" + data[len(data) // 3 :]
    for max_key in (8, 64):
        assert compiled.few_keys(data, limit, max_key) == twin.few_keys(data, limit, max_key), (data[:200], limit)
