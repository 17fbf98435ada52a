"""What a scored file records of how it was scored, and reading it back.

``coscore score`` writes, with the scores, a record of the run (a JSON object: coscore's
version, the rule's or the exam's SHA-256 and name, the blank columns, the label…; see
``docs/columns.md``):

- **Parquet**: in the schema's key-value metadata, under the key ``coscore`` (in the file's
  footer: pyarrow shows it as ``schema.metadata[b"coscore"]``);
- **.xlsx**: in custom document properties (``docProps/custom.xml``), which Excel shows under
  File > Info > Properties > Advanced Properties > Custom (LibreOffice: File > Properties >
  Custom Properties) and calamine (fastexcel) never reads. Office keeps at most 255
  characters of a property's text, so a longer record is cut into properties of at most 255
  (``coscore``, ``coscore (2)``, …) that :func:`scored_metadata` joins again.

CSV, TSV and JSON Lines have nowhere to keep it. :func:`scored_metadata` reads it back from
the Parquet footer or the workbook's properties part alone, never the data.
"""
from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree

from .errors import InputError
from .table import format_of

#: The key of the record: Parquet's metadata key (as bytes) and the .xlsx property's name.
RECORD_KEY = "coscore"
#: The most characters (UTF-16 code units) of one custom property's text that Office keeps.
PROPERTY_CHARS = 255
#: The most bytes of the workbook's relations or properties part that are read.
PART_BYTES = 1 << 20

_NS = "http://schemas.openxmlformats.org"
CUSTOM_PART = "docProps/custom.xml"
CUSTOM_TYPE = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
CUSTOM_RELATION = f"{_NS}/officeDocument/2006/relationships/custom-properties"
_PROPERTIES = f"{_NS}/officeDocument/2006/custom-properties"
_VT = f"{_NS}/officeDocument/2006/docPropsVTypes"
_PKG_RELS = f"{_NS}/package/2006/relationships"
#: The format id Office gives every user-defined property.
_FMTID = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"
_PIECE_NAME = re.compile(re.escape(RECORD_KEY) + r" \((\d+)\)")
#: Characters XML 1.0 cannot hold (JSON escapes the controls itself): lone surrogates, U+FFFE, U+FFFF.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")
_DTD = (b"<!DOCTYPE", b"<!ENTITY")


def record_json(record: Mapping[str, Any]) -> str:
    """``record`` as compact JSON that XML and UTF-8 can both hold (a lone surrogate or
    U+FFFE/U+FFFF in a name is written as its ``\\uXXXX`` escape)."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def record_pieces(text: str) -> list[str]:
    """``text`` cut into pieces of at most :data:`PROPERTY_CHARS` UTF-16 code units, none
    starting or ending with white space (which a reader might trim) where a cut can avoid it."""
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end, units = start, 0
        while end < len(text) and units + _units(text[end]) <= PROPERTY_CHARS:
            units += _units(text[end])
            end += 1
        cut = end
        while end < len(text) and cut > start + 1 and (text[cut - 1].isspace() or text[cut].isspace()):
            cut -= 1
        if end < len(text) and (text[cut - 1].isspace() or text[cut].isspace()):
            cut = end   # white space all along: cut where the room ends
        pieces.append(text[start:cut])
        start = cut
    return pieces


def _units(char: str) -> int:
    """The UTF-16 code units of a character (Office counts them)."""
    return 2 if ord(char) > 0xFFFF else 1


def custom_properties(record: Mapping[str, Any]) -> str:
    """The XML of ``docProps/custom.xml`` holding ``record`` (without the XML declaration)."""
    properties = []
    for number, piece in enumerate(record_pieces(record_json(record)), 1):
        name = RECORD_KEY if number == 1 else f"{RECORD_KEY} ({number})"
        properties.append(f'<property fmtid="{_FMTID}" pid="{number + 1}" name="{name}">'
                          f"<vt:lpwstr>{_escaped(piece)}</vt:lpwstr></property>")
    return f'<Properties xmlns="{_PROPERTIES}" xmlns:vt="{_VT}">{"".join(properties)}</Properties>'


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def scored_metadata(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The record of how the scored file at ``path`` was scored (a ``dict``, as ``coscore
    score`` wrote it), or ``None`` when it holds none: a CSV, TSV or JSON Lines file, a
    Parquet file or workbook not written by ``coscore score``. Reads only the Parquet
    footer, or the workbook's relations and custom properties parts.

    Raises :class:`InputError` (naming the file and what to do) for a missing or damaged
    file, or a record that is not a JSON object."""
    name = os.fspath(path)
    if not os.path.exists(name):
        raise InputError(name, "no such file")
    if os.path.isdir(name):
        raise InputError(name, "is a directory; give one scored .parquet or .xlsx file")
    try:
        fmt = format_of(name, None, default="csv")
    except ValueError:
        return None
    if fmt == "parquet":
        text = _parquet_record(name)
    elif fmt == "xlsx":
        text = _xlsx_record(name)
    else:
        return None
    if text is None:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        where = "the Parquet metadata key 'coscore'" if fmt == "parquet" else "the custom property 'coscore'"
        raise InputError(name, f"{where} is not the record coscore writes (a JSON object); it was changed "
                         "after scoring: score the answers again to write it anew")
    return record


def _parquet_record(name: str) -> str | None:
    """The record's text from a Parquet file's footer, or ``None``."""
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_metadata(name).metadata or {}
    except Exception as exc:  # noqa: BLE001 - pyarrow's errors for a damaged or foreign file
        raise InputError(name, f"not a readable Parquet file ({' '.join(str(exc).split())}); "
                         "give the file coscore score wrote") from None
    value = metadata.get(RECORD_KEY.encode())
    return None if value is None else value.decode("utf-8", "replace")


def _xlsx_record(name: str) -> str | None:
    """The record's text from a workbook's custom properties, or ``None``."""
    try:
        with zipfile.ZipFile(name) as book:
            relations = _part(book, "_rels/.rels", name)
            part = CUSTOM_PART
            if relations is not None:
                for relation in _parsed(relations, "_rels/.rels", name).iter(f"{{{_PKG_RELS}}}Relationship"):
                    if relation.get("Type", "").endswith("/custom-properties"):
                        part = relation.get("Target", CUSTOM_PART).lstrip("/")
                        break
            custom = _part(book, part, name)
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as exc:
        raise InputError(name, f"not a readable .xlsx workbook ({exc}); give the file coscore score wrote") from None
    if custom is None:
        return None
    pieces: dict[int, str] = {}
    for prop in _parsed(custom, part, name).iter(f"{{{_PROPERTIES}}}property"):
        label = prop.get("name", "")
        found = _PIECE_NAME.fullmatch(label)
        number = 1 if label == RECORD_KEY else int(found.group(1)) if found else None
        if number is not None:
            value = prop.find(f"{{{_VT}}}lpwstr")
            pieces[number] = (value.text or "") if value is not None else ""
    if not pieces:
        return None
    if sorted(pieces) != list(range(1, len(pieces) + 1)):
        raise InputError(name, f"the custom properties 'coscore' of {part} are incomplete (pieces "
                         f"{sorted(pieces)}); score the answers again to write them anew")
    return "".join(pieces[n] for n in sorted(pieces))


def _part(book: zipfile.ZipFile, part: str, name: str) -> bytes | None:
    """A small part of the workbook read whole (``None`` when it has none)."""
    try:
        info = book.getinfo(part)
    except KeyError:
        return None
    if info.file_size > PART_BYTES:
        raise InputError(name, f"part {part} is larger than {PART_BYTES:,} bytes; it is not what coscore "
                         "writes: score the answers again")
    with book.open(info) as handle:
        data = handle.read(PART_BYTES + 1)
    if len(data) > PART_BYTES:
        raise InputError(name, f"part {part} inflates past its declared size; the workbook is damaged")
    return data


def _parsed(data: bytes, part: str, name: str) -> Any:
    """A part's XML parsed (a DTD or an entity refused: no .xlsx declares one)."""
    if any(mark in data for mark in _DTD):
        raise InputError(name, f"refused: part {part} declares a DTD or an entity, which .xlsx never does")
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise InputError(name, f"part {part} is not well-formed XML ({exc}); the workbook is damaged") from None
