"""Reading an exam file into :class:`Located` values: every value with the line it starts on.

YAML (``.yaml``, ``.yml`` and any other name but ``.json``) is composed into PyYAML's nodes
(``yaml.compose`` with a :class:`yaml.SafeLoader` that refuses anchors, aliases and
explicit tags outside YAML's own str, int, float, bool, null, seq and map), not loaded
whole: a scalar keeps its text as written next to its YAML value, so that a column named
``no`` or ``1`` stays ``"no"`` and ``"1"`` where the exam names a column, while a rule
written inline gets YAML's ordinary types (and keys as text). JSON (``.json``) is read by a small
scanner that records the line of each value (Python's ``json`` module gives none). Both
refuse duplicate keys, files over :data:`MAX_BYTES` and nesting deeper than
:data:`MAX_DEPTH`. Problems are :class:`~coscore.exam.errors.ExamProblem`\\ s: this module
collects as many as it can and never raises for what a file holds.
"""
from __future__ import annotations

import bisect
import json
import math
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # not in typeshed
from typing import TYPE_CHECKING, Any, Literal

import yaml

from ..diagnostics import shorten
from ..errors import CoscoreError
from .detect import MAX_BYTES
from .errors import ExamProblem

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_VALUES", "Kind", "Located", "Parsed", "kind_name", "parse_json",
           "parse_yaml", "plain", "python_node", "read_exam_file"]

#: The deepest nesting of mappings and lists an exam file may have (inline rules included).
MAX_DEPTH = 64
#: The most values (scalars, lists and mappings) a YAML exam file may hold: a thousand items
#: with inline rules hold some tens of thousands; this bounds the time a file takes to read
#: (about 10 µs a value with libyaml, 40 µs without).
MAX_VALUES = 500_000

Kind = Literal["map", "list", "text", "number", "bool", "null", "other"]


@dataclass(frozen=True)
class Located:
    """A value of an exam with the 1-based ``line`` it starts on (``None``: unknown).

    ``kind`` says what it is. A ``"map"``'s ``value`` is its ``(key, value)`` pairs in
    order, keys being ``"text"`` values; a ``"list"``'s its elements; a scalar's its Python
    value (YAML's type: ``int``, ``float``, ``bool``, ``None``, ``str``). ``text`` is a
    scalar's text as written in YAML (``no``, ``1``, ``~``), a JSON or Python string's
    value, else ``None``: where the exam names a column or an item, that text is read.
    ``raw`` is a mapping of an exam given as a Python mapping, kept as it is (not walked).
    """

    kind: Kind
    value: object = None
    line: int | None = None
    text: str | None = None
    raw: object = field(default=None, compare=False)

    @property
    def pairs(self) -> tuple[tuple[Located, Located], ...]:
        """A map's ``(key, value)`` pairs (empty for anything else, or a ``raw`` mapping)."""
        return self.value if self.kind == "map" and isinstance(self.value, tuple) else ()

    @property
    def elements(self) -> tuple[Located, ...]:
        """A list's elements (empty for anything else)."""
        return self.value if self.kind == "list" and isinstance(self.value, tuple) else ()


@dataclass
class Parsed:
    """An exam file read: its ``root`` (``None`` when it could not be read or parsed) and
    the ``problems`` found on the way (duplicate keys, tags, …)."""

    root: Located | None
    problems: list[ExamProblem]


def kind_name(node: Located) -> str:
    """How a value is named in messages: ``"text"``, ``"a number"``, ``"a list"``…"""
    if node.kind == "other":
        return f"a {type(node.value).__name__}"
    return {"map": "a mapping", "list": "a list", "text": "text", "number": "a number", "bool": "true/false",
            "null": "empty (null)"}[node.kind]


def plain(node: Located) -> object:
    """``node`` as plain Python: a mapping a ``dict`` (keys their text, in order), a list a
    ``list``, a scalar its value; a ``raw`` mapping as it was given."""
    if node.raw is not None:
        return node.raw
    if node.kind == "map":
        return {key.text: plain(value) for key, value in node.pairs}
    if node.kind == "list":
        return [plain(element) for element in node.elements]
    return node.value


# -- files -----------------------------------------------------------------------------------


def read_exam_file(path: str) -> Parsed:
    """Read and parse the exam file ``path``: JSON for ``.json``, YAML otherwise."""
    text, problems = _read_text(path)
    if text is None:
        return Parsed(None, problems)
    parsed = parse_json(text) if path.lower().endswith(".json") else parse_yaml(text)
    return Parsed(parsed.root, problems + parsed.problems)


def _read_text(path: str) -> tuple[str | None, list[ExamProblem]]:
    """The UTF-8 text of ``path`` (a leading byte order mark dropped), at most :data:`MAX_BYTES`."""
    def refuse(message: str, line: int | None = None) -> tuple[None, list[ExamProblem]]:
        return None, [ExamProblem("", message, line)]

    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            return refuse("is a folder, not an exam file")
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return refuse("cannot read it: no such file")
    except OSError as exc:
        return refuse(f"cannot read it: {exc.strerror or exc}")
    except ValueError as exc:  # a path with a NUL character
        return refuse(f"cannot read it: {exc}")
    if len(data) > MAX_BYTES:
        return refuse(f"larger than {MAX_BYTES >> 20} MiB: not an exam file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return refuse(f"invalid UTF-8 (byte {data[exc.start]:02x}); an exam file must be UTF-8 encoded",
                      data.count(b"\n", 0, exc.start) + 1)
    if not text.strip():
        return refuse("empty: an exam file is a mapping with items (see docs/exams.md)")
    return text, []


# -- YAML ------------------------------------------------------------------------------------

_YAML = "tag:yaml.org,2002:"
#: The explicit tags a YAML exam may use, by the kind of node they tag.
_ALLOWED_TAGS = {
    yaml.ScalarEvent: frozenset(_YAML + t for t in ("str", "int", "float", "bool", "null")),
    yaml.SequenceStartEvent: frozenset({_YAML + "seq"}),
    yaml.MappingStartEvent: frozenset({_YAML + "map"}),
}
_CONSTRUCT = yaml.constructor.SafeConstructor()


class _TooDeep(CoscoreError):
    """The document nests deeper than :data:`MAX_DEPTH` (at ``line``)."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _TooMany(CoscoreError):
    """The document holds more than :data:`MAX_VALUES` values (the one at ``line`` is over)."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


if TYPE_CHECKING:  # what _Composing takes from the loader it is mixed into
    class _LoaderParts(yaml.parser.Parser, yaml.composer.Composer, yaml.resolver.BaseResolver):
        ...
else:
    _LoaderParts = object


class _Composing(_LoaderParts):
    """PyYAML's composer, refusing what an exam file may not hold: an anchor, an alias or
    an explicit tag outside YAML's core types is a problem (an alias is read as null, no
    anchor is registered: no node is ever shared, so no "billion laughs"), nesting is
    bounded before the composer's recursion could overflow, and so is the number of
    values (:data:`MAX_VALUES`), which bounds the time a file takes to read."""

    refused: list[ExamProblem]
    depth: int
    values: int

    def _start(self) -> None:
        self.refused = []
        self.depth = 0
        self.values = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            event = self.get_event()
            self.refused.append(ExamProblem("", f"alias *{shorten(str(event.anchor), 100)}: anchors and aliases are "
                                            "not allowed in an exam file; write the value out",
                                            event.start_mark.line + 1))
            return yaml.ScalarNode(_YAML + "null", "", event.start_mark, event.end_mark)
        event = self.peek_event()
        line = event.start_mark.line + 1
        if event.anchor is not None:
            self.refused.append(ExamProblem("", f"anchor &{shorten(str(event.anchor), 100)}: anchors and aliases are "
                                            "not allowed in an exam file; write the value out", line))
        tag = getattr(event, "tag", None)
        if tag not in (None, "!") and tag not in _ALLOWED_TAGS.get(type(event), ()):
            self.refused.append(ExamProblem("", f"tag {shorten(str(tag), 100)} is not allowed in an exam file "
                                            "(only YAML's str, int, float, bool, null, seq and map)", line))
        self.depth += 1
        self.values += 1
        if self.depth > MAX_DEPTH:
            raise _TooDeep(line)
        if self.values > MAX_VALUES:
            raise _TooMany(line)
        self.descend_resolver(parent, index)
        no_anchor: Any = None  # none is ever registered (above)
        node: yaml.Node
        if self.check_event(yaml.ScalarEvent):
            node = self.compose_scalar_node(no_anchor)
        elif self.check_event(yaml.SequenceStartEvent):
            node = self.compose_sequence_node(no_anchor)
        else:
            node = self.compose_mapping_node(no_anchor)
        self.ascend_resolver()
        self.depth -= 1
        return node


class _ExamLoader(_Composing, yaml.SafeLoader):
    """The composer over PyYAML's own scanner and parser (pure Python)."""

    def __init__(self, stream: str) -> None:
        yaml.SafeLoader.__init__(self, stream)
        self._start()


# libyaml: its scanner and parser, five times as fast; the same composer (PyYAML offers
# CParser only when it was built with libyaml)
CParser: Any = getattr(yaml, "CParser", None)

_FastExamLoader: type | None = None
if CParser is not None:
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    class _FastExamLoader(_Composing, CParser, SafeConstructor, Resolver):  # type: ignore[no-redef]
        """The composer over libyaml's scanner and parser (its events), when installed."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self.anchors: dict = {}
            self._start()

        get_single_node = Composer.get_single_node
        compose_document = Composer.compose_document
        compose_scalar_node = Composer.compose_scalar_node
        compose_sequence_node = Composer.compose_sequence_node
        compose_mapping_node = Composer.compose_mapping_node


def parse_yaml(text: str) -> Parsed:
    """The YAML document ``text`` as :class:`Located` values (see the module's docstring)."""
    loader: Any = None
    try:
        loader = (_FastExamLoader or _ExamLoader)(text)
        node = loader.get_single_node()
    except _TooDeep as exc:
        return Parsed(None, [ExamProblem("", f"nested more than {MAX_DEPTH} levels deep", exc.line)])
    except _TooMany as exc:
        return Parsed(None, [ExamProblem("", f"more than {MAX_VALUES:,} values: too large for an exam file",
                                         exc.line)])
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if "maximum nesting depth" in str(exc.problem):   # libyaml's own bound (1,000), above ours
            return Parsed(None, [ExamProblem("", f"nested more than {MAX_DEPTH} levels deep",
                                             mark.line + 1 if mark is not None else None)])
        problem = ": ".join(part for part in (exc.context, exc.problem) if part) or "invalid"
        where = f" at column {mark.column + 1}" if mark is not None else ""
        return Parsed(None, [ExamProblem("", f"not valid YAML{where}: {shorten(problem, 300)}",
                                         mark.line + 1 if mark is not None else None)])
    except yaml.YAMLError as exc:  # the reader: a character YAML does not allow
        position = getattr(exc, "position", None)
        line = text.count("\n", 0, position) + 1 if isinstance(position, int) else None
        return Parsed(None, [ExamProblem("", f"not valid YAML: {shorten(str(exc).splitlines()[0], 300)}", line)])
    except RecursionError:
        return Parsed(None, [ExamProblem("", f"nested more than {MAX_DEPTH} levels deep")])
    finally:
        if loader is not None:
            loader.dispose()
    problems = list(loader.refused)
    if node is None:
        return Parsed(None, [*problems, ExamProblem("", "empty: an exam file is a mapping with items "
                                                       "(see docs/exams.md)")])
    return Parsed(_from_yaml(node, problems), problems)


def _from_yaml(node: yaml.Node, problems: list[ExamProblem]) -> Located:
    """``node`` as a :class:`Located` value (nested at most :data:`MAX_DEPTH`: recursion is safe)."""
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        pairs: list[tuple[Located, Located]] = []
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                problems.append(ExamProblem("", "a key must be text, not a "
                                            f"{'list' if isinstance(key_node, yaml.SequenceNode) else 'mapping'}",
                                            key_line))
                continue
            key = key_node.value
            if key in seen:
                problems.append(ExamProblem("", f"duplicate key {shorten(repr(key), 200)} (first on line "
                                            f"{seen[key]}): give each key once", key_line))
                continue
            seen[key] = key_line
            pairs.append((Located("text", key, key_line, key), _from_yaml(value_node, problems)))
        return Located("map", tuple(pairs), line)
    if isinstance(node, yaml.SequenceNode):
        return Located("list", tuple(_from_yaml(element, problems) for element in node.value), line)
    assert isinstance(node, yaml.ScalarNode)  # a composed node is one of the three
    return _yaml_scalar(node, line, problems)


def _yaml_scalar(node: yaml.ScalarNode, line: int, problems: list[ExamProblem]) -> Located:
    """A scalar with YAML's type (its text kept): int, float, bool and null by YAML's own
    rules; anything else (timestamps too) is text."""
    tag = node.tag.removeprefix(_YAML)
    try:
        if tag == "null":
            return Located("null", None, line, node.value)
        if tag == "bool":
            return Located("bool", _CONSTRUCT.construct_yaml_bool(node), line, node.value)
        if tag == "int":
            return Located("number", _CONSTRUCT.construct_yaml_int(node), line, node.value)
        if tag == "float":
            return Located("number", _CONSTRUCT.construct_yaml_float(node), line, node.value)
    except (ValueError, KeyError, TypeError, OverflowError):
        problems.append(ExamProblem("", f"{shorten(repr(node.value), 200)} is not a valid {tag}", line))
        return Located("null", None, line, node.value)
    return Located("text", node.value, line, node.value)


# -- JSON ------------------------------------------------------------------------------------

_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_CONSTANTS: dict[str, tuple[Kind, object]] = {
    "true": ("bool", True), "false": ("bool", False), "null": ("null", None),
    # as Python's json module (and coscore.compile) reads them
    "NaN": ("number", math.nan), "Infinity": ("number", math.inf), "-Infinity": ("number", -math.inf),
}


class _JsonSyntax(CoscoreError):
    """Text that is not JSON, at character ``position``."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class _JsonScanner:
    """A recursive reader of JSON text recording each value's line (recursion bounded by
    :data:`MAX_DEPTH`); duplicate keys are problems, not failures."""

    def __init__(self, text: str, problems: list[ExamProblem]) -> None:
        self.text = text
        self.problems = problems
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, position: int) -> int:
        return bisect.bisect_left(self.newlines, position) + 1

    def column(self, position: int) -> int:
        return position - (self.text.rfind("\n", 0, position) + 1) + 1

    def skip(self, position: int) -> int:
        return _SPACE.match(self.text, position).end()  # type: ignore[union-attr]  # always matches

    def document(self) -> Located:
        position = self.skip(0)
        value, position = self.value(position, 1)
        position = self.skip(position)
        if position != len(self.text):
            raise _JsonSyntax("extra data after the top-level value", position)
        return value

    def value(self, position: int, depth: int) -> tuple[Located, int]:
        if depth > MAX_DEPTH:
            raise _JsonSyntax(f"nested more than {MAX_DEPTH} levels deep", position)
        text, line = self.text, self.line(position)
        char = text[position:position + 1]
        if char == '"':
            string, end = self.string(position)
            return Located("text", string, line, string), end
        if char == "{":
            return self.object(position, depth)
        if char == "[":
            return self.array(position, depth)
        number = _NUMBER.match(text, position)
        if number is not None:
            integer, fraction, exponent = number.groups()
            try:
                value: int | float = float(number.group()) if fraction or exponent else int(integer)
            except ValueError:  # more digits than Python converts
                raise _JsonSyntax("a number with too many digits", position) from None
            return Located("number", value, line), number.end()
        for word, (kind, constant) in _CONSTANTS.items():
            if text.startswith(word, position):
                return Located(kind, constant, line), position + len(word)
        raise _JsonSyntax("expecting a value", position)

    def string(self, position: int) -> tuple[str, int]:
        try:
            return scanstring(self.text, position + 1, True)
        except json.JSONDecodeError as exc:
            raise _JsonSyntax(exc.msg, exc.pos) from None

    def object(self, position: int, depth: int) -> tuple[Located, int]:
        line, text = self.line(position), self.text
        pairs: list[tuple[Located, Located]] = []
        seen: dict[str, int] = {}
        position = self.skip(position + 1)
        if text.startswith("}", position):
            return Located("map", (), line), position + 1
        while True:
            if not text.startswith('"', position):
                raise _JsonSyntax("expecting a key in double quotes", position)
            key_line = self.line(position)
            key, position = self.string(position)
            position = self.skip(position)
            if not text.startswith(":", position):
                raise _JsonSyntax("expecting ':' after a key", position)
            value, position = self.value(self.skip(position + 1), depth + 1)
            if key in seen:
                self.problems.append(ExamProblem("", f"duplicate key {shorten(repr(key), 200)} (first on line "
                                                 f"{seen[key]}): give each key once", key_line))
            else:
                seen[key] = key_line
                pairs.append((Located("text", key, key_line, key), value))
            position = self.skip(position)
            if text.startswith("}", position):
                return Located("map", tuple(pairs), line), position + 1
            if not text.startswith(",", position):
                raise _JsonSyntax("expecting ',' or '}'", position)
            position = self.skip(position + 1)

    def array(self, position: int, depth: int) -> tuple[Located, int]:
        line, text = self.line(position), self.text
        elements: list[Located] = []
        position = self.skip(position + 1)
        if text.startswith("]", position):
            return Located("list", (), line), position + 1
        while True:
            value, position = self.value(position, depth + 1)
            elements.append(value)
            position = self.skip(position)
            if text.startswith("]", position):
                return Located("list", tuple(elements), line), position + 1
            if not text.startswith(",", position):
                raise _JsonSyntax("expecting ',' or ']'", position)
            position = self.skip(position + 1)


def parse_json(text: str) -> Parsed:
    """The JSON document ``text`` as :class:`Located` values, each with its line."""
    problems: list[ExamProblem] = []
    scanner = _JsonScanner(text, problems)
    try:
        root = scanner.document()
    except _JsonSyntax as exc:
        position = min(exc.position, len(text))
        return Parsed(None, [ExamProblem("", f"not valid JSON at column {scanner.column(position)}: {exc.message}",
                                         scanner.line(position))])
    return Parsed(root, problems)


# -- Python mappings -------------------------------------------------------------------------


def python_node(value: object, depth: int = 1) -> Located:
    """An exam given as Python objects, as :class:`Located` values (no lines). The exam's
    own levels are walked (the top, the items, each item's keys and lists); a mapping
    deeper than that (an inline rule) is kept as it is, in ``raw``, for the rule compiler."""
    if isinstance(value, str):
        return Located("text", value, text=value)
    if isinstance(value, bool):
        return Located("bool", value)
    if isinstance(value, (int, float)):
        return Located("number", value)
    if value is None:
        return Located("null")
    if isinstance(value, Mapping):
        if depth > 3:
            return Located("map", (), raw=value)
        return Located("map", tuple((python_node(k, 5) if isinstance(k, str) else Located("other", k),
                                     python_node(v, depth + 1)) for k, v in value.items()))
    if isinstance(value, (list, tuple)) and depth <= 4:
        return Located("list", tuple(python_node(element, depth + 1) for element in value))
    if isinstance(value, (list, tuple)):
        return Located("list", ())
    return Located("other", value)
