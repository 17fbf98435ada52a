"""Reading a rule: JSON (dict, text or file) → a validated :class:`~coscore.spec.RuleSpec`.

Validation collects every problem before raising, so one :class:`RuleError` lists them
all, each with the path of the place it concerns (``combos.A.combo``, ``atoms.3.desc``).
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Mapping

from .atoms import table_bytes
from .diagnostics import Diagnostic, RuleError, json_type, shorten
from .expr.parse import MAX_LENGTH, parse
from .expr.tokens import ExprSyntaxError
from .limits import DEFAULT_LIMITS, Limits, over_rule_budget
from .spec import ATOM_KINDS, COMBO_MODES, DIALECTS, SCORE_MODES, AtomSpec, ComboSpec, RuleSource, RuleSpec

_TOP_LEVEL_KEYS = frozenset({"atoms", "combos", "comboMode", "dialect"})
#: The largest int score: results are floats (an int beyond this has no float).
_LARGEST_SCORE = int(1.7976931348623157e308)


def load(source: RuleSource) -> dict:
    """The rule object from a dict, JSON text/bytes, or a path to a JSON file."""
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise RuleError([Diagnostic("rule", f"cannot read {path}: {exc.strerror or exc}")]) from None
        return _decode(data, where=path)
    if isinstance(source, (str, bytes, bytearray)):
        return _decode(source, where="rule")
    raise RuleError([Diagnostic("rule", f"a rule is a dict, JSON text or a path, not {type(source).__name__}")])


def _decode(data: str | bytes, where: str) -> dict:
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RuleError([Diagnostic(where, f"not UTF-8 text (byte {exc.start})")]) from None
    try:
        value = json.loads(data)
    except json.JSONDecodeError as exc:
        hint = ""
        if where == "rule" and not data.lstrip().startswith(("{", "[")):
            hint = " (to compile a file, pass a pathlib.Path)"
        quotes = _quotes_in_combos(data, where)
        found = [d for at, d in quotes]
        if not any(at < exc.pos <= at + 2 for at, _ in quotes):  # else the first quote is this very error
            found.insert(0, Diagnostic(where,
                                       f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}"))
        raise RuleError(found) from None
    except RecursionError:
        raise RuleError([Diagnostic(where, _too_deep(data))]) from None
    except ValueError as exc:  # a number with more digits than Python converts
        why = (f"a number with more than {sys.get_int_max_str_digits():,} digits" if "digits" in str(exc)
               else shorten(str(exc), 200))
        raise RuleError([Diagnostic(where, f"invalid JSON: {why}")]) from None
    if not isinstance(value, dict):
        raise RuleError([Diagnostic(where, f"a rule is a JSON object, not {json_type(value)}")])
    return value


_COMBO_TEXT = re.compile(r'"combo"\s*:\s*"')
_NEXT_KEY = re.compile(r'"[^"\n]*"\s*:')


def _quotes_in_combos(text: str, where: str) -> list[tuple[int, Diagnostic]]:
    """For JSON that does not parse: every combo whose text holds a bare ``"`` (``"combo":
    "T(0) == "是""``: the quote ends the JSON string early), each named by its line and
    column (with the quote's offset in ``text``), so that all of them are listed at once,
    not one per run."""
    found = []
    for match in _COMBO_TEXT.finditer(text):
        try:
            _, end = json.decoder.scanstring(text, match.end())  # type: ignore[attr-defined]  # not in typeshed
        except (json.JSONDecodeError, ValueError):
            continue
        rest = text[end:end + 200].lstrip(" \t\r\n")
        if rest[:1] in (",", "}", "") or _NEXT_KEY.match(rest):  # the combo ended there (a comma may be missing)
            continue
        line = text.count("\n", 0, end - 1) + 1
        column = end - 1 - (text.rfind("\n", 0, end - 1) + 1) + 1
        found.append((end - 1, Diagnostic(where, f"invalid JSON at line {line}, column {column}: this '\"' inside a "
                                "combo ends its text early: write \\\" for a quote inside it, or quote strings with ' "
                                "(T(0) == '是')")))
        if len(found) == 100:
            break
    return found


_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]')


def _too_deep(text: str) -> str:
    """The message for JSON nested deeper than the decoder reads: where the nesting
    first reaches its greatest depth (strings skipped), as line and column."""
    depth = deepest = at = 0
    for match in _JSON_NESTING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, match.start()
        elif token in "]}":
            depth -= 1
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return f"invalid JSON at line {line}, column {column}: nested too deeply ({deepest:,} levels)"


def read(source: RuleSource, dialect: str | None = None, limits: Limits = DEFAULT_LIMITS) -> RuleSpec:
    """Load and validate a rule; raise :class:`RuleError` listing every problem.

    The rule's size is checked against the rule budgets of ``limits`` first, from its
    JSON alone (atoms, keys, options, combos, characters of combo text), so that an
    oversized rule costs no more than reading its JSON; its atoms' table memory last,
    estimated before any table is built (:func:`coscore.atoms.table_bytes`).
    """
    rule = load(source)
    oversized = _over_size(rule, limits)
    if oversized:
        raise RuleError(oversized)
    problems: list[Diagnostic] = []
    warnings: list[Diagnostic] = []

    for key in rule:
        if key not in _TOP_LEVEL_KEYS:
            warnings.append(Diagnostic(str(key), "unknown key (ignored)", severity="warning"))

    atoms = _read_atoms(rule, problems, warnings)
    declared = {str(k) for k in rule["atoms"]} if isinstance(rule.get("atoms"), dict) else None
    combos = _read_combos(rule, declared, problems, warnings)

    combo_mode = rule.get("comboMode")
    if "comboMode" not in rule:
        problems.append(Diagnostic("comboMode", "missing (\"ADD\" or \"MAX\")"))
    elif combo_mode not in COMBO_MODES:
        problems.append(Diagnostic("comboMode",
                                   f"must be \"ADD\" or \"MAX\", not {json.dumps(combo_mode, ensure_ascii=False)}"))
    elif combo_mode == "MAX" and combos is not None and not combos and "combos" in rule:
        problems.append(Diagnostic("combos", "MAX needs at least one combo"))

    chosen = dialect if dialect is not None else rule.get("dialect", "coscore")
    if chosen not in DIALECTS:
        where = "dialect" if dialect is None else "dialect (keyword)"
        problems.append(Diagnostic(where,
                                   f"must be \"coscore\" or \"manual\", not {json.dumps(chosen, ensure_ascii=False)}"))

    if problems:
        error = RuleError(problems + [w for w in warnings])
        error.parsed = (atoms or {}, tuple(combos or ()))  # what was read well: check looks into it
        raise error
    problems = _over_budget(rule, atoms or {}, limits)
    if problems:
        raise RuleError(problems)
    assert atoms is not None and combos is not None and combo_mode is not None  # no problem: every part was read
    return RuleSpec(atoms, tuple(combos), combo_mode, chosen, tuple(warnings), rule)


def _over_size(rule: dict, limits: Limits) -> list[Diagnostic]:
    """The size budgets of ``limits`` the rule's JSON goes over, counted without reading
    it: atoms, EM/OP/CS keys and SM options (from their separators), combos, and the
    characters of combo text (compiling costs time and memory in proportion to them)."""
    given_atoms, given_combos = rule.get("atoms"), rule.get("combos")
    atoms = given_atoms if isinstance(given_atoms, dict) else {}
    combos = given_combos if isinstance(given_combos, dict) else {}
    keys = options = 0
    for atom in atoms.values():
        desc = atom.get("desc") if isinstance(atom, dict) else None
        if not isinstance(desc, str):
            continue
        kind = atom.get("type")
        if kind == "SM":
            options += desc.count(",") + desc.count("|") + 1
        elif kind == "EM" or (kind in ("OP", "CS") and ":" in desc):
            keys += desc.partition(":")[2].count(",") + 1 if kind != "EM" else desc.count(",") + 1
    texts = [c["combo"] for c in combos.values() if isinstance(c, dict) and isinstance(c.get("combo"), str)]
    chars = sum(len(t) for t in texts if len(t) <= MAX_LENGTH)  # a longer one is refused unparsed
    counts = [
        ("atoms", "max_atoms", "atoms", len(atoms)),
        ("combos", "max_combos", "combos", len(combos)),
        ("atoms", "max_keys", "EM/OP/CS keys", keys),
        ("atoms", "max_options", "SM options", options),
        ("combos", "max_combo_chars", "characters of combo text", chars),
    ]
    return [
        Diagnostic(path, over_rule_budget(budget, what, count, getattr(limits, budget)))
        for path, budget, what, count in counts
        if count > getattr(limits, budget)
    ]


def _over_budget(rule: dict, atoms: dict[str, AtomSpec], limits: Limits) -> list[Diagnostic]:
    """The table memory budget of ``limits`` that a valid rule goes over."""
    problems: list[Diagnostic] = []
    estimates = {atom_id: table_bytes(atom) for atom_id, atom in atoms.items()}
    sizes = {atom_id: kept + building for atom_id, (kept, building) in estimates.items()}
    # what every atom keeps, and what building the most demanding one needs for a moment
    total = sum(kept for kept, _ in estimates.values()) + max((b for _, b in estimates.values()), default=0)
    if total > limits.max_table_bytes:
        largest = sorted(sizes, key=sizes.__getitem__, reverse=True)[:3]
        shown = ", ".join(f"atoms.{shorten(atom_id, 40)} {sizes[atom_id]:,}" for atom_id in largest)
        message = over_rule_budget("max_table_bytes", "bytes of match tables (estimated)", total,
                                   limits.max_table_bytes)
        problems.append(Diagnostic("atoms", f"{message}; the largest: {shown}"))
    return problems


def _section(rule: dict, key: str, what: str, problems: list) -> dict | None:
    """``rule[key]`` when it is an object; else ``None``, with the problem noted."""
    if key not in rule:
        problems.append(Diagnostic(key, f"missing ({what})"))
        return None
    value = rule[key]
    if not isinstance(value, dict):
        problems.append(Diagnostic(key, f"must be an object, not {json_type(value)}"))
        return None
    return value


def _read_atoms(rule: dict, problems: list, warnings: list) -> dict[str, AtomSpec] | None:
    atoms = _section(rule, "atoms", "an object of atoms, may be empty", problems)
    if atoms is None:
        return None
    specs: dict[str, AtomSpec] = {}
    for atom_id, atom in atoms.items():
        path = f"atoms.{atom_id}"
        if not isinstance(atom, dict):
            problems.append(Diagnostic(path, f"must be an object with \"type\" and \"desc\", not {json_type(atom)}"))
            continue
        kind, desc = atom.get("type"), atom.get("desc")
        ok = True
        if kind not in ATOM_KINDS:
            shown = "missing" if "type" not in atom else f"unknown atom type {json.dumps(kind, ensure_ascii=False)}"
            problems.append(Diagnostic(f"{path}.type", f"{shown} (EM, SM, OP or CS)"))
            ok = False
        if not isinstance(desc, str):
            shown = "missing" if "desc" not in atom else f"must be a string, not {json_type(desc)}"
            problems.append(Diagnostic(f"{path}.desc", shown))
            ok = False
        for key in atom:
            if key not in ("type", "desc"):
                warnings.append(Diagnostic(f"{path}.{key}", "unknown key (ignored)", severity="warning"))
        if ok and isinstance(kind, str) and isinstance(desc, str):
            spec = _read_atom(str(atom_id), kind, desc, problems, warnings)
            if spec is not None:
                specs[str(atom_id)] = spec
    return specs


def _read_atom(atom_id: str, kind: str, desc: str, problems: list, warnings: list) -> AtomSpec | None:
    path = f"atoms.{atom_id}.desc"
    if kind == "EM":
        return AtomSpec(atom_id, kind, desc, keys=tuple(desc.split(",")))
    if kind == "SM":
        groups = tuple(tuple(group.split("|")) for group in desc.split(","))
        column = 1
        for group in groups:
            for option in group:
                if option == "":
                    warnings.append(Diagnostic(path, "empty option never matches", column, "warning", desc))
                column += len(option) + 1
        return AtomSpec(atom_id, kind, desc, groups=groups)
    # OP / CS: "threshold:key,key,…" — keys are everything after the first ':'
    head, colon, rest = desc.partition(":")
    if not colon:
        problems.append(Diagnostic(path, f"{kind} desc must start with a threshold and ':' (e.g. \"0.6:key\")", 1,
                                   source=desc))
        return None
    try:
        threshold = float(head)
    except ValueError:
        problems.append(Diagnostic(path, f"threshold {head!r} is not a number", 1, source=desc))
        return None
    if not 0 <= threshold <= 1:
        effect = ": the atom never hits" if not threshold <= 1 else ": the atom always hits"
        warnings.append(Diagnostic(path, f"threshold {head.strip()} is outside [0, 1]{effect}", 1, "warning", desc))
    keys = tuple(rest.split(","))
    column = len(head) + 2
    for key in keys:
        if (key == "") if kind == "OP" else (key.strip() == ""):
            warnings.append(Diagnostic(path, "empty key has similarity 0", column, "warning", desc))
        column += len(key) + 1
    return AtomSpec(atom_id, kind, desc, keys=keys, threshold=threshold)


def _read_combos(rule: dict, atom_ids: set[str] | None, problems: list, warnings: list) -> list[ComboSpec] | None:
    combos = _section(rule, "combos", "an object of combos", problems)
    if combos is None:
        return None
    specs: list[ComboSpec] = []
    for combo_id, combo in combos.items():
        path = f"combos.{combo_id}"
        if not isinstance(combo, dict):
            problems.append(Diagnostic(path, "must be an object with \"combo\", \"score\" and \"mode\", "
                                             f"not {json_type(combo)}"))
            continue
        text, score, mode = combo.get("combo"), combo.get("score"), combo.get("mode")
        tree = None
        if not isinstance(text, str):
            problems.append(Diagnostic(f"{path}.combo", "missing" if "combo" not in combo
                                       else f"must be a string, not {json_type(text)}"))
        else:
            try:
                tree = parse(text, atom_ids)
            except ExprSyntaxError as exc:
                problems.append(Diagnostic(f"{path}.combo", exc.message, exc.column, source=text))
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            problems.append(Diagnostic(f"{path}.score", "missing (a number)" if "score" not in combo
                                       else f"must be a number, not {json_type(score)}"))
        elif isinstance(score, float) and not math.isfinite(score):
            problems.append(Diagnostic(f"{path}.score", f"must be a finite number, not {score}"))
        elif isinstance(score, int) and abs(score) > _LARGEST_SCORE:
            problems.append(Diagnostic(f"{path}.score", "must be a number a float can hold (at most about 1.8e308)"))
        if mode not in SCORE_MODES:
            problems.append(Diagnostic(f"{path}.mode", "missing (\"logic\" or \"value\")" if "mode" not in combo
                                       else "must be \"logic\" or \"value\", "
                                            f"not {json.dumps(mode, ensure_ascii=False)}"))
        for key in combo:
            if key not in ("combo", "score", "mode"):
                warnings.append(Diagnostic(f"{path}.{key}", "unknown key (ignored)", severity="warning"))
        if (tree is not None and isinstance(text, str) and mode in SCORE_MODES and isinstance(score, (int, float))
                and not isinstance(score, bool)):
            specs.append(ComboSpec(str(combo_id), text, tree, score, mode))
    return specs
