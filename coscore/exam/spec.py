"""The structure of an exam, validated: :func:`read_exam` gives an :class:`ExamSpec` (each
item's rule not compiled yet: an inline rule object, or the text of its rule file and its
path), or raises :class:`~coscore.exam.errors.ExamError` listing every problem.

:func:`draft_exam` is the walk itself: it never raises, and keeps what each item got right
(:class:`ItemDraft`) next to the problems, so that :mod:`coscore.exam.model` can still
compile the rules of an exam with problems elsewhere and report everything at once.
"""
from __future__ import annotations

import difflib
import math
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ..diagnostics import shorten
from .errors import DICT_SOURCE, ExamError, ExamProblem
from .file import Located, kind_name, plain, python_node, read_exam_file

__all__ = ["ITEM_KEYS", "MAX_ITEMS", "MAX_RULE_BYTES", "RESERVED_NAMES", "TOP_KEYS", "ExamDraft", "ExamSpec",
           "ItemDraft", "ItemSpec", "draft_exam", "quote", "read_exam"]

#: The keys of an exam, in the order the documentation gives them.
TOP_KEYS = ("name", "id", "item_column", "items")
#: The keys of one item.
ITEM_KEYS = ("name", "rule", "blanks", "label", "label2", "weight")
#: The most items an exam may have.
MAX_ITEMS = 1000
#: Item names an exam may not use (the wide output has a ``total_score`` column).
RESERVED_NAMES = frozenset({"total"})
#: The largest rule file an item may name (bytes).
MAX_RULE_BYTES = 64 << 20


@dataclass(frozen=True)
class ItemSpec:
    """One item as the exam gives it, its rule not compiled: ``rule`` is the inline rule
    object (a mapping), or the text of the rule file at ``rule_path``."""

    name: str
    rule: Mapping[str, object] | str
    blanks: tuple[str, ...]
    label: str | None = None
    label2: str | None = None
    weight: float = 1.0
    rule_path: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class ExamSpec:
    """An exam's structure, validated (see :func:`read_exam`)."""

    items: tuple[ItemSpec, ...]
    name: str | None = None
    id: str | None = None
    item_column: str | None = None
    source: str | None = None

    @property
    def layout(self) -> str:
        """``"long"`` (each row is one answer to one item, named in ``item_column``) or ``"wide"``."""
        return "wide" if self.item_column is None else "long"


@dataclass
class ItemDraft:
    """What one item got right so far: a field is ``None`` where it is missing or wrong
    (``complete`` is false then). ``lines`` holds the line of each of its keys, ``blank_lines``
    the line of each blank column."""

    index: int
    line: int | None = None
    name: str | None = None
    rule: Mapping[str, object] | str | None = None
    rule_node: Located | None = None
    rule_written: str | None = None
    rule_path: str | None = None
    blanks: tuple[str, ...] | None = None
    blank_lines: tuple[int | None, ...] = ()
    label: str | None = None
    label2: str | None = None
    weight: float = 1.0
    lines: dict[str, int | None] = field(default_factory=dict)
    complete: bool = True

    @property
    def where(self) -> str:
        """How problems name the item: ``items[2] (q3)``, or ``items[2]`` without a name."""
        if self.name is None:
            return f"items[{self.index}]"
        name = self.name if self.name.isprintable() else repr(self.name)
        return f"items[{self.index}] ({shorten(name, 80)})"

    def spec(self) -> ItemSpec:
        """The item as an :class:`ItemSpec` (only for a complete item)."""
        assert self.complete and self.name is not None and self.rule is not None and self.blanks is not None
        return ItemSpec(self.name, self.rule, self.blanks, self.label, self.label2, self.weight, self.rule_path,
                        self.line)


@dataclass
class ExamDraft:
    """An exam's structure as far as it could be read, and every problem found."""

    source: str
    path: str | None = None
    name: str | None = None
    id: str | None = None
    item_column: str | None = None
    items: list[ItemDraft] = field(default_factory=list)
    problems: list[ExamProblem] = field(default_factory=list)
    lines: dict[str, int | None] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """Whether any problem is an error."""
        return any(p.severity == "error" for p in self.problems)

    def spec(self) -> ExamSpec:
        """The exam as an :class:`ExamSpec` (only when nothing :attr:`failed`)."""
        return ExamSpec(tuple(item.spec() for item in self.items), self.name, self.id, self.item_column, self.path)


def quote(text: str, limit: int = 200) -> str:
    """A name as messages quote it: its ``repr``, shortened."""
    return shorten(repr(text), limit)


def read_exam(source: str | os.PathLike[str] | Mapping[str, object], *, base: str | os.PathLike[str] | None = None,
              allow_files: bool = True) -> ExamSpec:
    """The structure of the exam ``source``, validated; rules are read but not compiled.

    ``source`` is the path of an exam file (YAML, or JSON with a top-level ``items``) or
    an exam already parsed (a mapping; its positions unknown). A rule given as a path is
    read relative to ``base`` (default: the exam file's folder; for a mapping, the current
    directory). With ``allow_files=False`` (a service), a rule given as a path is a
    problem: rules must be inline. Raises :class:`~coscore.exam.errors.ExamError` listing
    every problem, and nothing else.
    """
    draft = draft_exam(source, base=base, allow_files=allow_files)
    if draft.failed:
        raise ExamError(draft.source, draft.problems)
    return draft.spec()


def draft_exam(source: object, *, base: str | os.PathLike[str] | None = None, allow_files: bool = True) -> ExamDraft:
    """Walk the exam ``source`` (as :func:`read_exam` takes it): what it got right and
    every problem. Never raises for what ``source`` holds."""
    try:
        return _Walk(source, base, allow_files).draft
    except (RecursionError, MemoryError) as exc:
        what = "nested too deeply" if isinstance(exc, RecursionError) else "too large to read"
        return ExamDraft(_display(source), problems=[ExamProblem("", f"cannot be read: {what}")])
    except Exception as exc:  # noqa: BLE001 - a mapping whose methods fail: still one ExamError
        return ExamDraft(_display(source), problems=[ExamProblem("", shorten(
            f"cannot be read: {type(exc).__name__}: {exc}", 500))])


def _display(source: object) -> str:
    """How messages name ``source``: its path, or ``"<exam>"``."""
    try:
        name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    except Exception:  # noqa: BLE001 - a path-like object that fails
        name = None
    return name if isinstance(name, str) else DICT_SOURCE


class _Walk:
    """One walk over an exam's values, filling :attr:`draft`."""

    def __init__(self, source: object, base: str | os.PathLike[str] | None, allow_files: bool) -> None:
        self.allow_files = allow_files
        self.rule_files: dict[str, tuple[str | None, str | None]] = {}
        root: Located | None
        if isinstance(source, (str, os.PathLike)) and isinstance(os.fspath(source), str):
            path = os.fspath(source)
            self.draft = ExamDraft(path, path)
            parsed = read_exam_file(path)
            root = parsed.root
            self.draft.problems.extend(parsed.problems)
            self.base = os.fspath(base) if base is not None else os.path.dirname(path)
        elif isinstance(source, Mapping):
            self.draft = ExamDraft(DICT_SOURCE)
            root = python_node(source)
            self.base = os.fspath(base) if base is not None else ""
        else:
            self.draft = ExamDraft(DICT_SOURCE)
            self.problem("", f"an exam is the path of an exam file or a mapping, not {type(source).__name__}")
            return
        if root is not None:
            self.exam(root)

    def problem(self, where: str, message: str, line: int | None = None) -> None:
        self.draft.problems.append(ExamProblem(where, message, line))

    # -- the exam ------------------------------------------------------------------------

    def exam(self, root: Located) -> None:
        if root.kind != "map":
            self.problem("", f"an exam is a mapping with items, not {kind_name(root)} (see docs/exams.md)", root.line)
            return
        fields = self.keys(root, TOP_KEYS, "", "an exam's keys")
        draft = self.draft
        for key in ("name", "id", "item_column"):
            if key in fields:
                draft.lines[key] = fields[key].line
                what = "the exam's name" if key == "name" else "a column name"
                setattr(draft, key, self.text(fields[key], key, what))
        if draft.id is not None and draft.id == draft.item_column:
            self.problem("item_column", f"column {quote(draft.id)} is also the id column: the item column names "
                         "each row's item, the id column its student", draft.lines["item_column"])
        items = fields.get("items")
        if items is None:
            self.problem("items", "missing: list the exam's items, each with name, rule and blanks", root.line)
            return
        draft.lines["items"] = items.line
        if items.kind != "list":
            self.problem("items", f"must be a list of items, not {kind_name(items)}", items.line)
            return
        if not items.elements:
            self.problem("items", "is empty: an exam has at least one item", items.line)
            return
        if len(items.elements) > MAX_ITEMS:
            self.problem("items", f"{len(items.elements):,} items: an exam has at most {MAX_ITEMS:,} "
                         f"(only the first {MAX_ITEMS:,} are checked)", items.line)
        for index, node in enumerate(items.elements[:MAX_ITEMS]):
            draft.items.append(self.item(index, node))
        self.names()
        self.columns()

    def keys(self, node: Located, known: tuple[str, ...], where: str, whose: str) -> dict[str, Located]:
        """The values of ``node``'s known keys, each on its key's line; an unknown key is a
        problem naming the known ones."""
        found: dict[str, Located] = {}
        for key, value in node.pairs:
            if key.kind != "text" or key.text is None:
                self.problem(where, f"a key must be text, not {kind_name(key)} ({shorten(repr(key.value), 100)})",
                             key.line)
            elif key.text not in known:
                close = difflib.get_close_matches(key.text, known, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                self.problem(where, f"unknown key {quote(key.text)} ({hint}{whose} are {', '.join(known)})", key.line)
            else:  # placed on its key's line: a block value starts on the next one
                found[key.text] = value if key.line is None else replace(value, line=key.line)
        return found

    def text(self, node: Located, where: str, what: str) -> str | None:
        """``node``'s text (a YAML scalar's as written), or ``None`` after a problem."""
        if node.kind == "null":
            self.problem(where, f"is empty (null): give {what}", node.line)
        elif node.kind in ("map", "list") or node.text is None:
            self.problem(where, f"must be {what} (text), not {kind_name(node)}", node.line)
        elif not node.text:
            self.problem(where, f"is empty: give {what}", node.line)
        else:
            return node.text
        return None

    # -- one item ------------------------------------------------------------------------

    def item(self, index: int, node: Located) -> ItemDraft:
        item = ItemDraft(index, node.line)
        if node.kind != "map":
            self.problem(item.where, f"an item is a mapping with name, rule and blanks, not {kind_name(node)}",
                         node.line)
            item.complete = False
            return item
        problems = len(self.draft.problems)
        name = next((value for key, value in node.pairs if key.text == "name"), None)
        if name is not None:  # first, so that every other problem can name the item
            text = self.text(name, f"{item.where}.name", "the item's name")
            if text in RESERVED_NAMES:
                self.problem(f"{item.where}.name", f"{quote(text)} is reserved (the wide output's {text}_score "
                             "column): choose another name", name.line)
            else:
                item.name = text
        fields = self.keys(node, ITEM_KEYS, item.where, "an item's keys")
        item.lines = {key: value.line for key, value in fields.items()}
        if name is None:
            self.problem(f"{item.where}.name", "missing: give the item a name", node.line)
        where = item.where
        if "rule" in fields:
            self.rule(item, fields["rule"])
        else:
            self.problem(f"{where}.rule", "missing: give the item's rule file (a path relative to the exam file) "
                         "or the rule itself (a mapping)", node.line)
        if "blanks" in fields:
            self.blanks(item, fields["blanks"])
        else:
            self.problem(f"{where}.blanks", "missing: list the item's blank columns in order, e.g. [q1_a, q1_b]",
                         node.line)
        for key in ("label", "label2"):
            if key in fields:
                setattr(item, key, self.text(fields[key], f"{where}.{key}", "a column name"))
        if "label2" in fields and "label" not in fields:
            self.problem(f"{where}.label2", "is given without label: the first rater's marks are label, the "
                         "second's label2", fields["label2"].line)
        elif item.label is not None and item.label == item.label2:
            self.problem(f"{where}.label2", f"column {quote(item.label)} is also label: the second rater's marks "
                         "are another column", fields["label2"].line)
        if "weight" in fields:
            self.weight(item, fields["weight"])
        item.complete = len(self.draft.problems) == problems
        return item

    def rule(self, item: ItemDraft, node: Located) -> None:
        where = f"{item.where}.rule"
        if node.kind == "map":
            item.rule, item.rule_node = plain(node), node  # type: ignore[assignment]  # a mapping's plain is a dict
            return
        if node.kind == "other" and isinstance(node.value, os.PathLike) and isinstance(os.fspath(node.value), str):
            written: str | None = os.fspath(node.value)
        elif node.kind == "text":
            written = node.text
        else:
            self.problem(where, "must be the path of the item's rule file or the rule itself (a mapping), "
                         f"not {kind_name(node)}", node.line)
            return
        if not written:
            self.problem(where, "is empty: give the path of the item's rule file, or the rule itself", node.line)
            return
        if not self.allow_files:
            self.problem(where, f"rules must be inline here: give the rule itself (a mapping), not the path "
                         f"{quote(written)}", node.line)
            return
        item.rule_written = written
        item.rule_path = os.path.join(self.base, written)
        text, failure = self.rule_file(item.rule_path)
        if failure is not None:
            self.problem(where, f"{shorten(written, 300)}: {failure}", node.line)
            return
        item.rule = text

    def rule_file(self, path: str) -> tuple[str | None, str | None]:
        """The text of the rule file ``path`` and ``None``, or ``None`` and why it cannot be read
        (each file read once)."""
        if path not in self.rule_files:
            self.rule_files[path] = _read_rule_file(path)
        return self.rule_files[path]

    def blanks(self, item: ItemDraft, node: Located) -> None:
        where = f"{item.where}.blanks"
        if node.kind == "text":
            self.problem(where, f"must be a list of columns: write [{shorten(node.text or '', 200)}] (a list, even "
                         "of one column)", node.line)
            return
        if node.kind != "list":
            self.problem(where, f"must be a list of columns, not {kind_name(node)}", node.line)
            return
        if not node.elements:
            self.problem(where, "is empty: list the item's blank columns, at least one", node.line)
            return
        names: list[str] = []
        seen: set[str] = set()
        good = True
        for index, element in enumerate(node.elements):
            name = self.text(element, f"{where}[{index}]", "a column name")
            if name is None:
                good = False
            elif name in seen:
                self.problem(f"{where}[{index}]", f"column {quote(name)} is listed twice: each blank is its own "
                             "column", element.line)
                good = False
            else:
                seen.add(name)
            names.append(name or "")
        if good:
            item.blanks = tuple(names)
            item.blank_lines = tuple(element.line for element in node.elements)

    def weight(self, item: ItemDraft, node: Located) -> None:
        where = f"{item.where}.weight"
        if node.kind != "number" or isinstance(node.value, bool):
            self.problem(where, f"must be a number (0 or more), not {kind_name(node)}", node.line)
            return
        try:
            value = float(node.value)  # type: ignore[arg-type]  # a number
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            self.problem(where, f"must be a finite number, not {shorten(str(node.value), 100)}", node.line)
        elif value < 0:
            self.problem(where, f"must be 0 or more, not {shorten(str(node.value), 100)}", node.line)
        else:
            item.weight = value

    # -- across items --------------------------------------------------------------------

    def names(self) -> None:
        """Item names are unique."""
        first: dict[str, ItemDraft] = {}
        for item in self.draft.items:
            if item.name is None:
                continue
            if item.name in first:
                self.problem(f"{item.where}.name", f"{quote(item.name)} is also the name of {first[item.name].where}: "
                             "item names must be unique", item.lines.get("name"))
                item.complete = False
            else:
                first[item.name] = item

    def columns(self) -> None:
        """What each column may be: the id and the item column are neither blanks nor marks,
        no column is both a blank and a mark column, and in the wide layout each column
        belongs to one item."""
        draft = self.draft
        wide = draft.item_column is None
        special = {draft.id: "id", draft.item_column: "item_column"}
        special.pop(None, None)
        blank_of: dict[str, ItemDraft] = {}
        for item in draft.items:
            for index, column in enumerate(item.blanks or ()):
                where, line = f"{item.where}.blanks[{index}]", item.blank_lines[index]
                owner = blank_of.setdefault(column, item)
                if column in special:
                    self.fail(item, where, f"column {quote(column)} is the exam's {special[column]}: it cannot be "
                              "a blank", line)
                elif wide and owner is not item:
                    self.fail(item, where, f"column {quote(column)} is also a blank of {owner.where}: in the wide "
                              "layout each column is a blank of one item (with item_column, the long layout, items "
                              "share their columns)", line)
        mark_of: dict[str, tuple[ItemDraft, str]] = {}
        for item in draft.items:
            for key in ("label", "label2"):
                column = getattr(item, key)
                if column is None:
                    continue
                where, line = f"{item.where}.{key}", item.lines.get(key)
                owner, owner_key = mark_of.setdefault(column, (item, key))
                if column in special:
                    self.fail(item, where, f"column {quote(column)} is the exam's {special[column]}: it cannot be "
                              "a mark column", line)
                elif column in blank_of:
                    self.fail(item, where, f"column {quote(column)} is a blank of {blank_of[column].where}: a "
                              "column cannot be both a blank and a mark column", line)
                elif wide and owner is not item:
                    self.fail(item, where, f"column {quote(column)} is also the {owner_key} of {owner.where}: in "
                              "the wide layout each item has its own mark columns", line)

    def fail(self, item: ItemDraft, where: str, message: str, line: int | None) -> None:
        self.problem(where, message, line)
        item.complete = False


def _read_rule_file(path: str) -> tuple[str | None, str | None]:
    """The UTF-8 text of a rule file, or why it cannot be read."""
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            return None, "is a folder, not a rule file"
        if not stat.S_ISREG(info.st_mode):
            return None, "is not a regular file"
        if info.st_size > MAX_RULE_BYTES:
            return None, f"larger than {MAX_RULE_BYTES >> 20} MiB: not a rule file"
        with open(path, "rb") as handle:
            data = handle.read(MAX_RULE_BYTES + 1)
    except FileNotFoundError:
        return None, "cannot read it: no such file"
    except OSError as exc:
        return None, f"cannot read it: {exc.strerror or exc}"
    except ValueError as exc:  # a path with a NUL character
        return None, f"cannot read it: {exc}"
    if len(data) > MAX_RULE_BYTES:
        return None, f"larger than {MAX_RULE_BYTES >> 20} MiB: not a rule file"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, f"invalid UTF-8 at line {line} (byte {data[exc.start]:02x}); a rule file must be UTF-8 encoded"
