"""Deterministic benchmark workloads built from the four demo rules and their marked datasets.

Every workload is a function of its arguments only (each uses its own ``random.Random``
seeded with a string, which Python hashes with SHA-512), so two runs on two machines
score exactly the same answers.

- :func:`distinct` -- the dataset's answers resampled to ``n`` with 1-3 small random edits
  each: the first inserts or substitutes a character drawn from the dataset's own alphabet,
  the others may also delete one (in blanks longer than 4 code points); an answer that
  comes out equal to one already drawn gets one more edit, so all answers are distinct;
- :func:`real_duplicates` -- the same, but the answers that occur more than once in the
  marked dataset ("不知道", empty answers, copies of the model answer) are copied verbatim
  at their real frequency, so the batch repeats itself as the real data does;
- :func:`long_answers` -- answers of an exact length (10 ... 10,000 code points) made of
  edited dataset answers laid end to end.

An answer is a list of blanks (``list[str]``). The datasets are in the original layout:
header ``text,score``, the answer is the text before the first comma, blanks split on ``-``.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "coscore" / "data" / "demo"

#: The four demo rules, each with its marked dataset ``<name>.csv``.
RULES = ("lab-tools", "lane-change", "shortest-path", "traffic-light")

Answer = list  # list[str]: the blanks


def rule_source(name: str) -> dict:
    """The demo rule ``name`` as a dict (JSON key order kept)."""
    return json.loads((DEMO / f"{name}.rule.json").read_text(encoding="utf-8"))


@cache
def _dataset(name: str) -> tuple[tuple[str, ...], ...]:
    lines = (DEMO / f"{name}.csv").read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].split(",")[0] != "text":
        raise ValueError(f"{name}.csv: expected a 'text,score' header")
    return tuple(tuple(line.split(",", 1)[0].split("-")) for line in lines[1:])


def dataset(name: str) -> list[Answer]:
    """The marked dataset's answers, in file order (each a fresh list of blanks)."""
    return [list(blanks) for blanks in _dataset(name)]


@cache
def alphabet(name: str) -> tuple[str, ...]:
    """The distinct characters of the dataset's answers, sorted (the edits draw from these)."""
    return tuple(sorted({ch for blanks in _dataset(name) for blank in blanks for ch in blank}))


def edit(text: str, rng: random.Random, chars: tuple[str, ...], edits: int, delete: bool = True) -> str:
    """``text`` with ``edits`` random one-character edits: an insert or a substitution, or
    (if ``delete`` and the text is longer than 4 code points) a deletion."""
    for _ in range(edits):
        op = rng.randrange(3 if delete and len(text) > 4 else 2) if text else 0
        if op == 0:  # insert
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(chars) + text[i:]
        elif op == 1:  # substitute
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice(chars) + text[i + 1:]
        else:  # delete
            i = rng.randrange(len(text))
            text = text[:i] + text[i + 1:]
    return text


def _edited(blanks: tuple[str, ...], rng: random.Random, chars: tuple[str, ...], seen: set) -> Answer:
    """``blanks`` with 1-3 edits (the first an insert or a substitution), each in a random
    blank; while the result equals an answer already drawn (in ``seen``), one more insert
    or substitution."""
    answer = list(blanks)
    for k in range(rng.randint(1, 3)):
        b = rng.randrange(len(answer))
        answer[b] = edit(answer[b], rng, chars, 1, delete=k > 0)
    for _ in range(50):
        key = tuple(answer)
        if key not in seen:
            break
        b = rng.randrange(len(answer))
        answer[b] = edit(answer[b], rng, chars, 1, delete=False)
    seen.add(tuple(answer))
    return answer


def distinct(name: str, n: int = 100_000, seed: int = 0) -> list[Answer]:
    """``n`` distinct answers resampled from the dataset, each with a few random character edits."""
    rng = random.Random(f"distinct:{name}:{n}:{seed}")
    source, chars, seen = _dataset(name), alphabet(name), set()
    return [_edited(rng.choice(source), rng, chars, seen) for _ in range(n)]


def repeated(name: str) -> dict[tuple[str, ...], int]:
    """The answers that occur more than once in the dataset, with their counts."""
    return {blanks: c for blanks, c in Counter(_dataset(name)).items() if c > 1}


def real_duplicates(name: str, n: int = 100_000, seed: int = 0) -> list[Answer]:
    """``n`` answers resampled from the dataset: rows whose answer occurs more than once in
    the dataset are copied verbatim (so they keep their real frequency), the others are
    edited as in :func:`distinct`."""
    rng = random.Random(f"real-duplicates:{name}:{n}:{seed}")
    source, chars = _dataset(name), alphabet(name)
    popular = repeated(name)
    seen = set(popular)
    out = []
    for _ in range(n):
        blanks = rng.choice(source)
        out.append(list(blanks) if blanks in popular else _edited(blanks, rng, chars, seen))
    return out


def long_answers(name: str, length: int, n: int, seed: int = 0) -> list[Answer]:
    """``n`` one-blank answers of exactly ``length`` code points: edited dataset answers
    (blanks joined) laid end to end, then cut."""
    rng = random.Random(f"long:{name}:{length}:{n}:{seed}")
    source, chars = _dataset(name), alphabet(name)
    out = []
    seen: set = set()
    for _ in range(n):
        parts, size = [], 0
        while size < length:
            part = "".join(_edited(rng.choice(source), rng, chars, seen))
            parts.append(part)
            size += len(part)
        out.append(["".join(parts)[:length]])
    return out


def duplicate_rate(answers: list[Answer]) -> float:
    """The fraction of answers equal to an earlier one."""
    if not answers:
        return 0.0
    return 1.0 - len({tuple(a) for a in answers}) / len(answers)


def blank_texts(answers: list[Answer], arg: object) -> list[str]:
    """What ``T(arg)`` gives for each answer: blank ``arg``, or all blanks joined for ``'*'``."""
    if arg == "*":
        return ["".join(a) for a in answers]
    return [a[arg] for a in answers]
