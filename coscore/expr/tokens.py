"""Splitting combo text into tokens, with Python's rules for numbers, strings and names.

The tokenizer is a single linear pass (no recursion), so it is safe on any input; it
refuses what the rule language does not have (bytes, f-strings, complex numbers) with a
:class:`ExprSyntaxError` that carries the 1-based column.
"""
from __future__ import annotations

import keyword
import re
import unicodedata
from dataclasses import dataclass

from ..errors import CoscoreError

#: Integer literals longer than this are refused (CPython's int/str conversion limit).
MAX_INT_DIGITS = 4300


class ExprSyntaxError(CoscoreError):
    """A problem in combo text at a 1-based ``column``."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "num" | "str" | "name" | "op" | "end"
    text: str  # the operator or (normalised) name; the source text for literals
    value: bool | int | float | str | None  # a literal's value; None for other tokens
    col: int  # 1-based column of the token's first character


_DIGITS = r"[0-9](?:_?[0-9])*"
_EXPONENT = rf"[eE][-+]?{_DIGITS}"
_NUMBER = re.compile(
    rf"""
    (?P<radix>0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+)
  | (?P<float>(?:{_DIGITS})?\.{_DIGITS}(?:{_EXPONENT})?|{_DIGITS}\.(?:{_EXPONENT})?|{_DIGITS}{_EXPONENT})
  | (?P<int>{_DIGITS})
    """,
    re.VERBOSE,
)
_NAME = re.compile(r"[^\W\d]\w*")
_LINE_BREAK = re.compile(r"[\r\n]")
_OPERATORS = (
    "**", "//", "==", "!=", "<=", ">=", "<<", ">>", ":=", "->",
    "(", ")", ",", "+", "-", "*", "/", "<", ">", "%", "@", "&", "|", "^", "~",
    ".", "[", "]", "{", "}", ":", ";", "=", "!",
)
_STRING_PREFIXES = {"r", "u", "R", "U", "b", "B", "f", "F", "br", "rb", "fr", "rf"}
_SIMPLE_ESCAPES = {
    "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
    "n": "\n", "r": "\r", "t": "\t", "v": "\v",
}
_HEX = frozenset("0123456789abcdefABCDEF")


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an ``end`` token; adjacent strings are joined.

    Layout is read as Python's ``eval`` reads an expression: leading spaces and tabs are
    dropped, blank and comment-only lines are skipped, line breaks (``\\n``, ``\\r\\n``,
    ``\\r``) inside brackets and backslash continuations join lines, and the expression
    must be one logical line that is not indented.
    """
    if "\0" in text:
        raise ExprSyntaxError("the combo contains a NUL character", text.index("\0") + 1)
    tokens: list[Token] = []
    depth = 0
    n = len(text)
    pos = 0
    while pos < n and text[pos] in " \t":  # Python's eval strips these before compiling
        pos += 1
    at_line_start = True  # no token yet on this logical line (at bracket depth 0)
    ended = False  # a logical line with tokens is complete: only blank lines may follow
    unmatched: Token | None = None  # the first closing bracket without an opening one
    while True:
        if at_line_start and depth == 0:
            pos = _indentation(text, pos)
            at_line_start = False
        if pos >= n:
            break
        ch = text[pos]
        col = pos + 1
        if ch in " \t\f":
            pos += 1
        elif ch in "\r\n":
            pos += 2 if text.startswith("\r\n", pos) else 1
            if unmatched is not None:  # a closing bracket too many, before the line ends
                raise ExprSyntaxError(f"unmatched '{unmatched.text}'", unmatched.col)
            if depth == 0:
                ended = ended or bool(tokens)
                at_line_start = True
        elif ch == "\\":
            following = text[pos + 1 : pos + 3]
            if following[:1] not in ("\n", "\r"):
                raise ExprSyntaxError("unexpected character after line continuation character", col)
            pos += 3 if following == "\r\n" else 2
            if pos >= n:
                raise ExprSyntaxError("unexpected end of text after line continuation", col)
            at_line_start = depth == 0 and (ended or not tokens)
        elif ch == "#":
            pos = _line_end(text, pos)
        else:
            if ended:
                raise ExprSyntaxError("unexpected text after the end of the expression (a combo is one expression)",
                                      col)
            pos = _token(text, pos, depth, tokens)
            last = tokens[-1]
            if last.kind == "op":
                depth += last.text in "([{"
                depth -= last.text in ")]}"
                if depth < 0 and unmatched is None:
                    unmatched = last
    tokens.append(Token("end", "", None, n + 1))
    return tokens


def _indentation(text: str, pos: int) -> int:
    """Skip the blank lines and the indentation at ``pos`` (the start of a logical line);
    an indented expression is an error, as in Python."""
    n = len(text)
    while True:
        start, column = pos, 0
        while pos < n and text[pos] in " \t\f":
            ch = text[pos]
            column = column + 1 if ch == " " else ((column // 8 + 1) * 8 if ch == "\t" else 0)
            pos += 1
        if pos < n and text[pos] == "#":
            pos = _line_end(text, pos)
            if pos >= n:  # a comment on the last line
                return pos
        if pos < n and text[pos] in "\r\n":  # a blank line
            pos += 2 if text.startswith("\r\n", pos) else 1
            continue
        if column > 0:
            raise ExprSyntaxError("unexpected indent", start + 1)
        return pos


def _line_end(text: str, pos: int) -> int:
    """The position of the line break that ends the line holding ``pos`` (or the end)."""
    match = _LINE_BREAK.search(text, pos)
    return match.start() if match else len(text)


def _token(text: str, pos: int, depth: int, tokens: list[Token]) -> int:
    """Read the number, string, name or operator at ``pos`` into ``tokens``; return the position after it."""
    ch = text[pos]
    col = pos + 1
    if "0" <= ch <= "9" or (ch == "." and "0" <= text[pos + 1 : pos + 2] <= "9" and pos + 1 < len(text)):
        return _number(text, pos, tokens)
    if ch in "'\"":
        return _string(text, pos, "", tokens)
    match = _NAME.match(text, pos)
    if match:
        raw = match.group()
        if raw in _STRING_PREFIXES and text[match.end() : match.end() + 1] in ("'", '"'):
            return _string(text, match.end(), raw, tokens)
        name = raw if raw.isascii() else unicodedata.normalize("NFKC", raw)
        if not name.isidentifier():
            raise ExprSyntaxError(f"invalid character in name {raw!r}", col)
        if name != raw and keyword.iskeyword(name):  # Python reads keywords before folding names
            raise ExprSyntaxError(f"{raw!r} is not the keyword {name!r}: keywords are spelled in ASCII", col)
        tokens.append(Token("name", name, None, col))
        return match.end()
    op = next((o for o in _OPERATORS if text.startswith(o, pos)), None)
    if op is None:
        raise ExprSyntaxError(f"unexpected character {ch!r} (U+{ord(ch):04X})", col)
    tokens.append(Token("op", op, None, col))
    return pos + len(op)


def _number(text: str, pos: int, tokens: list[Token]) -> int:
    match = _NUMBER.match(text, pos)
    assert match is not None  # called where a digit starts a number
    literal = match.group()
    end = match.end()
    col = pos + 1
    if text[end : end + 1] in ("j", "J"):
        raise ExprSyntaxError("complex numbers are not in the rule language", col)
    if match.group("float") is not None:
        value: int | float = float(literal)
    elif match.group("radix") is not None:
        value = int(literal, 0)
    else:
        digits = literal.replace("_", "")
        if len(digits) > MAX_INT_DIGITS:
            raise ExprSyntaxError(f"integer literal has more than {MAX_INT_DIGITS} digits", col)
        if len(digits) > 1 and digits[0] == "0" and digits.strip("0"):
            raise ExprSyntaxError("leading zeros in decimal integers are not allowed", col)
        value = int(digits)
    tokens.append(Token("num", literal, value, col))
    return end


def _string(text: str, pos: int, prefix: str, tokens: list[Token]) -> int:
    """Scan the string literal whose opening quote is at ``pos``; return the position after it."""
    col = pos + 1 - len(prefix)
    lowered = prefix.lower()
    if "b" in lowered:
        raise ExprSyntaxError("bytes literals are not in the rule language", col)
    if "f" in lowered:
        raise ExprSyntaxError("f-strings are not in the rule language", col)
    quote = text[pos] * 3 if text.startswith(text[pos] * 3, pos) else text[pos]
    start = pos + len(quote)
    i, n = start, len(text)
    while True:
        if i >= n:
            raise ExprSyntaxError("unterminated string", col)
        ch = text[i]
        if ch == "\\":
            i += 3 if text.startswith("\r\n", i + 1) else 2
        elif text.startswith(quote, i):
            break
        elif ch in "\r\n" and len(quote) == 1:
            raise ExprSyntaxError("unterminated string", col)
        else:
            i += 1
    body = text[start:i]
    if "\r" in body:  # Python reads every line break of the source as "\n"
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    value = body if "r" in lowered else _unescape(body, start + 1)
    if tokens and tokens[-1].kind == "str":  # implicit concatenation: 'a' 'b' == 'ab'
        previous = tokens.pop()
        assert isinstance(previous.value, str)
        value = previous.value + value
        col = previous.col
    tokens.append(Token("str", text[col - 1 : i + len(quote)], value, col))
    return i + len(quote)


def _unescape(body: str, col: int) -> str:
    """Decode Python's backslash escapes in a non-raw string body starting at ``col``."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        here = col + i
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc in "\r\n":
            i += 3 if body[i + 1 : i + 3] == "\r\n" else 2
        elif esc in "01234567":
            j = i + 1
            while j < n and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i + 1 : j], 8)))
            i = j
        elif esc in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[esc]
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not set(digits) <= _HEX:
                raise ExprSyntaxError(f"truncated \\{esc} escape in string", here)
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise ExprSyntaxError(f"illegal Unicode character \\{esc}{digits} in string", here)
            out.append(chr(code))
            i += 2 + width
        elif esc == "N":
            end = body.find("}", i)
            if body[i + 2 : i + 3] != "{" or end < 0:
                raise ExprSyntaxError("malformed \\N{...} escape in string", here)
            try:
                out.append(unicodedata.lookup(body[i + 3 : end]))
            except (KeyError, UnicodeError):  # not a name (a lone surrogate cannot even be looked up)
                raise ExprSyntaxError(f"unknown Unicode character name {body[i + 3 : end][:100]!r}", here) from None
            i = end + 1
        else:  # Python keeps unknown escapes as they are
            out.append("\\" + esc)
            i += 2
    return "".join(out)
