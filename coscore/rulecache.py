"""Compiled rules kept by their content.

:class:`RuleCache` is a bounded LRU of compiled rules keyed by the rule's content
(:func:`rule_key`), bounded in count and in bytes (:func:`rule_nbytes`, or the growth of
the process's resident memory while a rule compiled: :func:`coscore.limits.rss_bytes`). The drop-in
:class:`coscore.compat.Rule` keeps one for the whole process; each worker process of the
servers (:mod:`coscore.http`) keeps its own.
"""
from __future__ import annotations

import json
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from . import rule as _rule
from .diagnostics import Diagnostic, RuleError
from .limits import rss_bytes

__all__ = ["DEFAULT_CACHE_SIZE", "RuleCache", "rule_key", "rule_nbytes"]

#: How many compiled rules the module-wide cache keeps (least recently used dropped first).
DEFAULT_CACHE_SIZE = 256


def rule_key(source: Any) -> str | None:
    """A canonical text of ``source`` that two rules share iff they score alike, or ``None``.

    Key order is kept (combos are evaluated in key order, so ``{"A", "B"}`` and
    ``{"B", "A"}`` are different rules), and so are number types (``2`` vs ``2.0``).
    JSON text is used as it is. ``None`` means the rule cannot be keyed (not JSON-able).
    """
    if isinstance(source, str):
        return "s" + source
    if isinstance(source, Mapping):
        try:
            return "d" + json.dumps(source, ensure_ascii=False, separators=(",", ":"), check_circular=False)
        except (TypeError, ValueError, RecursionError):
            return None
    return None


def rule_nbytes(rule: _rule.Rule, limit: int = 100_000) -> int:
    """An estimate of the bytes a compiled rule holds: what Python can see of it.

    Walks the rule's attributes (at most ``limit`` objects), summing each container's
    and string's own size and each array's ``nbytes``. Tables kept inside compiled
    kernels are invisible here; :class:`RuleCache` can measure them (``measure=True``).
    """
    seen: set[int] = set()
    stack: list[Any] = [rule]
    total = 0
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        nbytes = getattr(obj, "nbytes", None)
        if type(nbytes) is int:  # numpy arrays (their memory is not in getsizeof)
            total += nbytes
            continue
        try:
            total += sys.getsizeof(obj)
        except TypeError:
            pass
        if (isinstance(obj, (str, bytes, int, float, bool)) or obj is None
                or (callable(obj) and not hasattr(obj, "__dict__"))):
            continue
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        else:
            stack.extend(getattr(obj, "__dict__", {}).values())
            for name in getattr(type(obj), "__slots__", ()):
                stack.append(getattr(obj, name, None))
    return total


class RuleCache:
    """A thread-safe bounded LRU of compiled rules keyed by :func:`rule_key`.

    At most ``maxsize`` rules are kept, and, when ``maxbytes`` is given, at most that
    many bytes of them (each rule's size is the larger of :func:`rule_nbytes` and its
    key's length; with ``measure=True`` also the growth of this process's resident
    memory while it compiled, which counts tables inside compiled kernels — meaningful
    where one thread compiles at a time, as in the service's worker processes). A rule
    larger than ``maxbytes`` alone is compiled and returned but not kept.

    A rule that fails to compile is cached too (its :class:`RuleError` is raised again),
    so a client resending a bad rule costs no recompilation.
    """

    def __init__(self, maxsize: int = DEFAULT_CACHE_SIZE, compiler: Callable[[Any], Any] | None = None,
                 maxbytes: int | None = None, measure: bool = False):
        if maxsize < 0:
            raise ValueError("maxsize must be >= 0")
        if maxbytes is not None and maxbytes < 0:
            raise ValueError("maxbytes must be >= 0")
        self.maxsize = maxsize
        self.maxbytes = maxbytes
        self.measure = measure
        self._compile = compiler or _rule.compile
        self._entries: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, source: Any) -> _rule.Rule:
        """The compiled rule for ``source`` (a dict or JSON text); raises :class:`RuleError`."""
        key = rule_key(source) if self.maxsize and self.maxbytes != 0 else None
        if key is not None:
            with self._lock:
                found = self._entries.get(key)
                if found is not None:
                    self._entries.move_to_end(key)
                    self.hits += 1
            if found is not None:
                entry = found[0]
                if isinstance(entry, RuleError):
                    raise entry
                return entry
        with self._lock:
            self.misses += 1
        before = rss_bytes() if self.measure else 0
        try:
            entry = self._compile(source)
        except RuleError as exc:
            entry = exc
        except TypeError as exc:  # not a dict / text at all
            entry = RuleError([Diagnostic("rule", str(exc))])
        if key is not None:
            size = max(rule_nbytes(entry), len(key))
            if self.measure:
                size = max(size, rss_bytes() - before)
            self._keep(key, entry, size)
        if isinstance(entry, RuleError):
            raise entry
        return entry

    def _keep(self, key: str, entry: Any, size: int) -> None:
        if self.maxbytes is not None and size > self.maxbytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._entries[key] = (entry, size)
            self.bytes += size
            while len(self._entries) > self.maxsize or (self.maxbytes is not None and self.bytes > self.maxbytes):
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = self.hits = self.misses = 0

    def info(self) -> dict:
        """``{"size", "maxsize", "bytes", "maxbytes", "hits", "misses"}``."""
        with self._lock:
            return {"size": len(self._entries), "maxsize": self.maxsize, "bytes": self.bytes,
                    "maxbytes": self.maxbytes, "hits": self.hits, "misses": self.misses}

    def __len__(self) -> int:
        return len(self._entries)
