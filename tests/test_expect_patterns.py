"""Glob patterns of rule and test case names (coscore.expect.patterns)."""

from __future__ import annotations

import pytest

from coscore.expect.patterns import PatternError, compile_pattern, matches

GLOB_TABLE = [
    # pattern, name, matches?
    ("lab-tools", "lab-tools/strict.json", True),
    ("lab-tools", "lab-tools2/x.json", False),
    ("*.json", "lab-tools/strict.json", False),
    ("*.json", "final.json", True),
    ("*", "final.json", True),
    ("*", "lab/strict.json", True),  # via the parent folder "lab"
    ("lab-tools/*", "lab-tools/strict.json", True),
    ("lab-tools/*", "lab-tools/sub/x.json", True),  # via the parent "lab-tools/sub"
    ("lab-tools/*.json", "lab-tools/strict.json", True),
    ("lab-tools/s*", "lab-tools/draft.json", False),
    ("secret", "secret/x/0001", True),
    ("sec", "secret/x/0001", False),
    ("sec*", "secret/x/0001", True),
    ("secret/1", "secret/10/0001", False),
    ("secret/1", "secret/1/0001", True),
    ("secret/1", "secret/1", True),
    ("secret/{a,b}", "secret/a/0001", True),
    ("secret/{a,b}", "secret/b/0001", True),
    ("secret/{a,b}", "secret/c/0001", False),
    ("secret/{a,b}", "secret/ab/0001", False),
    ("{sample,secret}/x", "sample/x/1", True),
    ("secret/{m{0,1},z}*", "secret/m12/1", True),
    ("secret/{m{0,1},z}*", "secret/m22/1", False),
    ("secret/x{,y}", "secret/x/1", True),
    ("secret/x{,y}", "secret/xy/1", True),
    ("a.b", "aXb", False),  # no regex leaks through
    ("a+b", "a+b/1", True),
    ("s*t", "s/t", False),  # * never crosses /
]


@pytest.mark.parametrize(("pattern", "name", "expected"), GLOB_TABLE)
def test_glob_table(pattern: str, name: str, expected: bool) -> None:
    assert matches(pattern, name) is expected


@pytest.mark.parametrize("pattern", ["", "{a", "a}", "{a,{b}", "/a", "a/", "a//b", "a?", "[ab]"])
def test_bad_patterns(pattern: str) -> None:
    with pytest.raises(PatternError):
        compile_pattern(pattern)


def test_pattern_keeps_its_text() -> None:
    assert compile_pattern("secret/{a,b}").text == "secret/{a,b}"
