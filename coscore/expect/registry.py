"""Parse ``expectations.yaml`` into a :class:`Registry`, with located errors.

The registry maps rule-name patterns to root expectations.  A root expectation
is an abbreviation, a range, an expectation object, and/or keys starting with
``sample`` or ``secret`` (test-case-name patterns) each with its own
expectation.  Every problem — unknown key, key not allowed for the suite's
type, unknown verdict or abbreviation, malformed range, bad pattern — raises
:class:`~coscore.expect.errors.SuiteError` naming the file, line and key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from .errors import SuiteError
from .patterns import Pattern, PatternError, compile_pattern
from .verdicts import VERDICTS
from .yamlfile import compose, read_text

SuiteType = Literal["pass-fail", "scoring"]
Range = tuple[float, float]

#: Keys of an expectation object, after folding the ``testgroup`` spellings.
EXPECTATION_KEYS: tuple[str, ...] = (
    "permitted_testcase_verdicts",
    "required_testcase_verdicts",
    "permitted_aggregate_verdict",
    "message",
    "permitted_testcase_scores",
    "permitted_aggregate_score",
    "with_margin",
    "min_exact_agreement",
    "min_qwk",
)

#: The seed spells the verdict keys both ways; both mean the same key.
ALIASES: dict[str, str] = {
    "permitted_testgroup_verdicts": "permitted_testcase_verdicts",
    "required_testgroup_verdicts": "required_testcase_verdicts",
}

#: Keys allowed only for one suite type (0.7.2).
ONLY_FOR_TYPE: dict[str, SuiteType] = {
    "permitted_aggregate_verdict": "pass-fail",
    "permitted_testcase_scores": "scoring",
    "permitted_aggregate_score": "scoring",
}

#: The seed's abbreviations, as normalized checks.
ABBREVIATIONS: dict[str, dict[str, Any]] = {
    "accepted": {"permitted_testcase_verdicts": ("AC",), "with_margin": True},
    "wrong answer": {"permitted_testcase_verdicts": ("AC", "WA"), "required_testcase_verdicts": ("WA",)},
    "runtime exception": {"permitted_testcase_verdicts": ("AC", "RTE"), "required_testcase_verdicts": ("RTE",)},
    "time limit exceeded": {
        "permitted_testcase_verdicts": ("AC", "TLE"),
        "required_testcase_verdicts": ("TLE",),
        "with_margin": True,
    },
    "does not terminate": {
        "permitted_testcase_verdicts": ("AC", "RTE", "TLE"),
        "required_testcase_verdicts": ("RTE", "TLE"),
    },
    "not accepted": {"required_testcase_verdicts": ("RTE", "TLE", "WA")},
}

_SCOPE_PREFIXES = ("sample", "secret")
_SEP = " › "


@dataclass(frozen=True)
class Expectation:
    """Normalized checks for one set of results, and how the author wrote them."""

    checks: Mapping[str, Any]
    label: str
    line: int | None = None


@dataclass(frozen=True)
class Entry:
    """One expectation of the registry: for rules matching ``rules``, on test cases matching ``scope``."""

    rules: Pattern
    scope: Pattern | None
    expectation: Expectation

    @property
    def label(self) -> str:
        """``lab/* › secret/nonsense: {permitted_testcase_scores: [0, 0]}``."""
        where = self.rules.text if self.scope is None else f"{self.rules.text}{_SEP}{self.scope.text}"
        return f"{where}: {self.expectation.label}"


@dataclass(frozen=True)
class Registry:
    """All entries of an ``expectations.yaml``, in file order."""

    entries: tuple[Entry, ...]

    def for_rule(self, name: str) -> list[Entry]:
        """Every entry whose rule pattern matches the rule ``name``."""
        return [entry for entry in self.entries if entry.rules.matches(name)]


def load_registry(path: Path, suite_type: SuiteType, *, file: str = "expectations.yaml") -> Registry:
    """Read and parse the registry at ``path`` (``file`` is its name in messages)."""
    return parse_registry(read_text(path, file), suite_type, file=file)


def parse_registry(text: str, suite_type: SuiteType, *, file: str = "expectations.yaml") -> Registry:
    """Parse registry YAML ``text`` for a suite of type ``suite_type``."""
    return _Parser(file, suite_type).registry(text)


class _Parser:
    """Walks the YAML node tree so every error can name its line and key path."""

    def __init__(self, file: str, suite_type: SuiteType) -> None:
        self.file = file
        self.suite_type = suite_type
        self._constructor = yaml.SafeLoader("")

    def registry(self, text: str) -> Registry:
        root = compose(text, self.file)
        if root is None:
            return Registry(())
        entries: list[Entry] = []
        for key, _, value in self._items(root, []):
            rules = self._pattern(key, [key], root)
            entries.extend(self._root(rules, value, [key]))
        return Registry(tuple(entries))

    # -- structure -----------------------------------------------------------------

    def _root(self, rules: Pattern, node: yaml.Node, path: list[str]) -> list[Entry]:
        if not isinstance(node, yaml.MappingNode):
            return [Entry(rules, None, self._expectation(node, path))]
        own: list[tuple[str, yaml.Node, yaml.Node]] = []
        scoped: list[Entry] = []
        for key, key_node, value in self._items(node, path):
            if key.startswith(_SCOPE_PREFIXES):
                scope = self._pattern(key, [*path, key], key_node)
                scoped.append(Entry(rules, scope, self._expectation(value, [*path, key])))
            else:
                own.append((key, key_node, value))
        entries = [Entry(rules, None, self._object(own, node, path))] if own else []
        return entries + scoped

    def _expectation(self, node: yaml.Node, path: list[str]) -> Expectation:
        if isinstance(node, yaml.MappingNode):
            return self._object(self._items(node, path), node, path)
        value = self._value(node)
        line = node.start_mark.line + 1
        if isinstance(value, str):
            if value not in ABBREVIATIONS:
                known = ", ".join(ABBREVIATIONS)
                self._fail(path, f"unknown abbreviation {value!r} (known: {known})", node)
            return Expectation(dict(ABBREVIATIONS[value]), value, line)
        if value is None:
            self._fail(path, "empty expectation (write an abbreviation, a range or a mapping)", node)
        self._check_type("a range", "scoring", path, node)
        score = self._range(value, path, node)
        return Expectation({"permitted_aggregate_score": score}, _flow(value), line)

    def _object(self, items: list[tuple[str, yaml.Node, yaml.Node]], node: yaml.Node, path: list[str]) -> Expectation:
        checks: dict[str, Any] = {}
        written: dict[str, Any] = {}
        for key, key_node, value_node in items:
            where = [*path, key]
            name = ALIASES.get(key, key)
            if name not in EXPECTATION_KEYS:
                hint = (" (test case patterns go directly under a rule pattern)"
                        if key.startswith(_SCOPE_PREFIXES) else "")
                self._fail(where, f"unknown key{hint}; allowed: {', '.join(EXPECTATION_KEYS)}", key_node)
            if name in checks:
                self._fail(where, f"{name} is given twice (both spellings of a verdict key mean the same)", key_node)
            allowed = ONLY_FOR_TYPE.get(name)
            if allowed is not None:
                self._check_type(name, allowed, where, key_node)
            value = self._value(value_node)
            checks[name] = self._check_value(name, value, where, value_node)
            written[key] = value
        return Expectation(checks, _flow(written), node.start_mark.line + 1)

    # -- values --------------------------------------------------------------------

    def _check_value(self, name: str, value: Any, path: list[str], node: yaml.Node) -> Any:
        if name.endswith(("_verdicts", "_verdict")):
            return self._verdicts(value, path, node)
        if name == "message":
            if not isinstance(value, str):
                self._fail(path, "must be a string", node)
            return value
        if name == "with_margin":
            if value is not True:
                self._fail(path, "must be true (false was removed in 0.7.1)", node)
            return True
        if name in ("permitted_testcase_scores", "permitted_aggregate_score"):
            return self._range(value, path, node)
        low = -1.0 if name == "min_qwk" else 0.0
        if not _is_number(value) or not low <= value <= 1:
            self._fail(path, f"must be a number from {low:g} to 1", node)
        return float(value)

    def _verdicts(self, value: Any, path: list[str], node: yaml.Node) -> tuple[str, ...]:
        if not isinstance(value, list):
            self._fail(path, f"must be a list of verdicts ({', '.join(VERDICTS)})", node)
        for item in value:
            if item not in VERDICTS:
                self._fail(path, f"unknown verdict {item!r} (known: {', '.join(VERDICTS)})", node)
        return tuple(value)

    def _range(self, value: Any, path: list[str], node: yaml.Node) -> Range:
        if _is_number(value):
            return (float(value), float(value))
        if isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value):
            low, high = value
            if low > high:
                self._fail(path, f"bad range {_flow(value)}: {low} > {high}", node)
            return (float(low), float(high))
        self._fail(path, f"bad range {_flow(value)}: write a number or [low, high]", node)
        raise AssertionError  # pragma: no cover - _fail raises

    # -- helpers -------------------------------------------------------------------

    def _items(self, node: yaml.Node, path: list[str]) -> list[tuple[str, yaml.Node, yaml.Node]]:
        """The (key, key node, value node) pairs of a mapping node; keys must be unique strings."""
        if not isinstance(node, yaml.MappingNode):
            self._fail(path, "must be a mapping" if path else "must map rule patterns to expectations", node)
        items: list[tuple[str, yaml.Node, yaml.Node]] = []
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = self._value(key_node)
            if not isinstance(key, str):
                self._fail([*path, str(key)], "keys must be strings (quote them)", key_node)
            if key in seen:
                self._fail([*path, key], "duplicate key", key_node)
            seen.add(key)
            items.append((key, key_node, value_node))
        return items

    def _pattern(self, text: str, path: list[str], node: yaml.Node) -> Pattern:
        try:
            return compile_pattern(text)
        except PatternError as exc:
            self._fail(path, f"bad pattern: {exc}", node)
            raise AssertionError from exc  # pragma: no cover - _fail raises

    def _check_type(self, what: str, allowed: SuiteType, path: list[str], node: yaml.Node) -> None:
        if self.suite_type != allowed:
            self._fail(path, f"{what} is only allowed in {allowed} suites (this suite is {self.suite_type})", node)

    def _value(self, node: yaml.Node) -> Any:
        try:
            return self._constructor.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise SuiteError(self.file, "", f"not valid YAML: {exc}", node.start_mark.line + 1) from exc

    def _fail(self, path: list[str], problem: str, node: yaml.Node) -> None:
        raise SuiteError(self.file, _SEP.join(path), problem, node.start_mark.line + 1)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _flow(value: Any) -> str:
    """One-line YAML for labels: ``{permitted_testcase_scores: [0, 0]}``."""
    text = yaml.safe_dump(value, default_flow_style=True, width=10**9, allow_unicode=True, sort_keys=False)
    return text.strip().removesuffix("...").strip()
