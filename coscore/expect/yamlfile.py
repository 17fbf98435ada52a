"""A suite's YAML files (``suite.yaml``, ``expectations.yaml``): read and composed into
nodes, every failure a :class:`~coscore.expect.errors.SuiteError` naming the file and line."""

from __future__ import annotations

from pathlib import Path

import yaml

from .errors import SuiteError

#: The largest YAML file a suite may have (bytes): settings and expectations are small.
MAX_BYTES = 4 << 20
#: The deepest nesting of mappings and lists a suite's YAML may have.
MAX_DEPTH = 64


def read_text(path: Path, file: str) -> str:
    """The text of ``path`` (``file`` is its name in messages): UTF-8, at most :data:`MAX_BYTES`."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SuiteError(file, "", f"cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise SuiteError(file, "", f"larger than {MAX_BYTES >> 20} MiB: not a suite file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SuiteError(file, "", f"invalid UTF-8 (byte {data[exc.start]:02x}); the file must be UTF-8 encoded",
                         line) from None


def compose(text: str, file: str) -> yaml.Node | None:
    """The node tree of YAML ``text`` (``None`` for an empty document), nested at most
    :data:`MAX_DEPTH` levels."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        if "alphabetic or numeric" in problem:
            problem += " (quote patterns that start with *: \"*\")"
        raise SuiteError(file, "", f"not valid YAML: {problem}", line) from exc
    except RecursionError:
        raise SuiteError(file, "", f"nested more than {MAX_DEPTH} levels deep") from None
    _check_depth(root, file)
    return root


def _check_depth(root: yaml.Node | None, file: str) -> None:
    """Raise when ``root`` nests deeper than :data:`MAX_DEPTH` (walked without recursion,
    so that the code that reads the tree recursively never meets such a tree)."""
    if root is None:
        return
    stack = [(root, 1)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:  # an alias: the node was checked where it is defined
            continue
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise SuiteError(file, "", f"nested more than {MAX_DEPTH} levels deep", node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            stack.extend((part, depth + 1) for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in node.value)
